import Foundation

/// Text from configuration files, ids and other input, made safe to print on a terminal:
/// control characters (escape sequences that retitle the terminal or clear the screen, a
/// newline that forges an output line) are shown escaped, as `\e`, `\n`, `\u{9B}`. JSON output
/// escapes them already.
enum TerminalText {
  /// Escapes every control character (C0, DEL and C1), newlines included: for one field or line.
  static func field(_ text: String) -> String {
    escape(text, keepingLineBreaks: false)
  }

  /// Escapes control characters but keeps newlines and tabs: for whole blocks of output.
  static func block(_ text: String) -> String {
    escape(text, keepingLineBreaks: true)
  }

  private static func escape(_ text: String, keepingLineBreaks: Bool) -> String {
    guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingLineBreaks && ($0 == "\n" || $0 == "\t")) })
    else {
      return text
    }
    var out = ""
    for scalar in text.unicodeScalars {
      guard isControl(scalar), !(keepingLineBreaks && (scalar == "\n" || scalar == "\t")) else {
        out.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{1B}": out += "\\e"
      default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return out
  }

  private static func isControl(_ s: Unicode.Scalar) -> Bool {
    s.value < 0x20 || (0x7F...0x9F).contains(s.value)
  }
}
