/// The one writer of text into XML the CLI makes (the SVG timeline, the JUnit report, the HTML
/// report page), for element content and attribute values alike:
/// - the characters `DisplaySafety` names (C0 and C1 controls, bidirectional and zero-width
///   characters, the line and paragraph separators) are shown as the terminal shows them
///   (`\e`, `\r`, `\u{202E}`, by `TerminalText`), except a newline and a tab, which XML allows
///   and a multi-line message keeps;
/// - what XML 1.0 forbids that is left (U+FFFE and U+FFFF) and the other non-characters
///   (U+FDD0–U+FDEF, the last two of every plane) become U+FFFD;
/// - markup is escaped (`&`, `<`, `>`, `"`; attributes are written in double quotes).
/// So every output is well-formed XML, whatever a name or a file holds (a test parses the
/// result for every scalar of U+0000–U+FFFF).
enum XMLText {
  static func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in TerminalText.block(text).unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case _ where isNonCharacter(scalar): out.unicodeScalars.append("\u{FFFD}")
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Unicode's non-characters: U+FDD0–U+FDEF and U+nFFFE, U+nFFFF of every plane.
  static func isNonCharacter(_ scalar: Unicode.Scalar) -> Bool {
    (0xFDD0...0xFDEF).contains(scalar.value) || scalar.value & 0xFFFE == 0xFFFE
  }
}
