/// An immutable value on the heap, shared by every copy of the struct that holds it, so large
/// records (a notification's renewal info) cost one pointer to copy. Compared, hashed and
/// encoded as the value itself.
final class Shared<Value: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
  let value: Value

  init(_ value: Value) { self.value = value }

  static func == (a: Shared, b: Shared) -> Bool { a === b || a.value == b.value }

  func hash(into hasher: inout Hasher) { value.hash(into: &hasher) }

  init(from decoder: any Decoder) throws { value = try Value(from: decoder) }

  func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
