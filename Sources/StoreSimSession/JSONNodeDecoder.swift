import Foundation
import StoreSim

/// Decodes `Decodable` values from a parsed `JSONNode`, as `JSONDecoder` decodes them from
/// text with dates as milliseconds since 1970: numbers convert as `JSONDecoder` converts them,
/// `Decimal` is read from the number as written, `UUID` and `URL` from strings, and failures are
/// the same `DecodingError`s at the same coding paths.
/// (`WrittenBack` also refuses what `JSONEncoder` would not write back the same.)
package struct JSONNodeDecoder {
  /// Whether dates, decimals and integers must lie in `SessionBounds` (a session file's).
  package var bounded: Bool

  /// A decoder as lenient as `JSONDecoder`; bounded as a session's values are.
  package init(bounded: Bool = false) {
    self.bounded = bounded
  }

  /// The value of a number's text as `Decimal` holds it; nil when it cannot.
  package static func decimal(_ text: String) -> Decimal? { NodeDecoder.decimal(text) }

  /// Decodes a value of `type` from `node`.
  package func decode<T: Decodable>(_ type: T.Type, from node: JSONNode) throws -> T {
    try NodeDecoder(node.value, codingPath: [], bounded: bounded).unbox(T.self)
  }
}

/// A coding key for an array element (`Index N`) or a member named at run time.
struct JSONNodeKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = "Index \(intValue)"
    self.intValue = intValue
  }

  static let `super` = JSONNodeKey(stringValue: "super")
}

/// One value being decoded, at its coding path.
final class NodeDecoder: Decoder {
  let value: JSONValue
  let codingPath: [any CodingKey]
  let bounded: Bool
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ value: JSONValue, codingPath: [any CodingKey], bounded: Bool) {
    self.value = value
    self.codingPath = codingPath
    self.bounded = bounded
  }

  /// A decoder for a value inside this one.
  func child(_ value: JSONValue, key: any CodingKey) -> NodeDecoder {
    NodeDecoder(value, codingPath: codingPath + [key], bounded: bounded)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value else { throw mismatch([String: Any].self) }
    return KeyedDecodingContainer(try NodeKeyedContainer<Key>(members, decoder: self))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else { throw mismatch([Any].self) }
    return NodeUnkeyedContainer(elements: elements, decoder: self)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { NodeSingleValueContainer(decoder: self) }

  // MARK: Errors, as JSONDecoder words them

  func mismatch(_ type: Any.Type) -> DecodingError {
    if case .null = value {
      return .valueNotFound(
        type, .init(codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
    }
    return .typeMismatch(
      type,
      .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kindDescription)."))
  }

  func corrupted(_ description: String, at path: [any CodingKey]? = nil) -> DecodingError {
    .dataCorrupted(.init(codingPath: path ?? codingPath, debugDescription: description))
  }

  // MARK: Values

  func unbox<T: Decodable>(_ type: T.Type) throws -> T {
    if T.self == Date.self { return try unboxDate() as! T }
    if T.self == Decimal.self { return try unboxDecimal() as! T }
    if T.self == UUID.self { return try unboxUUID() as! T }
    if T.self == URL.self { return try unboxURL() as! T }
    return try T(from: self)
  }

  func unboxBool() throws -> Bool {
    guard case .bool(let b) = value else {
      // `JSONDecoder` calls `null` for a boolean a type mismatch, for other types a missing value.
      throw DecodingError.typeMismatch(
        Bool.self,
        .init(codingPath: codingPath, debugDescription: "Expected to decode Bool but found \(value.kindDescription)."))
    }
    return b
  }

  func unboxString() throws -> String {
    guard case .string(let s) = value else { throw mismatch(String.self) }
    return s
  }

  func number(_ type: Any.Type) throws -> String {
    guard case .number(let text) = value else { throw mismatch(type) }
    return text
  }

  static let posix = Locale(identifier: "en_US_POSIX")

  /// The value of a number's text, as the session reader compares numbers.
  static func decimal(_ text: String) -> Decimal? { Decimal(string: text, locale: posix) }

  /// An integer, as `JSONDecoder` converts one: digits exactly; a fraction or an exponent
  /// through `Double`, when that is an integer of the type.
  /// Bounded: refused past `SessionBounds.largestInteger`, except an `Int64` (an identifier
  /// Apple gives, such as a download id, is any 64-bit number and is never counted on).
  func unboxInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    let v = try unboxAnyInteger(type)
    guard !bounded || T.self == Int64.self || SessionBounds.holds(integer: v) else {
      throw corrupted("Number \(v) is out of range.", at: [])
    }
    return v
  }

  private func unboxAnyInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    let text = try number(type)
    let plain = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    if plain, let v = T(text) { return v }
    guard !plain, let d = Double(text), let v = T(exactly: d) else {
      throw corrupted("Number \(text) is not representable as \(type).", at: [])
    }
    return v
  }

  func unboxFloat<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
    let text = try number(type)
    guard let v = T(text), v.isFinite else {
      throw corrupted("Number \(text) is not representable as \(type).", at: [])
    }
    return v
  }

  /// Milliseconds since 1970, as `JSONDecoder` reads them (through `Double`).
  func unboxDate() throws -> Date {
    let text = try number(Date.self)
    guard let ms = Double(text), ms.isFinite else { throw corrupted("Number \(text) is not representable.", at: []) }
    guard !bounded || SessionBounds.holds(milliseconds: ms) else {
      throw corrupted("Date \(text) is out of range.", at: [])
    }
    return Date(timeIntervalSince1970: ms / 1000)
  }

  func unboxDecimal() throws -> Decimal {
    let text = try number(Decimal.self)
    guard let d = Self.decimal(text) else { throw corrupted("Number \(text) is not representable as Decimal.", at: []) }
    guard !bounded || SessionBounds.holds(price: d) else { throw corrupted("Number \(text) is out of range.", at: []) }
    return d
  }

  func unboxUUID() throws -> UUID {
    let text = try unboxString()
    guard let uuid = UUID(uuidString: text) else {
      throw corrupted("Attempted to decode UUID from invalid UUID string.")
    }
    return uuid
  }

  func unboxURL() throws -> URL {
    let text = try unboxString()
    guard let url = URL(string: text) else { throw corrupted("Invalid URL string.") }
    return url
  }
}
