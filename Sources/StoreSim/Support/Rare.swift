/// An optional field that is nil in most records, kept out of line: the record holds one
/// pointer (nil when the value is) instead of the value, so the common record is smaller.
/// A renewal's transaction and notification are the bulk of a long session's memory, and an
/// offer, a family share or a commitment plan is on few of them.
///
/// `@Rare var offer: TransactionOffer?` reads and writes as the optional it wraps; it is
/// compared, hashed and coded as that optional (a nil one is left out of a keyed container,
/// and a missing key reads as nil, as `Codable` does for an optional).
@propertyWrapper
struct Rare<Value: Sendable & Hashable>: Sendable, Hashable {
  /// The value's box (`CopyOnWrite`, as `SubscriptionState` keeps its offers), nil for nil.
  private var box: CopyOnWrite<Value>?

  init(wrappedValue: Value?) { box = wrappedValue.map(CopyOnWrite.init) }

  var wrappedValue: Value? {
    get { box?.fields }
    set { box = newValue.map(CopyOnWrite.init) }
  }
}

extension Rare: Codable where Value: Codable {
  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Value.self))
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let value = wrappedValue { try container.encode(value) } else { try container.encodeNil() }
  }
}

// The synthesized `Codable` of a record calls these for its `@Rare` fields: as for an optional
// field, nil is not written and a missing key is nil.
extension KeyedDecodingContainer {
  func decode<Value: Codable>(_ type: Rare<Value>.Type, forKey key: Key) throws -> Rare<Value> {
    Rare(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
  }
}

extension KeyedEncodingContainer {
  mutating func encode<Value: Codable>(_ value: Rare<Value>, forKey key: Key) throws {
    try encodeIfPresent(value.wrappedValue, forKey: key)
  }
}
