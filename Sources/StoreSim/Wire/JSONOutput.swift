import Foundation

/// A JSON value storesim writes: our output is strict, with sorted keys and exact numbers.
public indirect enum JSONOutput: Sendable, Equatable {
  /// `null`.
  case null
  /// `true` / `false`.
  case bool(Bool)
  /// An integer.
  case int(Int64)
  /// A number written exactly as given (decimals).
  case number(String)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONOutput])
  /// An object; keys are written sorted.
  case object([String: JSONOutput])

  /// A decimal as a JSON number.
  public static func decimal(_ value: Decimal) -> JSONOutput {
    .number(NSDecimalNumber(decimal: value).stringValue)
  }

  /// Builds an object, dropping nil values (absent values are omitted, as Apple's JSON does).
  public static func object(_ pairs: KeyValuePairs<String, JSONOutput?>) -> JSONOutput {
    var dict: [String: JSONOutput] = [:]
    for (k, v) in pairs { if let v { dict[k] = v } }
    return .object(dict)
  }

  /// The member `key` of an object.
  public subscript(key: String) -> JSONOutput? {
    if case .object(let d) = self { return d[key] }
    return nil
  }

  /// Compact or indented text.
  public func rendered(pretty: Bool = true) -> String {
    rendered(pretty: pretty, indent: 0)
  }

  /// Indented text for a value nested `indent` levels deep in a document written piece by piece.
  public func rendered(pretty: Bool, indent: Int) -> String {
    var out = ""
    write(into: &out, pretty: pretty, indent: indent)
    return out
  }

  private func write(into out: inout String, pretty: Bool, indent: Int) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .int(let i): out += String(i)
    case .number(let n): out += n
    case .string(let s): JSONOutput.escape(s, into: &out)
    case .array(let items):
      if items.isEmpty {
        out += "[]"
        return
      }
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
        item.write(into: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { out += "\n" + String(repeating: "  ", count: indent) }
      out += "]"
    case .object(let dict):
      if dict.isEmpty {
        out += "{}"
        return
      }
      out += "{"
      for (i, key) in dict.keys.sorted().enumerated() {
        if i > 0 { out += "," }
        if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
        JSONOutput.escape(key, into: &out)
        out += pretty ? ": " : ":"
        dict[key]!.write(into: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { out += "\n" + String(repeating: "  ", count: indent) }
      out += "}"
    }
  }

  static func escape(_ s: String, into out: inout String) {
    JSONString.write(s, escaping: .displaySafe, into: &out)
  }
}
