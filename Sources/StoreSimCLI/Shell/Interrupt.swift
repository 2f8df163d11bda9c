import Foundation
import StoreSim

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ctrl-C in the shell: a flag the running command polls, instead of the default that ends the
/// process. SIGTERM and SIGHUP restore the terminal before ending it.
enum Interrupt {
  nonisolated(unsafe) static var flag: sig_atomic_t = 0

  static var requested: Bool { flag != 0 }
  static func clear() { flag = 0 }

  static func installForShell() {
    signal(SIGINT) { _ in Interrupt.flag = 1 }
    signal(SIGTERM) { code in Interrupt.restoreTerminalAndDie(code) }
    signal(SIGHUP) { code in Interrupt.restoreTerminalAndDie(code) }
  }

  static func restoreDefaults() {
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
    signal(SIGHUP, SIG_DFL)
  }

  /// Async-signal-safe: puts the terminal back as it was and ends the process by the signal.
  static func restoreTerminalAndDie(_ code: Int32) {
    LineEditor.restoreTerminal()
    signal(code, SIG_DFL)
    raise(code)
  }
}
