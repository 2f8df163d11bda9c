import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A minimal terminal line editor for the shell: typing, backspace, Tab completion, and
/// history with the up and down arrows. Used only when standard input is a terminal.
final class LineEditor {
  private var history: [String] = []
  private let complete: (String) -> [String]

  init(complete: @escaping (String) -> [String]) {
    self.complete = complete
  }

  static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

  private func write(_ s: String) { StandardStream.output.write(s) }

  /// The terminal's settings while a line is read in raw mode (nil otherwise), for the signal
  /// handlers that must put it back.
  nonisolated(unsafe) private static var saved = termios()
  nonisolated(unsafe) private static var isRaw: sig_atomic_t = 0

  /// Async-signal-safe: restores the terminal when a line is being read.
  static func restoreTerminal() {
    if isRaw != 0 { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
  }

  private func readByte() -> UInt8? {
    var byte: UInt8 = 0
    while true {
      let n = read(STDIN_FILENO, &byte, 1)
      if n == 1 { return byte }
      if n < 0 && errno == EINTR { continue }
      return nil
    }
  }

  /// Reads a line; nil at end of input (Ctrl-D on an empty line).
  func readLine(prompt: String) -> String? {
    var original = termios()
    tcgetattr(STDIN_FILENO, &original)
    var raw = original
    // No ISIG: Ctrl-C arrives as a byte and clears the line instead of ending the shell.
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
    Self.saved = original
    Self.isRaw = 1
    tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    defer {
      tcsetattr(STDIN_FILENO, TCSANOW, &original)
      Self.isRaw = 0
    }
    var buffer: [Character] = []
    var historyIndex = history.count
    func redraw() { write("\r\u{1B}[K" + prompt + String(buffer)) }
    write(prompt)
    while let byte = readByte() {
      switch byte {
      case 10, 13:
        write("\n")
        let line = String(buffer)
        if !line.trimmingCharacters(in: .whitespaces).isEmpty { history.append(line) }
        return line
      case 4:
        if buffer.isEmpty { return nil }
      case 3:
        buffer = []
        write("^C\n" + prompt)
      case 127, 8:
        if !buffer.isEmpty { buffer.removeLast(); redraw() }
      case 9:
        let text = String(buffer)
        let options = complete(text)
        if options.count == 1 {
          let prefix = text.split(separator: " ", omittingEmptySubsequences: false).dropLast().joined(separator: " ")
          buffer = Array((prefix.isEmpty ? "" : prefix + " ") + options[0] + " ")
          redraw()
        } else if options.count > 1 {
          let common = options.dropFirst().reduce(options[0]) { a, b in String(zip(a, b).prefix { $0 == $1 }.map(\.0)) }
          let prefix = text.split(separator: " ", omittingEmptySubsequences: false).dropLast().joined(separator: " ")
          let word = String(text.split(separator: " ", omittingEmptySubsequences: false).last ?? "")
          if common.count > word.count { buffer = Array((prefix.isEmpty ? "" : prefix + " ") + common) }
          write("\n" + options.joined(separator: "  ") + "\n")
          redraw()
        }
      case 27:
        guard readByte() == 91, let code = readByte() else { continue }
        if code == 65, historyIndex > 0 { historyIndex -= 1; buffer = Array(history[historyIndex]); redraw() }
        if code == 66, historyIndex < history.count {
          historyIndex += 1
          buffer = historyIndex == history.count ? [] : Array(history[historyIndex])
          redraw()
        }
      default:
        if byte >= 32 {
          var bytes = [byte]
          if byte >= 0xC0 {
            let extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : 1
            for _ in 0..<extra { if let b = readByte() { bytes.append(b) } }
          }
          buffer.append(contentsOf: String(decoding: bytes, as: UTF8.self))
          write(String(decoding: bytes, as: UTF8.self))
        }
      }
    }
    return nil
  }
}

/// What Tab completes: a command name for the first word, then product ids, options of the
/// command, or `expect` forms.
func shellCompletions(_ text: String, table: CommandTable, productIDs: [String]) -> [String] {
  let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
  let current = words.last ?? ""
  if words.count <= 1 {
    return (table.names + ["expect", "echo", "help", "history", "exit"]).filter { $0.hasPrefix(current) }.sorted()
  }
  if words[0] == "expect" && words.count == 2 {
    return Expectation.Kind.allCases.map(\.name).filter { $0.hasPrefix(current) }
  }
  if current.hasPrefix("--"), let spec = table.spec(named: words[0]) {
    return (spec.options + globalOptions).map { "--" + $0.name }.filter { $0.hasPrefix(current) }
  }
  if words[0] == "help" { return (table.names + ScenarioOnlyHelp.names).filter { $0.hasPrefix(current) } }
  if words[0] == "settings" && words.count == 2 {
    return SettingKey.allCases.map(\.rawValue).filter { $0.hasPrefix(current) }
  }
  return productIDs.filter { $0.hasPrefix(current) }.sorted()
}
