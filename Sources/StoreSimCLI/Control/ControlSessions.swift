import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession
import StoreSimSync

/// The sessions of the control API: `default`, the session `serve` was started with (when it
/// was), and the sessions `POST /storesim/v1/sessions` makes, each a session file
/// `<id>.json` (with its configuration, `<id>.storekit`) in the folder `serve --sessions`
/// names, so `storesim --session FOLDER/ID.json ...` opens one. At most `limit` of them.
final class ControlSessions: Sendable {
  /// The folder the sessions live in (absolute).
  let folder: String
  /// The session `serve` was started with; nil when it started with none.
  let defaultLocation: SessionLocation?
  /// How many sessions the folder may hold (`default` not counted).
  let limit: Int
  /// The App Store Server API of `default` (the one `serve` answers at its root).
  let defaultService: SessionService?
  /// Makes the App Store Server API of another session, as `serve` makes its own.
  private let makeService: @Sendable (SessionLocation) throws -> SessionService
  /// The Server API of each session, made when first asked.
  private let services = Mutex<[String: SessionService]>([:])
  /// Held while a session is made or deleted, so the count stays within `limit`.
  private let making = Mutex(())
  /// The sessions' stores, kept loaded between the commands run on them: a session the
  /// control API made is disposable and saved without flushing to the disk; `default` is
  /// saved as every command saves it (docs/control-api.md, "Speed and durability").
  let kept = KeptSessions()

  /// The name of the session `serve` was started with.
  static let defaultName = "default"
  /// The default bound: a test suite making a session per test keeps well under it, and a
  /// runaway client is stopped long before the disk fills (a session is a few kilobytes).
  static let defaultLimit = 256

  init(
    folder: String, defaultLocation: SessionLocation?, limit: Int, defaultService: SessionService?,
    makeService: @escaping @Sendable (SessionLocation) throws -> SessionService
  ) {
    self.folder = folder
    self.defaultLocation = defaultLocation
    self.limit = limit
    self.defaultService = defaultService
    self.makeService = makeService
  }

  /// A session id: 1 to 64 letters, digits, `-` and `_`, beginning with a letter or digit.
  static func isValidID(_ id: String) -> Bool {
    guard let first = id.unicodeScalars.first, id.unicodeScalars.count <= 64 else { return false }
    func allowed(_ c: Unicode.Scalar) -> Bool { c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c)) }
    return allowed(first) && id.unicodeScalars.allSatisfy { allowed($0) || $0 == "-" || $0 == "_" }
  }

  /// The session file of `id`.
  func file(_ id: String) -> String { folder + "/" + id + ".json" }

  /// The session named `id`, or a 404.
  func location(_ id: String) throws(ControlError) -> SessionLocation {
    if id == Self.defaultName {
      guard let defaultLocation, FileManager.default.fileExists(atPath: defaultLocation.file) else {
        throw ControlError.notFound("serve was started with no session; make one with POST /storesim/v1/sessions")
      }
      _ = kept.entry(defaultLocation.file, durable: true)
      return defaultLocation
    }
    guard Self.isValidID(id), FileManager.default.fileExists(atPath: file(id)) else {
      throw ControlError(
        404, "sessionNotFound", "no session '\(TerminalText.field(id))' (GET /storesim/v1/sessions lists them)")
    }
    var location = SessionLocation(resolvedFile: file(id))
    location.shown = id + ".json"
    _ = kept.entry(location.file, durable: false)
    return location
  }

  /// The ids of the sessions, `default` first.
  func ids() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let made = names.compactMap { name -> String? in
      guard name.hasSuffix(".json") else { return nil }
      let id = String(name.dropLast(5))
      return Self.isValidID(id) && id != Self.defaultName ? id : nil
    }.sorted()
    let hasDefault = defaultLocation.map { FileManager.default.fileExists(atPath: $0.file) } ?? false
    return (hasDefault ? [Self.defaultName] : []) + made
  }

  /// The App Store Server API of a session.
  func service(_ id: String) throws(ControlError) -> SessionService {
    let location = try location(id)
    if id == Self.defaultName, let defaultService { return defaultService }
    if let kept = services.withLock({ $0[id] }) { return kept }
    let made: SessionService
    do { made = try makeService(location) } catch {
      throw ControlError(422, "badData", "session '\(id)' cannot be read: \(CLIError(reporting: error).message)")
    }
    return services.withLock { services in
      if let kept = services[id] { return kept }
      services[id] = made
      return made
    }
  }

  /// Makes a session: a new id (or `requested`), its configuration written beside it, and
  /// `body` (init's command line) run on it; nothing is left behind when it fails.
  func make(
    requested: String?, configuration: String, randomID: () -> String,
    _ body: (String, String) throws(ControlError) -> JSONOutput
  ) throws(ControlError) -> JSONOutput {
    try making.withLock { _ throws(ControlError) -> JSONOutput in
      let count = ids().filter { $0 != Self.defaultName }.count
      guard count < limit else {
        throw ControlError(
          409, "tooManySessions",
          "this serve holds \(limit) sessions, its limit (serve --max-sessions); delete one with DELETE /storesim/v1/sessions/{session}"
        )
      }
      let id = requested ?? randomID()
      guard Self.isValidID(id), id != Self.defaultName else {
        throw ControlError(
          400, "usage", "a session id is 1 to 64 letters, digits, '-' and '_' (and not 'default')", field: "session")
      }
      guard !FileManager.default.fileExists(atPath: file(id)) else {
        throw ControlError(
          409, "sessionExists", "a session '\(id)' exists; delete it first or choose another id", field: "session")
      }
      let config = folder + "/" + id + ".storekit"
      do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: config))
      } catch {
        throw ControlError(409, "cannotCreate", "the session's configuration could not be written")
      }
      do throws(ControlError) {
        return try body(id, config)
      } catch {
        remove(id)
        throw error
      }
    }
  }

  /// Deletes a session's files (never `default`, the session serve was started with).
  func delete(_ id: String) throws(ControlError) {
    guard id != Self.defaultName else {
      throw ControlError(
        409, "refused", "'default' is the session serve was started with; it is not deleted over the control API")
    }
    _ = try location(id)
    making.withLock { _ in remove(id) }
  }

  private func remove(_ id: String) {
    services.withLock { _ = $0.removeValue(forKey: id) }
    kept.forget(file(id))
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    for name in names where name == id + ".storekit" || name.hasPrefix(id + ".json") {
      try? FileManager.default.removeItem(atPath: folder + "/" + name)
    }
  }
}
