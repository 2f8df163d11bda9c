import Foundation
import StoreSim
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A session file used by a long-lived client (the shell, the server): each use takes the
/// lock, reloads the file only when it changed since this client last saw it, and saves what
/// the use changed before letting go of the lock.
package struct SessionFileClient {
  package let location: SessionLocation
  private var document: SessionDocument?
  private var identity: FileIdentity?
  /// The store over `document.state`, kept so an unchanged file costs no rebuild of the
  /// store's indexes (the server answers thousands of requests from one load).
  private var store: Store?
  /// Changes whenever the store this client answers from changes (reloaded or saved), so
  /// answers computed from one generation can be reused until the next.
  package private(set) var generation = 0
  /// Whether `document` was read without its notifications.
  private var partial = false

  package init(location: SessionLocation) { self.location = location }

  /// Reads the session at a location (`partial`: without its notifications) and returns it
  /// with whether its configuration was reloaded (then it is saved when the use writes).
  package typealias Load = (_ location: SessionLocation, _ partial: Bool) throws -> (SessionDocument, Bool)

  /// The store when the file is still the one this client last read (same device, inode, size
  /// and change time), without taking the lock: a session is only ever replaced whole by an
  /// atomic rename, so an unchanged file is exactly the state held in memory, and a change in
  /// progress under another process's lock is not yet part of the session. nil when the file
  /// changed or was never read (or was read without the notifications a use needs).
  package mutating func storeIfUnchanged(needsNotifications: Bool) -> (Store, Int)? {
    guard let store, document != nil, !(partial && needsNotifications), identity == FileIdentity(location.file) else {
      return nil
    }
    return (store, generation)
  }

  /// What `snapshot` gives.
  package typealias Snapshot = (store: Store, generation: Int, identity: FileIdentity?, partial: Bool)

  /// The store this client answers from, its generation, the identity of the file it was read
  /// from (or saved as) and whether it was read without its notifications; nil before a use.
  package var snapshot: Snapshot? {
    guard let store else { return nil }
    return (store, generation, identity, partial)
  }

  /// Runs `body` on the current store under the lock; saves when it returns a different state.
  /// A reader that never looks at notifications says `needsNotifications: false`: the
  /// notification outbox (most of a large session) is then not read until a use needs it.
  @discardableResult
  package mutating func withLock(
    load: Load, forWriting: Bool, needsNotifications: Bool = true, deadline: WaitDeadline? = nil,
    _ body: (Store) throws -> Store
  ) throws -> Store {
    let lock = try SessionLock(location, forWriting: forWriting, deadline: deadline)
    defer { withExtendedLifetime(lock) {} }
    if document == nil || identity != FileIdentity(location.file) || (partial && (forWriting || needsNotifications)) {
      let skip = !forWriting && !needsNotifications
      let (loaded, reloaded) = try load(location, skip)
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
package struct FileIdentity: Equatable, Sendable {
  package var device: UInt64
  package var inode: UInt64
  package var size: Int64
  package var seconds: Int
  package var nanoseconds: Int

  package init?(_ path: String) {
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
