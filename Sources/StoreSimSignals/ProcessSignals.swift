import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one owner of the process's signal handlers. Front ends register what a signal means
/// while they run; this type installs the handlers and decides, in one place, what each signal
/// does:
///
/// - SIGINT, SIGTERM, SIGHUP and SIGQUIT (Ctrl-\) stop the process. During a save (`hold`) the
///   signal is noted and acted on once the save is done. While a server runs (`serving`) it
///   wakes the server, which stops cleanly. While the shell catches interrupts, SIGINT only sets
///   `interrupted`. Otherwise the terminal is restored (when a front end registered a restorer)
///   and the process ends by the signal, SIGQUIT as SIGTERM: no core file, no crash report.
/// - Other signals a front end asks for: noted (`note`, read back by `take`), a suspension
///   that restores the terminal first (`suspendRestoringTerminal`), or a crash that restores it
///   before the default action (`restoreTerminalOnCrash`).
///
/// Handlers only store integers, write one byte to a pipe, call the registered restorer (itself
/// async-signal-safe) and re-raise.
package enum ProcessSignals {
  /// The signals that stop the process.
  package static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  #if canImport(Darwin)
    package typealias Handler = sig_t
  #else
    package typealias Handler = sighandler_t
  #endif

  /// Who needs the stopping handlers installed (the process's front end, and each save under
  /// way), and the handlers they replaced; restored when nobody needs them.
  package struct Registry {
    package var users = 0
    package var saves = 0
    /// The wake descriptors of the servers running, oldest first; the newest is `wakeFD`.
    var wakes: [Int32] = []
    var terminal = false
    var previous: [Int32: Handler?] = [:]
  }
  package static let registry = Mutex(Registry())

  /// What the stopping handler reads (set before it can run, or atomically as one integer).
  nonisolated(unsafe) static var saving: sig_atomic_t = 0
  nonisolated(unsafe) static var held: sig_atomic_t = 0
  nonisolated(unsafe) static var wakeFD: Int32 = -1
  nonisolated(unsafe) static var catchesInterrupts: sig_atomic_t = 0
  nonisolated(unsafe) static var restorer: (@convention(c) () -> Void)?
  /// Counts by signal number, for `note` and `take`.
  nonisolated(unsafe) static let notes = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 65)
  /// SIGINT while the shell catches interrupts.
  nonisolated(unsafe) package static var interrupted: sig_atomic_t = 0

  /// The process's front end (`storesim`'s main) takes the stopping signals for its whole
  /// life: SIGQUIT (Ctrl-\) ends every command as SIGTERM does, after the save under way. A
  /// closed pipe (SIGPIPE) and a file-size limit (SIGXFSZ) become errors the CLI reports
  /// (exit 74), not signals that kill it mid-save.
  package static func start() {
    signal(SIGPIPE, SIG_IGN)
    signal(SIGXFSZ, SIG_IGN)
    registry.withLock { r in use(&r) }
  }

  /// A save begins: stopping signals are held until `release`.
  package static func hold() {
    registry.withLock { r in
      r.saves += 1
      if r.saves == 1 {
        held = 0
        saving = 1
      }
      use(&r)
    }
  }

  /// A save is done: a signal held since the last `hold` is sent again to the process (to the
  /// process, so a thread that does not block it takes it).
  package static func release() {
    let code: sig_atomic_t = registry.withLock { r in
      r.saves -= 1
      defer { unuse(&r) }
      guard r.saves == 0 else { return 0 }
      saving = 0
      defer { held = 0 }
      return held
    }
    if code != 0 { resend(code) }
  }

  /// Sends `code` to the process (not to this thread, which may block it).
  package static func resend(_ code: Int32) { kill(getpid(), code) }

  /// Runs `body` (a server) with stopping signals writing one byte to `wake` instead of ending
  /// the process. With several servers running, the newest is woken; when it ends, the newest
  /// of those still running is, whatever order they end in (never a server that has ended,
  /// whose descriptor may be closed and its number reused).
  package static func serving<T>(wake: Int32, _ body: () throws -> T) rethrows -> T {
    registry.withLock { r in
      use(&r)
      r.wakes.append(wake)
      wakeFD = wake
    }
    defer {
      registry.withLock { r in
        if let i = r.wakes.lastIndex(of: wake) { r.wakes.remove(at: i) }
        wakeFD = r.wakes.last ?? -1
        unuse(&r)
      }
    }
    return try body()
  }

  /// Runs `body` (the shell) with SIGINT setting `interrupted` and the other stopping signals
  /// restoring the terminal with `restore` before they end the process.
  package static func catchingInterrupts<T>(
    restoring restore: @escaping @convention(c) () -> Void, _ body: () throws -> T
  ) rethrows -> T {
    registry.withLock { r in use(&r) }
    let before = restorer
    restorer = restore
    catchesInterrupts += 1
    defer {
      catchesInterrupts -= 1
      restorer = before
      registry.withLock { r in unuse(&r) }
    }
    return try body()
  }

  /// From now until `forgetTerminal`, the stopping signals, a suspension (SIGTSTP) and a crash
  /// restore the terminal with `restore` first; SIGWINCH and SIGCONT are noted.
  package static func restoreTerminal(with restore: @escaping @convention(c) () -> Void) {
    registry.withLock { r in
      guard !r.terminal else { return }
      r.terminal = true
      use(&r)
    }
    restorer = restore
    signal(SIGTSTP, suspendHandler)
    for s in [SIGWINCH, SIGCONT] { signal(s, noteHandler) }
    for s in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] { signal(s, crashHandler) }
  }

  /// Undoes `restoreTerminal`.
  package static func forgetTerminal() {
    restorer = nil
    for s in [SIGTSTP, SIGWINCH, SIGCONT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] { signal(s, SIG_DFL) }
    registry.withLock { r in
      guard r.terminal else { return }
      r.terminal = false
      unuse(&r)
    }
  }

  /// Whether `code` arrived since the last `take` of it.
  package static func take(_ code: Int32) -> Bool {
    guard notes[Int(code)] != 0 else { return false }
    notes[Int(code)] = 0
    return true
  }

  /// Threads other than the one that runs a server's first loop leave the stopping signals to it.
  package static func blockStopping() {
    var set = sigset_t()
    sigemptyset(&set)
    for s in stopping { sigaddset(&set, s) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// What a stopping signal does now (the handler's decision, in one place).
  static func stop(_ code: Int32) {
    if saving != 0 {
      held = code
      return
    }
    if code == SIGINT && catchesInterrupts > 0 {
      interrupted = 1
      return
    }
    if wakeFD >= 0 {
      var byte: UInt8 = 1
      _ = write(wakeFD, &byte, 1)
      return
    }
    restorer?()
    let ending = code == SIGQUIT ? SIGTERM : code
    signal(ending, SIG_DFL)
    kill(getpid(), ending)
  }

  private static func use(_ r: inout Registry) {
    r.users += 1
    guard r.users == 1 else { return }
    for i in 0..<65 { notes[i] = 0 }
    // Initialised here, never first in a handler.
    _ = (saving, held, wakeFD, catchesInterrupts, restorer, interrupted)
    for s in stopping { r.previous[s] = signal(s, stopHandler) }
  }

  private static func unuse(_ r: inout Registry) {
    r.users -= 1
    guard r.users == 0 else { return }
    for s in stopping {
      if let handler = r.previous[s] { signal(s, handler) }
    }
    r.previous = [:]
  }
}

private func stopHandler(_ code: Int32) { ProcessSignals.stop(code) }

private func noteHandler(_ code: Int32) {
  if code >= 0 && code < 65 { ProcessSignals.notes[Int(code)] = 1 }
}

/// Stopped from outside (kill -TSTP): the terminal back, then stopped for real once the handler
/// returns.
private func suspendHandler(_ code: Int32) {
  ProcessSignals.restorer?()
  signal(SIGTSTP, SIG_DFL)
  raise(SIGTSTP)
}

private func crashHandler(_ code: Int32) {
  ProcessSignals.restorer?()
  signal(code, SIG_DFL)
  raise(code)
}
