import Foundation
import StoreSimSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal of `storesim manage`: raw mode, the alternate screen, the window size, and the
/// signals that must leave the terminal as it was found (quit, ^C, ^Z and fg, a closed
/// terminal, SIGTERM, a crash) or redraw it (a resize, SIGCONT).
enum ManageTerminal {
  nonisolated(unsafe) private static var saved = termios()
  nonisolated(unsafe) private static var active: sig_atomic_t = 0
  /// `ESC[0m ESC[?25h ESC[?1049l`: attributes off, cursor shown, main screen back. A fixed
  /// buffer, so a signal handler can write it without allocating.
  nonisolated(unsafe) private static var leaveBytes:
    (
      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
      UInt8, UInt8
    ) = (
      0x1B, 0x5B, 0x30, 0x6D, 0x1B, 0x5B, 0x3F, 0x32, 0x35, 0x68, 0x1B, 0x5B, 0x3F, 0x31, 0x30, 0x34, 0x39, 0x6C
    )

  static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

  /// Raw mode (no echo, no line editing, no signal keys: ^C and ^Z arrive as keys), the
  /// alternate screen, the cursor hidden; the signal handlers that undo it.
  static func enter() {
    if active == 0 { tcgetattr(STDIN_FILENO, &saved) }
    var raw = saved
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    active = 1
    write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    installHandlers()
  }

  /// Puts the terminal back as `enter` found it.
  static func leave() {
    guard active != 0 else { return }
    restore()
    ProcessSignals.forgetTerminal()
  }

  /// Async-signal-safe: the terminal settings and screen back, nothing else.
  static func restore() {
    guard active != 0 else { return }
    active = 0
    tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    withUnsafeBytes(of: &leaveBytes) { _ = systemWrite(STDOUT_FILENO, $0.baseAddress!, $0.count) }
  }

  /// Stopping signals, ^Z from outside and crashes put the terminal back first; a resize and
  /// SIGCONT are noted (`resized`, `continued`).
  private static func installHandlers() {
    ProcessSignals.restoreTerminal(with: { ManageTerminal.restore() })
  }

  /// Whether the window was resized since the last call.
  static func resized() -> Bool { ProcessSignals.take(SIGWINCH) }
  /// Whether the process was continued (after ^Z and fg) since the last call.
  static func continued() -> Bool { ProcessSignals.take(SIGCONT) }

  /// ^Z: the terminal back, the process stopped; on `fg` raw mode and the screen return.
  static func suspend() {
    restore()
    signal(SIGTSTP, SIG_DFL)
    raise(SIGTSTP)
    enter()
  }

  /// Columns and lines of the terminal (80x24 when it does not say).
  static func size() -> (width: Int, height: Int) {
    var ws = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
      return (Int(ws.ws_col), Int(ws.ws_row))
    }
    return (80, 24)
  }

  /// Waits up to `milliseconds` for input. Returns the bytes read ([] on timeout or a
  /// signal), or nil when the terminal is gone (end of input or an error).
  static func readInput(timeout milliseconds: Int32) -> [UInt8]? {
    var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
    let ready = poll(&fds, 1, milliseconds)
    if ready < 0 { return errno == EINTR ? [] : nil }
    if ready == 0 { return [] }
    if fds[0].revents & Int16(POLLIN) == 0 && fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
      return nil
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = read(STDIN_FILENO, &buffer, buffer.count)
    if n < 0 { return errno == EINTR || errno == EAGAIN ? [] : nil }
    if n == 0 { return nil }
    var bytes = Array(buffer[0..<n])
    // An escape sequence split across reads: the rest follows at once, or it was the Esc key.
    if bytes.last == 0x1B, poll(&fds, 1, 30) > 0 {
      let m = read(STDIN_FILENO, &buffer, buffer.count)
      if m > 0 { bytes += buffer[0..<m] }
    }
    return bytes
  }

  static func write(_ text: String) {
    StandardStream.output.write(text)
  }
}

/// Turns frames into the bytes that change the screen: only lines that differ from the last
/// frame are written (a full redraw after a resize, ^L or fg).
struct ManageFrameWriter {
  var colour: Bool
  private var previous: [ManageLine] = []
  /// How many lines the last `update` wrote.
  private(set) var linesWritten = 0

  init(colour: Bool) { self.colour = colour }

  mutating func update(_ frame: [ManageLine], width: Int, full: Bool) -> String {
    var out = full ? "\u{1B}[0m\u{1B}[2J" : ""
    linesWritten = 0
    for (i, line) in frame.enumerated() where full || i >= previous.count || previous[i] != line {
      out += "\u{1B}[\(i + 1);1H" + start(line.style)
      let text = line.style == .bar || line.style == .selected ? ManageScreen.pad(line.text, width) : line.text
      // Erasing after a full line would erase its last character (the cursor waits there).
      out += text + "\u{1B}[0m" + (text.count < width ? "\u{1B}[K" : "")
      linesWritten += 1
    }
    previous = frame
    return out
  }

  private func start(_ style: ManageStyle) -> String {
    switch style {
    case .plain: return ""
    case .bar, .selected: return "\u{1B}[7m"
    case .heading: return colour ? "\u{1B}[1;36m" : "\u{1B}[1m"
    case .error: return colour ? "\u{1B}[31m" : "\u{1B}[1m"
    }
  }
}
