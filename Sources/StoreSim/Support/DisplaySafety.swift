/// The one list of characters that must never reach a terminal raw, shared by the CLI's
/// `TerminalText` (which shows them as visible escapes) and `JSONOutput` (which writes them as
/// `\uXXXX`, so JSON printed to a terminal is safe and stays valid JSON).
package enum DisplaySafety {
  /// C0 controls (ESC, so CSI and OSC, included), DEL and C1 controls; bidirectional controls
  /// (U+061C, U+200E, U+200F, U+202A–202E, U+2066–2069), which reorder what follows them;
  /// zero-width characters (U+200B–200D, U+2060, U+FEFF), which hide text or shift columns; and
  /// the line and paragraph separators (U+2028, U+2029).
  package static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F: return true
    case 0x061C, 0x200B...0x200F, 0x2028...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF: return true
    default: return false
    }
  }
}
