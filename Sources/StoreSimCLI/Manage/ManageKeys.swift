import Foundation

/// One key press of `storesim manage`, decoded from the bytes a terminal sends.
enum ManageKey: Equatable, Sendable {
  /// A printable character (letters, digits, punctuation, space).
  case character(Character)
  case up, down, left, right, home, end, pageUp, pageDown
  case enter, escape, tab, backTab, backspace
  /// Ctrl and a letter (`control("c")` for Ctrl-C), except those named above (Tab is Ctrl-I,
  /// Enter Ctrl-M).
  case control(Character)
}

/// Turns terminal input bytes into keys: ASCII and UTF-8 characters, control keys, and the
/// CSI / SS3 sequences of arrows, Home/End and Page Up/Down. A lone ESC (no sequence following
/// in the same read) is the Escape key.
struct ManageKeyDecoder {
  private var pending: [UInt8] = []

  /// Decodes what one read returned (with anything left over from an incomplete UTF-8
  /// character of the previous read).
  mutating func decode(_ bytes: [UInt8]) -> [ManageKey] {
    var input = pending + bytes
    pending = []
    var keys: [ManageKey] = []
    var i = 0
    while i < input.count {
      let byte = input[i]
      if byte == 0x1B {
        let (key, used) = Self.escapeSequence(input, from: i)
        keys.append(key)
        i += used
        continue
      }
      if byte >= 0x80 {
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
        if i + length > input.count {
          pending = Array(input[i...])
          break
        }
        let text = String(decoding: input[i..<(i + length)], as: UTF8.self)
        if let ch = text.first, length > 1 { keys.append(.character(ch)) }
        i += length
        continue
      }
      keys.append(Self.plain(byte))
      i += 1
    }
    input.removeAll()
    return keys
  }

  private static func plain(_ byte: UInt8) -> ManageKey {
    switch byte {
    case 13, 10: return .enter
    case 9: return .tab
    case 127, 8: return .backspace
    case 0..<32: return .control(Character(UnicodeScalar(byte + 96)))
    default: return .character(Character(UnicodeScalar(byte)))
    }
  }

  /// ESC, or a CSI (`ESC [`) or SS3 (`ESC O`) sequence starting at `start`; returns the key
  /// and the bytes used. Unknown sequences are swallowed whole and read as Escape.
  private static func escapeSequence(_ input: [UInt8], from start: Int) -> (ManageKey, Int) {
    guard start + 1 < input.count else { return (.escape, 1) }
    let introducer = input[start + 1]
    if introducer == UInt8(ascii: "O"), start + 2 < input.count {
      let final = input[start + 2]
      return (finalKey(final, parameter: nil) ?? .escape, 3)
    }
    guard introducer == UInt8(ascii: "[") else { return (.escape, 1) }
    var j = start + 2
    var parameter = ""
    while j < input.count, (0x30...0x3F).contains(input[j]) {
      parameter.append(Character(UnicodeScalar(input[j])))
      j += 1
    }
    while j < input.count, (0x20...0x2F).contains(input[j]) { j += 1 }
    guard j < input.count else { return (.escape, input.count - start) }
    let final = input[j]
    let used = j - start + 1
    if final == UInt8(ascii: "~") {
      switch parameter.split(separator: ";").first {
      case "1", "7": return (.home, used)
      case "4", "8": return (.end, used)
      case "5": return (.pageUp, used)
      case "6": return (.pageDown, used)
      default: return (.escape, used)
      }
    }
    return (finalKey(final, parameter: parameter) ?? .escape, used)
  }

  private static func finalKey(_ final: UInt8, parameter: String?) -> ManageKey? {
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return .right
    case UInt8(ascii: "D"): return .left
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    case UInt8(ascii: "Z"): return .backTab
    default: return nil
    }
  }
}

extension ManageKey {
  /// Keys written the way tests and the key table spell them: `j`, `Enter`, `^C`, `PgDn`.
  static func parse(_ text: String) -> ManageKey? {
    switch text {
    case "Up": return .up
    case "Down": return .down
    case "Left": return .left
    case "Right": return .right
    case "Home": return .home
    case "End": return .end
    case "PgUp": return .pageUp
    case "PgDn": return .pageDown
    case "Enter": return .enter
    case "Esc": return .escape
    case "Tab": return .tab
    case "S-Tab": return .backTab
    case "BSpace": return .backspace
    case "Space": return .character(" ")
    default:
      if text.count == 2, text.hasPrefix("^"), let c = text.last { return .control(Character(c.lowercased())) }
      if text.count == 1, let c = text.first { return .character(c) }
      return nil
    }
  }
}
