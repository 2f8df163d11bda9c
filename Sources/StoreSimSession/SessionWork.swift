import Foundation
import StoreSim
import StoreSimSync

/// One unit of work on a session file, in one order: take the session's lock, load the file
/// (reloading an edited configuration), act on the store, save what changed, and plan what the
/// change caused (notifications to deliver) while the lock is still held. A command-line
/// command, `storesim api`, the shell's and `manage`'s commands and the recording of delivery
/// attempts all go through `perform`; StoreSimKit's `save(to:)` through `replace`. Long-lived
/// clients that keep a loaded store between uses (`serve`, the shell's completions) use
/// `SessionFileClient`, which takes the same lock and loads through the same `load`.
package struct SessionWork {
  package let location: SessionLocation
  /// Says what happened beside the work (a reloaded configuration), without `warning: `.
  package let warn: (String) -> Void

  package init(location: SessionLocation, warn: @escaping (String) -> Void) {
    self.location = location
    self.warn = warn
  }

  /// Runs `prepare` and then `body` on the session's store under its lock (waiting at most
  /// until `deadline` when one is given), saves when `mutating` and `body` changed the state,
  /// and returns what `body` returned with what `plan` made of the changed store (given the
  /// number of notifications before `body`), planned under the lock. Nothing is saved when
  /// `prepare` or `body` throws. A change `prepare` makes (a new customer) is saved only with a
  /// change of `body`. A reading use saves a reloaded configuration when it can, and warns when
  /// it cannot (a read-only file keeps answering from the reloaded copy). A reading use that
  /// never looks at notifications says `needsNotifications: false`, and the outbox is then not
  /// decoded (on a large session it is most of the file).
  package func perform<Value, Plan>(
    mutating: Bool, needsNotifications: Bool = true, deadline: WaitDeadline? = nil,
    prepare: (inout Store) throws -> Void = { _ in },
    _ body: (inout Store) throws -> Value,
    plan: (_ store: Store, _ notificationsBefore: Int) -> Plan
  ) throws -> (value: Value, plan: Plan) {
    if mutating { try AtomicFile.checkWritable(location) }
    let lock = try SessionLock(location, forWriting: mutating, deadline: deadline)
    defer { withExtendedLifetime(lock) {} }
    var (document, reloaded) = try Self.load(location, partial: !mutating && !needsNotifications, warn: warn)
    var store = Store(state: document.state)
    try prepare(&store)
    let before = store.state
    let value = try body(&store)
    let planned = plan(store, before.notifications.count)
    if mutating && store.state != before {
      document.state = store.state
      try SessionFile.write(document, to: location)
    } else if reloaded {
      document.state = store.state
      do {
        try SessionFile.write(document, to: location)
      } catch let error as SessionStoreError where !mutating {
        warn("the reloaded configuration was not saved: \(error.message)")
      }
    }
    return (value, planned)
  }

  /// Replaces the session file with `data` under the lock, unless the file is no longer the
  /// one `expected` names (another process saved since it was read): then `changedSince`
  /// throws, and the file is left as it is. Returns the identity of the file written.
  package func replace(
    with data: Data, ifStill expected: FileIdentity??, changedSince: () throws -> Void
  ) throws -> FileIdentity? {
    let lock = try SessionLock(location, forWriting: true)
    defer { withExtendedLifetime(lock) {} }
    if let expected, expected != FileIdentity(location.file) { try changedSince() }
    try AtomicFile.write(data, to: location)
    return FileIdentity(location.file)
  }

  /// Reads the session and reloads its configuration when that file changed since the session
  /// was saved (the configuration-reload rule). Returns the document (with the reloaded
  /// configuration) and whether it was reloaded; warnings go to `warn`.
  package static func load(
    _ location: SessionLocation, partial: Bool, warn: (String) -> Void
  ) throws -> (SessionDocument, Bool) {
    var document = try SessionFile.read(location.file, shownAs: location.shown, skippingNotifications: partial)
    guard let data = configurationForReload(document.configurationPath, warn: warn) else {
      return (document, false)
    }
    let digest = SessionFileFormat.digest(data)
    guard digest != document.configurationDigest else { return (document, false) }
    if partial {
      // The reloaded configuration is saved: that needs the whole state.
      document = try SessionFile.read(location.file, shownAs: location.shown)
    }
    guard let loaded = try? ConfigurationReader.read(data) else {
      warn(
        "configuration \(document.configurationPath) changed and no longer loads; using the copy saved in the session")
      return (document, false)
    }
    var store = Store(state: document.state)
    store.replaceConfiguration(loaded.configuration)
    document.state = store.state
    document.configurationDigest = digest
    warn(
      "configuration \(document.configurationPath) changed since the session was made; reloaded it (settings changed with 'settings' are kept)"
    )
    return (document, true)
  }

  /// Largest configuration file read; real files are a few kilobytes.
  package static let maximumConfigurationSize = 32 * 1024 * 1024

  /// The bytes of a session's configuration file, to notice edits; nil (with a warning when it
  /// is there but too large or not a file) when it cannot be read.
  package static func configurationForReload(_ path: String, warn: (String) -> Void) -> Data? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let limit = maximumConfigurationSize
    guard info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= limit else {
      warn(
        "configuration \(path) is not a file of at most \(limit / 1024 / 1024) MiB any more; using the copy saved in the session"
      )
      return nil
    }
    guard access(path, R_OK) == 0, let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
    return data.count <= limit ? data : nil
  }
}
