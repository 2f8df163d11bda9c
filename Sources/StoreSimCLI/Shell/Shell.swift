import Foundation
import StoreSim

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let shellCommand = CommandSpec(
  name: "shell", group: "Scripts and exploration",
  abstract: "An interactive prompt taking the same commands as scenarios",
  discussion: """
    Reads commands line by line (typed or piped), with the scenario grammar: every command,
    'expect ...', 'echo', plus 'help [command]', 'history' and 'exit'. The prompt shows the
    virtual date. On a terminal, Tab completes command names, options and product ids, and the
    up and down arrows walk the history. With a session file, every line loads it under its
    lock and saves its change under the same lock, so the shell and other storesim processes
    see and keep each other's changes; without one, start with 'init CONFIG' (in memory).
    Ctrl-C clears the line at the prompt and abandons a running command (the state before it
    is kept); Ctrl-D or 'exit' leaves. Piped input gives exactly the output of
    'storesim run --verbose' on the same lines.
    """,
  example: "printf 'init Configurations/AppleSample.storekit\\nbuy nonconsumable.car\\n' | storesim shell",
  run: { inv in
    _ = try inv.positionals(0...0, "")
    var shell = try Shell(inv)
    return try shell.run()
  })

/// The interactive shell: a scenario runner fed line by line, over the session file when there
/// is one.
struct Shell {
  let inv: Invocation
  let memory = MemorySession()
  /// The session file, when the shell started on one.
  var file: SessionFileClient?

  init(_ inv: Invocation) throws {
    self.inv = inv
    memory.isInteractive = true
    let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
    if FileManager.default.fileExists(atPath: location.file) {
      var client = SessionFileClient(location: location)
      memory.store = try client.withLock(inv, forWriting: false) { $0 }
      file = client
    }
  }

  mutating func run() throws -> ExitCode {
    let interactive = inv.environment.isTerminal
    if interactive {
      inv.out(
        "storesim \(storesimVersion) shell — 'help' lists commands, 'exit' leaves"
          + (file.map { "; session \($0.location.shown)" } ?? ""))
    }
    let runner = ScenarioRunner(environment: inv.environment, verbose: true)
    var history: [String] = []
    var number = 0
    var failed = false
    let memory = self.memory
    let table = inv.table
    let editor =
      interactive && LineEditor.isAvailable
      ? LineEditor { text in
        shellCompletions(text, table: table, productIDs: memory.store?.configuration.products.map(\.id) ?? [])
      }
      : nil
    Interrupt.installForShell()
    defer { Interrupt.restoreDefaults() }
    while true {
      inv.environment.flushOut()
      if StandardStream.output.failure != nil { break }
      let prompt = "storesim \(memory.store.map { ISO8601.string($0.now) } ?? "no session")> "
      let line: String?
      if let editor {
        line = editor.readLine(prompt: prompt)
      } else {
        if interactive { inv.environment.writeOut(prompt); inv.environment.flushOut() }
        line = inv.environment.readLine()
      }
      guard let raw = line else { break }
      number += 1
      let words: [String]
      do {
        words = try ScriptLineSplitter.split(raw)
      } catch {
        inv.err("<stdin>:\(number): syntax error: unterminated quote")
        continue
      }
      guard let first = words.first else { continue }
      history.append(raw)
      switch first {
      case "exit", "quit": return failed ? .failure : .success
      case "history":
        inv.out(history.enumerated().map { "\($0.offset + 1)  \($0.element)" }.joined(separator: "\n"))
        continue
      case "help" where interactive:
        _ = CLI.run(words, environment: inv.environment, memory: memory)
        continue
      default: break
      }
      let lines: [ScenarioLine]
      do {
        lines = try ScenarioRunner.parse(raw, file: "<stdin>", table: inv.table).map {
          var line = $0
          line.number = number
          return line
        }
      } catch let error as CLIError {
        inv.err(error.message.replacingOccurrences(of: "<stdin>:1:", with: "<stdin>:\(number):"))
        continue
      }
      do {
        if try !runLine(lines, runner: runner) { failed = true }
      } catch let error as CLIError {
        inv.err("error: \(error.message)")
        failed = true
      }
    }
    if interactive { inv.environment.writeOut("\n") }
    return failed ? .failure : .success
  }

