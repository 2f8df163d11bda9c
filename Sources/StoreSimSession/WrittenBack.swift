import Foundation
import StoreSim

/// A `Codable` value read only when it is what `JSONEncoder` writes for it: decoded as
/// `JSONDecoder` decodes it, encoded again, and the two documents compared (`sameAsWritten`).
/// A duplicate key, a key the type does not know (a misspelt optional one included), `null` for
/// an optional (the encoder leaves the key out), or a UUID, URL, number or date written otherwise
/// than the encoder writes it is refused; whitespace, string escapes, the order of an object's
/// members and how a number's value is spelt (`3` or `3.0`) are not compared.
package enum WrittenBack {
  /// The value `node` decodes to, when `encoder` writes it back as the same document.
  package static func decode<T: Codable>(
    _ type: T.Type, from node: JSONNode, encoder: JSONEncoder, bounded: Bool
  )
    -> T?
  {
    guard let value = try? JSONNodeDecoder(bounded: bounded).decode(T.self, from: node),
      let bytes = try? encoder.encode(value),
      let again = try? JSONParser.parse(Array(bytes)),
      sameAsWritten(node.value, again.value)
    else { return nil }
    return value
  }

  /// Whether `read` is the document `written`, save for what JSON leaves open (see above).
  /// `read`'s keys must be unique; `written` (an encoder's) always has.
  static func sameAsWritten(_ read: JSONValue, _ written: JSONValue) -> Bool {
    switch (read, written) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.number(let a), .number(let b)):
      guard let x = JSONNodeDecoder.decimal(a), let y = JSONNodeDecoder.decimal(b) else { return false }
      return x == y
    case (.array(let a), .array(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { sameAsWritten($0.value, $1.value) }
    case (.object(let a), .object(let b)):
      guard a.count == b.count else { return false }
      var written: [String: JSONValue] = [:]
      for member in b { written[member.key] = member.value.value }
      var seen = Set<String>()
      for member in a {
        guard seen.insert(member.key).inserted, let value = written[member.key],
          sameAsWritten(member.value.value, value)
        else { return false }
      }
      return true
    default: return false
    }
  }
}
