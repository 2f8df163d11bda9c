import Foundation
import StoreSim

/// Text from configuration files, ids and other input, made safe to print on a terminal:
/// control characters (escape sequences that retitle the terminal or clear the screen, a
/// newline that forges an output line) are shown escaped, as `\e`, `\n`, `\u{9B}`. JSON output
/// escapes them already.
enum TerminalText {
  /// The one escaping function for text that reaches a terminal (CLI output, errors that echo
  /// input, every line `manage` draws): each character `isControl` names is shown as a
  /// visible escape (`\e`, `\r`, `\u{202E}`), so no name can move the cursor, retitle the
  /// terminal, write the clipboard, reorder a row or hide a column. Ordinary text is unchanged.
  ///
  /// Escapes every such character, newlines included: for one field or line.
  static func field(_ text: String) -> String {
    escape(text, keepingLineBreaks: false)
  }

  /// Escapes the same characters but keeps newlines and tabs: for whole blocks of output.
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

  /// What must not reach a terminal raw: `DisplaySafety.mustEscape` (controls, bidirectional
  /// controls, zero-width characters, line and paragraph separators).
  static func isControl(_ s: Unicode.Scalar) -> Bool { DisplaySafety.mustEscape(s) }
}
