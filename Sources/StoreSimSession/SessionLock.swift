import Foundation
import StoreSim
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The exclusive lock every command takes on `<session>.lock` from load to save.
package final class SessionLock {
  private var descriptor: Int32 = -1

  /// Taking the lock took longer than the deadline given.
  package struct Busy: Error, Sendable {
    package init() {}
  }

  /// `init(_:forWriting:deadline:)` with a wall-clock deadline, turned into a monotonic one now
  /// (kept for callers written before `WaitDeadline`).
  package convenience init(_ location: SessionLocation, forWriting: Bool, deadline: Date) throws {
    try self.init(
      location, forWriting: forWriting, deadline: WaitClock.system.deadline(after: deadline.timeIntervalSinceNow))
  }

  /// Takes the lock, waiting at most until `deadline` (on its monotonic clock) when one is
  /// given (then `Busy`). A reading command that cannot create or open the lock file for writing
  /// (a read-only file system, a lock file of another user) reads without it: saves are atomic
  /// renames, so a reader always sees a whole file.
  package init(_ location: SessionLocation, forWriting: Bool, deadline: WaitDeadline? = nil) throws {
    // An existing lock file is opened without O_CREAT, which would take its folder's lock for
    // writing (as a file's creation and a rename do) even when the file is there: the sessions
    // of one folder (the control API's) would queue on it.
    descriptor = open(location.lockPath, O_RDWR | O_CLOEXEC)
    if descriptor < 0 && errno == ENOENT {
      descriptor = open(location.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    }
    if descriptor < 0 && errno != ENOENT {
      descriptor = open(location.lockPath, O_RDONLY | O_CLOEXEC)
    }
    if descriptor < 0 {
      let code = errno
      if !forWriting { return }
      throw SessionStoreError.system("cannot create the lock file \(location.shown).lock", errno: code)
    }
    while flock(descriptor, deadline == nil ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
      if errno == EWOULDBLOCK, let deadline {
        guard !deadline.hasPassed else {
          close(descriptor)
          descriptor = -1
          throw Busy()
        }
        usleep(2_000)
        continue
      }
      if errno != EINTR {
        let code = errno
        close(descriptor)
        descriptor = -1
        if !forWriting { return }
        throw SessionStoreError.system("cannot lock \(location.shown)", errno: code)
      }
    }
  }

  deinit {
    if descriptor >= 0 {
      flock(descriptor, LOCK_UN)
      close(descriptor)
    }
  }
}
