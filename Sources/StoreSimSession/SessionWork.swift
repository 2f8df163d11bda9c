import Foundation
import StoreSim
import StoreSimSync

/// One unit of work on a session file, in one order: take the session's lock, load the file
/// (reloading an edited configuration), act on the store, save what changed, and plan what the
/// change caused (notifications to deliver) while the lock is still held. This is the only
/// place a session file is locked, read or saved (`Tests/.../SessionWorkOnlyTests` checks the
/// sources for it): a command-line command, `storesim api`, the shell's and `manage`'s
/// commands and the recording of delivery attempts go through `perform`; `serve`, the shell
/// and `manage`, which keep the loaded store between uses, through `perform(keeping:)`;
/// `init` through `create`; StoreSimKit's `SKTestSession(sessionFileURL:)` through `read` and
/// its `save(to:)` through `replace`.
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
  /// decoded (on a large session it is most of the file). `written` holds the rows of the
  /// notifications `body` wrote out of the store (`OutboxFile`, `populate`), saved in their places.
  package func perform<Value, Plan>(
    mutating: Bool, needsNotifications: Bool = true, deadline: WaitDeadline? = nil, written: OutboxFile? = nil,
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
      try SessionFile.write(document, to: location, written: written)
    } else if reloaded {
      document.state = store.state
      do {
        try SessionFile.write(document, to: location, written: written)
      } catch let error as SessionStoreError where !mutating {
        warn("the reloaded configuration was not saved: \(error.message)")
      }
    }
    return (value, planned)
  }

  /// Reads the whole session under its lock with the configuration-reload rule (a reloaded
  /// configuration is saved when the file can be written, as a reading `perform` does), and
  /// returns it with the identity of the file read, for a later `replace(ifStill:)`.
  package func read() throws -> (document: SessionDocument, identity: FileIdentity?) {
    let lock = try SessionLock(location, forWriting: false)
    defer { withExtendedLifetime(lock) {} }
    let (document, reloaded) = try Self.load(location, partial: false, warn: warn)
    if reloaded {
      do {
        try SessionFile.write(document, to: location)
      } catch let error as SessionStoreError {
        warn("the reloaded configuration was not saved: \(error.message)")
      }
    }
    return (document, FileIdentity(location.file))
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

  /// What a long-lived front end (`serve`, the shell, `manage`) keeps between its units of
  /// work: the document last read or saved, the identity of its file and the store over it, so
  /// a file that did not change is not read again and its store's indexes are not rebuilt.
  package struct Kept: Sendable {
    fileprivate var document: SessionDocument?
    fileprivate var identity: FileIdentity?
    fileprivate var store: Store?
    /// Changes whenever the store kept changes (reloaded or saved), so answers computed from
    /// one generation can be reused until the next.
    package fileprivate(set) var generation = 0
    /// Whether `document` was read without its notifications.
    fileprivate var partial = false
    /// How many times the file was read into this store (a file that did not change is not).
    package fileprivate(set) var reads = 0
    /// The rows of the last save, copied by the next for the records that did not change.
    package fileprivate(set) var rows = EncodedRows()
    /// Whether this store was saved since the file was last read: its folder was swept of
    /// dead processes' temporary files then, and is not read again for them; and the file is
    /// the one this store last wrote, so its next save may append a change line.
    fileprivate var saved = false
    /// The identity of the file as this store last wrote it (whole or by a line): a change line
    /// is appended only to that file, never to one read since (another process's, which may
    /// end in a line cut short, or hold a configuration reloaded and not saved).
    fileprivate var written: FileIdentity?
    /// The bytes of the file's header and state line at its last whole save, and of the change
    /// lines appended since (`StateCodec+Changes`).
    fileprivate var wholeBytes = 0
    fileprivate var appendedBytes = 0
    /// How many saves appended a change line (tests).
    package fileprivate(set) var appends = 0

    package init() {}

    /// The store when the file at `location` is still the one last read (same device, inode,
    /// size and change time), without taking the lock: a session is only ever replaced whole
    /// by an atomic rename, so an unchanged file is exactly the state kept, and a change in
    /// progress under another process's lock is not yet part of the session. nil when the file
    /// changed or was never read (or was read without the notifications a use needs).
    package func storeIfUnchanged(_ location: SessionLocation, needsNotifications: Bool) -> (Store, Int)? {
      guard let store, document != nil, !(partial && needsNotifications), identity == FileIdentity(location.file)
      else { return nil }
      return (store, generation)
    }

    /// What `snapshot` gives.
    package typealias Snapshot = (store: Store, generation: Int, identity: FileIdentity?, partial: Bool)

    /// The store kept, its generation, the identity of the file it was read from (or saved
    /// as) and whether it was read without its notifications; nil before a use.
    package var snapshot: Snapshot? {
      guard let store else { return nil }
      return (store, generation, identity, partial)
    }
  }

  /// The unit of work of a front end that keeps the loaded store (`Kept`) between uses: under
  /// the lock (waiting at most until `deadline` when one is given), the file is read again only
  /// when it changed since `kept` saw it, `body` runs on the store, and a different state is
  /// saved when `mutating`. A reader that never looks at notifications says
  /// `needsNotifications: false`: the outbox (most of a large session) is then not read until a
  /// use needs it. Returns the store `body` returned.
  @discardableResult
  package func perform(
    keeping kept: inout Kept, mutating: Bool, needsNotifications: Bool = true, deadline: WaitDeadline? = nil,
    _ body: (Store) throws -> Store
  ) throws -> Store {
    try perform(
      keeping: &kept, mutating: mutating, needsNotifications: needsNotifications, deadline: deadline,
      { store in store = try body(store) }, plan: { store, _ in store }
    ).plan
  }

  /// `perform(mutating:...)` over a store kept between uses (`Kept`): the file is read only
  /// when it changed since `kept` saw it (its identity: another process saved, always by an
  /// atomic rename, under the same lock), so a front end that runs many commands on a session
  /// (the control API) neither reads nor decodes it again between its own saves. `durable:
  /// false` saves without flushing the file to the disk (`AtomicFile.write`): for sessions
  /// that are disposable, whose every save is still a whole file renamed into place under the
  /// lock, so other processes see each acknowledged change. `prepare`, `body` and `plan` are as
  /// in `perform(mutating:...)`; the kept store changes only when the file does.
  package func perform<Value, Plan>(
    keeping kept: inout Kept, mutating: Bool, needsNotifications: Bool = true, deadline: WaitDeadline? = nil,
    durable: Bool = true,
    prepare: (inout Store) throws -> Void = { _ in },
    _ body: (inout Store) throws -> Value,
    plan: (_ store: Store, _ notificationsBefore: Int) -> Plan
  ) throws -> (value: Value, plan: Plan) {
    let lock = try SessionLock(location, forWriting: mutating, deadline: deadline)
    defer { withExtendedLifetime(lock) {} }
    if kept.document == nil || kept.identity != FileIdentity(location.file)
      || (kept.partial && (mutating || needsNotifications))
    {
      let skip = !mutating && !needsNotifications
      let (loaded, reloaded) = try Self.load(location, partial: skip, warn: warn)
      kept.document = loaded
      // A reloaded configuration makes `load` read the whole file.
      kept.partial = skip && !reloaded
      kept.identity = FileIdentity(location.file)
      kept.store = nil
      kept.generation += 1
      kept.reads += 1
      kept.rows = EncodedRows()
      kept.saved = false
      if reloaded, mutating { try save(loaded, keeping: &kept, durable: durable) }
    }
    var store = kept.store ?? Store(state: kept.document!.state)
    kept.store = store
    try prepare(&store)
    let before = store.state
    let value = try body(&store)
    let planned = plan(store, before.notifications.count)
    if mutating && store.state != before {
      var changed = kept.document!
      changed.state = store.state
      try save(changed, keeping: &kept, durable: durable)
      kept.store = store
    }
    return (value, planned)
  }

  /// What `refresh` did.
  package enum Refresh: Equatable, Sendable {
    /// The file is the one `kept` holds: nothing was read.
    case unchanged
    /// The file was read and is kept.
    case read
    /// The file changed while it was read: nothing was kept (take the locked path).
    case changedWhileRead
  }

  /// A reading front end's look at the file without the session's lock, so a reader never
  /// queues behind a writer's unit of work: a session is only ever replaced whole, by an atomic
  /// rename, or lengthened by a change line, whose last line is not read until its newline is
  /// written, so the file at the path is always a whole session. The file is read again only
  /// when it changed since `kept` saw it (or `kept` lacks the notifications a use needs), and
  /// what was read is kept only when the file's identity is the same before and after the read
  /// (then the bytes read are that file's). A changed configuration is reloaded into the store
  /// kept, not saved (as a reading `perform(keeping:)`).
  package func refresh(keeping kept: inout Kept, needsNotifications: Bool) throws -> Refresh {
    guard let before = FileIdentity(location.file) else { return .changedWhileRead }
    if kept.store != nil, kept.identity == before, !(kept.partial && needsNotifications) { return .unchanged }
    let (loaded, reloaded) = try Self.load(location, partial: !needsNotifications, warn: warn)
    guard FileIdentity(location.file) == before else { return .changedWhileRead }
    kept.document = loaded
    kept.partial = !needsNotifications && !reloaded
    kept.identity = before
    kept.store = Store(state: loaded.state)
    kept.generation += 1
    kept.saved = false
    kept.rows = EncodedRows()
    return .read
  }

  /// A reading front end's look at a part of the file, without the session's lock (as
  /// `refresh`): `base` and the row of the customer holding transaction `id` (`base` alone when
  /// `id` is nil), for `serve` to answer a request about one transaction while the whole
  /// session is still being read (issue 50, item 6). nil when that cannot stand for the whole
  /// file: no customer holds it, the file is older than version 3, its configuration changed
  /// (the whole read reloads it), or the file changed while it was read. Never to be saved.
  package func readOneCustomer(holding id: TransactionID?) throws -> Store? {
    guard let before = FileIdentity(location.file),
      let document = try SessionFile.read(location.file, shownAs: location.shown, onlyCustomerHolding: id),
      FileIdentity(location.file) == before
    else { return nil }
    if let data = Self.configurationForReload(document.configurationPath, warn: { _ in }),
      SessionFileFormat.digest(data) != document.configurationDigest
    {
      return nil
    }
    return Store(state: document.state)
  }

  /// Saves a kept store (`AtomicFile` checks that the file may be changed): a change line
  /// appended when the file is the one this store last saved and the lines stay within
  /// `changeLinesAllowed` of it, else the whole file, which drops the lines.
  private func save(_ changed: SessionDocument, keeping kept: inout Kept, durable: Bool) throws {
    if kept.saved, !kept.partial, kept.written != nil, kept.written == kept.identity, let before = kept.document,
      before.configurationPath == changed.configurationPath,
      before.configurationDigest == changed.configurationDigest,
      let line = try? StateCodec.changeLine(from: before.state, to: changed.state),
      kept.appendedBytes + line.count <= max(kept.wholeBytes, Self.changeLinesAllowed),
      kept.wholeBytes + kept.appendedBytes + line.count <= SessionBounds.largestFile
    {
      try AtomicFile.checkWritable(location)
      // A failed append may have left a part of the line (or all of it, unflushed): the file
      // is no longer the one written, and the next save writes it whole.
      kept.written = nil
      if let identity = try AtomicFile.append(line, to: location, durable: durable) {
        kept.appendedBytes += line.count
        kept.appends += 1
        kept.document = changed
        kept.identity = identity
        kept.written = identity
        kept.generation += 1
        return
      }
    }
    try SessionFile.write(changed, to: location, durable: durable, reusing: kept.rows, again: kept.saved)
    kept.saved = true
    kept.document = changed
    kept.identity = FileIdentity(location.file)
    kept.written = kept.identity
    kept.wholeBytes = Int(kept.identity?.size ?? 0)
    kept.appendedBytes = 0
    kept.partial = false
    kept.generation += 1
  }

  /// The change lines a session file may hold before it is written whole again: as many bytes
  /// as its state line, and at least this many (256 KiB), so a read does at most about twice
  /// the work of a read of the whole file.
  package static let changeLinesAllowed = 256 << 10

  /// Makes the session file (`init`) under its lock. An existing file is replaced only when
  /// `replacing` (given nothing, asked only then) does not throw; one that cannot be read is
  /// first kept aside, with a warning.
  package func create(_ document: SessionDocument, replacing: () throws -> Void) throws {
    try AtomicFile.makeFolder((location.file as NSString).deletingLastPathComponent)
    let lock = try SessionLock(location, forWriting: true)
    defer { withExtendedLifetime(lock) {} }
    var existing = stat()
    if lstat(location.file, &existing) == 0 {
      try replacing()
      try AtomicFile.checkWritable(location)
      if (try? SessionFile.read(location.file, shownAs: location.shown)) == nil {
        let kept = try AtomicFile.keepDamaged(location)
        warn("the old session file could not be read; kept it as \(kept)")
      }
    }
    try SessionFile.write(document, to: location)
  }

  /// Reads the session and reloads its configuration when that file changed since the session
  /// was saved (the configuration-reload rule). Returns the document (with the reloaded
  /// configuration) and whether it was reloaded; warnings go to `warn`.
  static func load(
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

  /// The bytes of a session's configuration file, to notice edits; nil (with a warning when it
  /// is there but too large or not a file) when it cannot be read.
  package static func configurationForReload(_ path: String, warn: (String) -> Void) -> Data? {
    do {
      return try ConfigurationBytes.read(path)
    } catch .notAFile, .tooLarge {
      let limit = ConfigurationBytes.maximumSize / 1024 / 1024
      warn("configuration \(path) is not a file of at most \(limit) MiB any more; using the copy saved in the session")
      return nil
    } catch {
      return nil
    }
  }
}
