import StoreSim
import StoreSimSession
import StoreSimSync

/// The session files a long-lived server keeps loaded between the commands it runs on them
/// (`serve`'s control API): each command's unit of work goes through
/// `SessionWork.perform(keeping:)`, so a file that only this server changed since is not read
/// again, and one another process saved (a `storesim --session FILE` command) is read before
/// the command acts on it, under the session's lock as always. Commands on one session take
/// their turn on its `Kept` (as they would on its lock); sessions do not wait for each other.
final class KeptSessions: Sendable {
  /// One session's kept store, and how it is saved.
  final class Entry: Sendable {
    let kept = Mutex(SessionWork.Kept())
    /// Whether saves are flushed to the disk (`AtomicFile.write`): false for disposable sessions.
    let durable: Bool

    init(durable: Bool) { self.durable = durable }
  }

  private let entries = Mutex<[String: Entry]>([:])

  init() {}

  /// The entry of the session file `file` (absolute), made on first use.
  func entry(_ file: String, durable: Bool) -> Entry {
    entries.withLock { entries in
      if let entry = entries[file] { return entry }
      let entry = Entry(durable: durable)
      entries[file] = entry
      return entry
    }
  }

  /// The entry of `file` when it is kept.
  func entry(_ file: String) -> Entry? { entries.withLock { $0[file] } }

  /// Forgets a session (deleted): a file made again under its name starts afresh.
  func forget(_ file: String) { _ = entries.withLock { $0.removeValue(forKey: file) } }

  /// How many times `file` was read into its kept store (tests: an unchanged file is not).
  func reads(_ file: String) -> Int { entry(file)?.kept.withLock { $0.reads } ?? 0 }
}
