import Foundation
import StoreSim

/// An object's members by key: the first of duplicates is read and unknown keys are ignored, as
/// `JSONDecoder` does.
struct NodeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: NodeDecoder
  let keys: [String]
  let values: [String: JSONValue]

  init(_ members: [JSONMember], decoder: NodeDecoder) throws {
    self.decoder = decoder
    var keys: [String] = []
    var values: [String: JSONValue] = [:]
    keys.reserveCapacity(members.count)
    values.reserveCapacity(members.count)
    for member in members {
      if values[member.key] != nil { continue }
      keys.append(member.key)
      values[member.key] = member.value.value
    }
    self.keys = keys
    self.values = values
  }

  var codingPath: [any CodingKey] { decoder.codingPath }
  var allKeys: [Key] { keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

  func value(_ key: Key) throws -> JSONValue {
    guard let value = values[key.stringValue] else {
      throw DecodingError.keyNotFound(
        key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
    }
    return value
  }

  func child(_ key: Key) throws -> NodeDecoder { decoder.child(try value(key), key: key) }

  /// `null`: an absent optional (`decodeIfPresent` asks this).
  func decodeNil(forKey key: Key) throws -> Bool {
    guard case .null = try value(key) else { return false }
    return true
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).unboxBool() }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).unboxString() }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).unboxFloat(type) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).unboxFloat(type) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).unboxInteger(type) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).unboxInteger(type) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).unboxInteger(type) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).unboxInteger(type) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).unboxInteger(type) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).unboxInteger(type) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).unboxInteger(type) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).unboxInteger(type) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).unboxInteger(type) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).unboxInteger(type) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try child(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try child(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    decoder.child(values[JSONNodeKey.super.stringValue] ?? .null, key: JSONNodeKey.super)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(values[key.stringValue] ?? .null, key: key) }
}

/// An array's elements in order.
struct NodeUnkeyedContainer: UnkeyedDecodingContainer {
  let elements: [JSONNode]
  let decoder: NodeDecoder
  var currentIndex = 0

  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  /// The next element's decoder; the element is then read.
  mutating func next(_ type: Any.Type) throws -> NodeDecoder {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        type,
        .init(
          codingPath: codingPath + [JSONNodeKey(intValue: currentIndex)],
          debugDescription: "Unkeyed container is at end."
        ))
    }
    defer { currentIndex += 1 }
    return decoder.child(elements[currentIndex].value, key: JSONNodeKey(intValue: currentIndex))
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, case .null = elements[currentIndex].value else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).unboxBool() }
  mutating func decode(_ type: String.Type) throws -> String { try next(type).unboxString() }
  mutating func decode(_ type: Double.Type) throws -> Double { try next(type).unboxFloat(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try next(type).unboxFloat(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try next(type).unboxInteger(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).unboxInteger(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).unboxInteger(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).unboxInteger(type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).unbox(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try next([String: Any].self).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try next([Any].self).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}

/// The value itself.
struct NodeSingleValueContainer: SingleValueDecodingContainer {
  let decoder: NodeDecoder

  var codingPath: [any CodingKey] { decoder.codingPath }

  func decodeNil() -> Bool {
    if case .null = decoder.value { return true }
    return false
  }

  func decode(_ type: Bool.Type) throws -> Bool { try decoder.unboxBool() }
  func decode(_ type: String.Type) throws -> String { try decoder.unboxString() }
  func decode(_ type: Double.Type) throws -> Double { try decoder.unboxFloat(type) }
  func decode(_ type: Float.Type) throws -> Float { try decoder.unboxFloat(type) }
  func decode(_ type: Int.Type) throws -> Int { try decoder.unboxInteger(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try decoder.unboxInteger(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try decoder.unboxInteger(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try decoder.unboxInteger(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try decoder.unboxInteger(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try decoder.unboxInteger(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.unboxInteger(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.unboxInteger(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.unboxInteger(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.unboxInteger(type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.unbox(type) }
}
