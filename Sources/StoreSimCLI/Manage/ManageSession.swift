import Foundation
import StoreSim
import StoreSimSession
import StoreSimSync

/// The session file as the manager sees it. Reading goes through the session's unit of work,
/// keeping the store between reads (`KeptSession`: the lock, the reload of an edited
/// configuration); every change is a
/// storesim command line run through `CLI.run`, so it takes the same lock, makes the same
/// engine call and saves atomically exactly as the command would from a shell. This file is
/// the manager's only contact with the session internals.
final class ManageSession {
  /// The session path as the user gave it.
  let shown: String
  private var client: KeptSession
  private let inv: Invocation
  private let environment: CLIEnvironment
  private let warnings = CapturedText()

  init(_ inv: Invocation) throws {
    shown = SessionContext.path(inv)
    client = KeptSession(location: try SessionLocation(shown: shown, environment: inv.environment))
    environment = inv.environment
    var quiet = inv
    // Warnings (a reloaded configuration) go to the message line, not over the screen.
    quiet.environment.writeErr = { [warnings] in warnings.append($0) }
    self.inv = quiet
  }

  /// For tests and tools: the session `--session PATH` names, in `environment`.
  convenience init(session path: String, environment: CLIEnvironment) throws {
    let parsed = try ArgumentScanner.scan(["manage", "--session", path], commands: CommandTable.standard)
    try self.init(Invocation(arguments: parsed, environment: environment, table: CommandTable.standard))
  }

  /// The session now, under its lock; `needsNotifications: false` leaves the notification
  /// outbox unread (most of a large session), for a fast first screen.
  func load(needsNotifications: Bool) throws -> Store {
    try client.perform(inv, mutating: false, needsNotifications: needsNotifications) { $0 }
  }

  /// Whether the file is no longer the one last read (another process saved it).
  func hasChanged(needsNotifications: Bool) -> Bool {
    client.kept.storeIfUnchanged(client.location, needsNotifications: needsNotifications) == nil
  }

  /// Warnings written while reading since the last call.
  func takeWarnings() -> [String] {
    warnings.take().split(separator: "\n").map(String.init)
  }

  /// Runs one storesim command line on this session, as `storesim ARGV --session PATH` would
  /// from a shell; returns its exit code and what it printed.
  func run(_ argv: [String]) -> (code: Int32, stdout: String, stderr: String) {
    let out = CapturedText()
    let err = CapturedText()
    var env = environment
    env.writeOut = { out.append($0) }
    env.writeErr = { err.append($0) }
    env.isTerminal = false
    env.readLine = { nil }
    let code = CLI.run(argv + ["--session", shown], environment: env)
    return (code, out.take(), err.take())
  }
}

/// Text written from any thread, taken whole.
final class CapturedText: Sendable {
  private let text = Mutex("")

  func append(_ s: String) { text.withLock { $0 += s } }

  func take() -> String {
    text.withLock { text in
      defer { text = "" }
      return text
    }
  }
}

/// The manager without its terminal: keys go to the model, the commands they ask for run on
/// the session, and the session is read again after each change, whoever made it. Tests drive
/// it directly; `ManageApp` adds the terminal around it.
struct ManageDriver {
  var model: ManageModel
  let session: ManageSession

  /// Opens the session (without its notifications when `fast`: they follow with `loadAll`).
  init(session: ManageSession, fast: Bool = false) throws {
    self.session = session
    let store = try session.load(needsNotifications: !fast)
    model = ManageModel(store: store, sessionName: session.shown, hasNotifications: !fast)
    takeWarnings()
  }

  /// Reads the notification outbox too (after a fast first screen).
  mutating func loadAll() {
    guard !model.hasNotifications else { return }
    reload()
  }

  /// One key; returns what only the terminal can do (quit, redraw, suspend).
  @discardableResult
  mutating func press(_ key: ManageKey) -> ManageEffect {
    let effect = model.handle(key)
    guard case .run(let argv) = effect else { return effect }
    let result = session.run(argv)
    model.showResult(code: result.code, stdout: result.stdout, stderr: result.stderr)
    if session.hasChanged(needsNotifications: true) { reload() }
    return .none
  }

  /// Reads the session again when another process changed it; true when it did.
  @discardableResult
  mutating func refreshIfChanged() -> Bool {
    guard session.hasChanged(needsNotifications: model.hasNotifications) else { return false }
    reload()
    if !model.message.hasPrefix("error:") { model.message = "updated by another process" }
    return true
  }

  private mutating func reload() {
    do {
      let store = try session.load(needsNotifications: true)
      model.replaceStore(store, hasNotifications: true)
      takeWarnings()
    } catch {
      model.message = "error: " + CLIError(reporting: error).message
    }
  }

  private mutating func takeWarnings() {
    if let w = session.takeWarnings().last { model.message = w }
  }
}
