/// The one writer of JSON strings: the session file's state and header and every JSON value
/// storesim prints or signs (`JSONOutput`) write their strings here. What is escaped besides
/// what JSON requires (`"`, `\` and the controls U+0000-U+001F) is the caller's `Escaping`.
package enum JSONString {
  /// Which characters are escaped.
  package enum Escaping: Sendable {
    /// Only what JSON requires, controls as `\u00xx` (a session's state: the fewest bytes).
    case required
    /// As `JSONSerialization` writes: also `/` as `\/`, and `\b`, `\f`, `\n`, `\r`, `\t` (a
    /// session's header line, whose bytes older versions wrote with it).
    case likeJSONSerialization
    /// Also every character `DisplaySafety` keeps from a terminal, as `\uXXXX`, with `\n`, `\r`
    /// and `\t` short (what storesim prints or signs: safe to show, still valid JSON).
    case displaySafe
  }

  /// Appends `s` quoted and escaped to `out`.
  package static func write(_ s: String, escaping: Escaping, into out: inout [UInt8]) {
    out.append(quote)
    if isPlain(s, escaping) {
      out.append(contentsOf: s.utf8)
      out.append(quote)
      return
    }
    for scalar in s.unicodeScalars {
      let v = scalar.value
      switch v {
      case 0x22, 0x5C: out.append(contentsOf: [backslash, UInt8(v)])
      case 0x2F where escaping == .likeJSONSerialization: out.append(contentsOf: [backslash, slash])
      case 0x0A where escaping != .required: out.append(contentsOf: [backslash, UInt8(ascii: "n")])
      case 0x0D where escaping != .required: out.append(contentsOf: [backslash, UInt8(ascii: "r")])
      case 0x09 where escaping != .required: out.append(contentsOf: [backslash, UInt8(ascii: "t")])
      case 0x08 where escaping == .likeJSONSerialization: out.append(contentsOf: [backslash, UInt8(ascii: "b")])
      case 0x0C where escaping == .likeJSONSerialization: out.append(contentsOf: [backslash, UInt8(ascii: "f")])
      case 0..<0x20: unicodeEscape(v, into: &out)
      default:
        if escaping == .displaySafe && DisplaySafety.mustEscape(scalar) {
          unicodeEscape(v, into: &out)
        } else {
          UTF8.encode(scalar) { out.append($0) }
        }
      }
    }
    out.append(quote)
  }

  /// Appends `s` quoted and escaped to `out`.
  package static func write(_ s: String, escaping: Escaping, into out: inout String) {
    if isPlain(s, escaping) {
      out += "\""
      out += s
      out += "\""
      return
    }
    var bytes: [UInt8] = []
    write(s, escaping: escaping, into: &bytes)
    out += String(decoding: bytes, as: UTF8.self)
  }

  /// Whether `s` is written as it is: most strings are (ASCII only: past it are the C1,
  /// bidirectional and zero-width characters `displaySafe` escapes).
  private static func isPlain(_ s: String, _ escaping: Escaping) -> Bool {
    let slashIsPlain = escaping != .likeJSONSerialization
    return s.utf8.allSatisfy {
      $0 >= 0x20 && $0 < 0x80 && $0 != quote && $0 != backslash && ($0 != slash || slashIsPlain)
    }
  }

  /// `\uxxxx` (lower-case hex) for a character of the Basic Multilingual Plane.
  private static func unicodeEscape(_ v: UInt32, into out: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    out.append(contentsOf: [backslash, UInt8(ascii: "u")])
    for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((v >> UInt32(shift)) & 0xF)]) }
  }

  private static let quote = UInt8(ascii: "\"")
  private static let backslash = UInt8(ascii: "\\")
  private static let slash = UInt8(ascii: "/")
}
