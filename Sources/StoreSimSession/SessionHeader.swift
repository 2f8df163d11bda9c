import Foundation
import StoreSim

/// The fields of a session file's header line (line 1), read with the core's `JSONParser`
/// and written with sorted keys, as earlier storesim versions read and wrote them with
/// `JSONSerialization`: trailing commas are read, the last of duplicate keys wins, an integral number (`3`, `3.0`) or a
/// boolean (`1`, `0`) reads as an integer, and a number no `Double` holds makes the line
/// unreadable.
package struct HeaderFields {
  /// A header value as written: a string or an integer.
  package enum Value: Equatable {
    case string(String)
    case int(Int)
  }

  private var values: [String: JSONValue] = [:]

  /// The fields of a header line; nil when it is not a JSON object.
  package init?(_ bytes: some Collection<UInt8>) {
    guard let node = try? JSONParser.parse(bytes, allowingTrailingCommas: true), case .object(let members) = node.value,
      Self.isReadable(node.value)
    else { return nil }
    for member in members { values[member.key] = member.value.value }
  }

  /// Whether every number in `value` is one a `Double` holds.
  private static func isReadable(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let text): return Double(text)?.isFinite ?? false
    case .array(let elements): return elements.allSatisfy { isReadable($0.value) }
    case .object(let members): return members.allSatisfy { isReadable($0.value.value) }
    case .null, .bool, .string: return true
    }
  }

  /// How many different keys.
  package var count: Int { values.count }

  package func contains(_ key: String) -> Bool { values[key] != nil }

  /// The string `key` holds; nil when absent or not a string.
  package func string(_ key: String) -> String? {
    guard case .string(let s)? = values[key] else { return nil }
    return s
  }

  /// The integer `key` holds; nil when absent, fractional, too large or not a number.
  package func int(_ key: String) -> Int? {
    switch values[key] {
    case .number(let text)?:
      if let n = Int(text) { return n }
      if text.utf8.allSatisfy({ JSONScanner.isDigit($0) || $0 == UInt8(ascii: "-") }) { return nil }
      return Double(text).flatMap { Int(exactly: $0) }
    case .bool(let b)?: return b ? 1 : 0
    default: return nil
    }
  }

  /// The header line (without its newline): keys sorted, strings escaped as `JSONSerialization`
  /// escapes them (`/` as `\/`).
  package static func encode(_ fields: [String: Value]) -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "{")]
    for (n, key) in fields.keys.sorted().enumerated() {
      if n > 0 { out.append(UInt8(ascii: ",")) }
      string(key, into: &out)
      out.append(UInt8(ascii: ":"))
      switch fields[key]! {
      case .string(let s): string(s, into: &out)
      case .int(let v): out.append(contentsOf: String(v).utf8)
      }
    }
    out.append(UInt8(ascii: "}"))
    return out
  }

  private static func string(_ s: String, into out: inout [UInt8]) {
    JSONString.write(s, escaping: .likeJSONSerialization, into: &out)
  }
}