  /// Runs one line: under the session file's lock when there is one (loading what other
  /// processes saved, saving what the line changed). Ctrl-C abandons the line. Returns false
  /// when an expectation or command failed.
  mutating func runLine(_ lines: [ScenarioLine], runner: ScenarioRunner) throws -> Bool {
    let memory = self.memory
    let inv = self.inv
    func attempt() -> Bool {
      let before = memory.store
      Interrupt.clear()
      let (failures, _) = runner.runLines(
        lines, file: "<stdin>", folder: inv.environment.currentDirectory, memory: memory)
      if Interrupt.requested {
        memory.store = before
        memory.lastError = nil
        memory.unexpectedError = nil
        inv.environment.discardOut()
        inv.err("interrupted: the command was abandoned; nothing changed")
        Interrupt.clear()
        return true
      }
      return failures.isEmpty
    }
    guard var client = file else { return attempt() }
    defer { file = client }
    var ok = true
    _ = try client.withLock(inv, forWriting: true) { store in
      memory.store = store
      ok = attempt()
      return memory.store ?? store
    }
    return ok
  }
}

/// A session file used by a long-lived client (the shell, the server): each use takes the
/// lock, reloads the file only when it changed since this client last saw it, and saves what
/// the use changed before letting go of the lock.
struct SessionFileClient {
  let location: SessionLocation
  private var document: SessionDocument?
  private var identity: FileIdentity?
  /// The store over `document.state`, kept so an unchanged file costs no rebuild of the
  /// store's indexes (the server answers thousands of requests from one load).
  private var store: Store?
  /// Changes whenever the store this client answers from changes (reloaded or saved), so
  /// answers computed from one generation can be reused until the next.
  private(set) var generation = 0
  /// Whether `document` was read without its notifications.
  private var partial = false

  init(location: SessionLocation) { self.location = location }

  /// Runs `body` on the current store under the lock; saves when it returns a different state.
  /// The store when the file is still the one this client last read (same device, inode, size
  /// and change time), without taking the lock: a session is only ever replaced whole by an
  /// atomic rename, so an unchanged file is exactly the state held in memory, and a change in
  /// progress under another process's lock is not yet part of the session. nil when the file
  /// changed or was never read (or was read without the notifications a use needs).
  mutating func storeIfUnchanged(needsNotifications: Bool) -> (Store, Int)? {
    guard let store, document != nil, !(partial && needsNotifications), identity == FileIdentity(location.file) else {
      return nil
    }
    return (store, generation)
  }

  /// A reader that never looks at notifications says `needsNotifications: false`: the
  /// notification outbox (most of a large session) is then not read until a use needs it.
  @discardableResult
  mutating func withLock(
    _ inv: Invocation, forWriting: Bool, needsNotifications: Bool = true, _ body: (Store) throws -> Store
  ) throws -> Store {
    let lock = try SessionLock(location, forWriting: forWriting)
    defer { withExtendedLifetime(lock) {} }
    if document == nil || identity != FileIdentity(location.file) || (partial && (forWriting || needsNotifications)) {
      let skip = !forWriting && !needsNotifications
      let (loaded, reloaded) = try SessionContext.load(inv, location, partial: skip)
      document = loaded
      // A reloaded configuration makes `load` read the whole file.
      partial = skip && !reloaded
      identity = FileIdentity(location.file)
      store = nil
      generation += 1
      if reloaded, forWriting { try save(loaded) }
    }
    let before = document!.state
    let current = store ?? Store(state: before)
    store = current
    let after = try body(current)
    if forWriting && after.state != before {
      var changed = document!
      changed.state = after.state
      try save(changed)
      store = after
    }
    return after
  }

  private mutating func save(_ changed: SessionDocument) throws {
    try AtomicFile.checkWritable(location)
    try SessionFile.write(changed, to: location)
    document = changed
    identity = FileIdentity(location.file)
    partial = false
    generation += 1
  }
}

/// What tells a file apart from its next version: device, inode, size and change time.
struct FileIdentity: Equatable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var seconds: Int
  var nanoseconds: Int

  init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    #if canImport(Darwin)
      seconds = info.st_ctimespec.tv_sec
      nanoseconds = info.st_ctimespec.tv_nsec
    #else
      seconds = info.st_ctim.tv_sec
      nanoseconds = info.st_ctim.tv_nsec
    #endif
  }
}

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
