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
    withRawTerminal {
      var line = Line(prompt: prompt, historyIndex: history.count)
      write(prompt)
      while let byte = readByte() {
        switch byte {
        case 10, 13:
          write("\n")
          let text = String(line.buffer)
          if !text.trimmingCharacters(in: .whitespaces).isEmpty { history.append(text) }
          return text
        case 4:
          if line.buffer.isEmpty { return nil }
        case 3:
          line.buffer = []
          write("^C\n" + prompt)
        case 127, 8:
          if !line.buffer.isEmpty { line.buffer.removeLast(); redraw(line) }
        case 9: completeWord(&line)
        case 27:
          guard readByte() == 91, let code = readByte() else { continue }
          walkHistory(&line, arrow: code)
        default:
          if byte >= 32 { typeCharacter(byte, into: &line) }
        }
      }
      return nil
    }
  }

  /// The line being edited.
  private struct Line {
    let prompt: String
    var historyIndex: Int
    var buffer: [Character] = []

    init(prompt: String, historyIndex: Int) {
      self.prompt = prompt
      self.historyIndex = historyIndex
    }
  }

  /// Runs `body` with the terminal in raw mode (no echo, no line buffering, no signals: Ctrl-C
  /// arrives as a byte and clears the line instead of ending the shell), then puts it back.
  private func withRawTerminal<T>(_ body: () -> T) -> T {
    var original = termios()
    tcgetattr(STDIN_FILENO, &original)
    var raw = original
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
    Self.saved = original
    Self.isRaw = 1
    tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    defer {
      tcsetattr(STDIN_FILENO, TCSANOW, &original)
      Self.isRaw = 0
    }
    return body()
  }

  private func redraw(_ line: Line) { write("\r\u{1B}[K" + line.prompt + String(line.buffer)) }

  /// Tab: one completion replaces the last word; several extend it by their common prefix and are listed.
  private func completeWord(_ line: inout Line) {
    let text = String(line.buffer)
    let options = complete(text)
    guard !options.isEmpty else { return }
    let words = text.split(separator: " ", omittingEmptySubsequences: false)
    let prefix = words.dropLast().joined(separator: " ")
    let lead = prefix.isEmpty ? "" : prefix + " "
    if options.count == 1 {
      line.buffer = Array(lead + options[0] + " ")
    } else {
      let common = options.dropFirst().reduce(options[0]) { a, b in String(zip(a, b).prefix { $0 == $1 }.map(\.0)) }
      let word = String(words.last ?? "")
      if common.count > word.count { line.buffer = Array(lead + common) }
      write("\n" + options.joined(separator: "  ") + "\n")
    }
    redraw(line)
  }

  /// Up (`ESC [ A`) and down (`ESC [ B`) arrows.
  private func walkHistory(_ line: inout Line, arrow code: UInt8) {
    if code == 65, line.historyIndex > 0 {
      line.historyIndex -= 1
      line.buffer = Array(history[line.historyIndex])
      redraw(line)
    }
    if code == 66, line.historyIndex < history.count {
      line.historyIndex += 1
      line.buffer = line.historyIndex == history.count ? [] : Array(history[line.historyIndex])
      redraw(line)
    }
  }

  /// A printable character, with the continuation bytes of its UTF-8 sequence.
  private func typeCharacter(_ byte: UInt8, into line: inout Line) {
    var bytes = [byte]
    if byte >= 0xC0 {
      let extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : 1
      for _ in 0..<extra { if let b = readByte() { bytes.append(b) } }
    }
    line.buffer.append(contentsOf: String(decoding: bytes, as: UTF8.self))
    write(String(decoding: bytes, as: UTF8.self))
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
