import Foundation
import StoreSim
import StoreSimSignals
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a session lives on disk: the path as the user wrote it, and the file it names.
///
/// A symlinked session is the file the link points to: it is updated in place (the link is
/// kept) and both names take the same lock.
package struct SessionLocation {
  /// As the user wrote it (for messages).
  package var shown: String
  /// The file itself, absolute, with symlinks followed.
  package var file: String

  package var lockPath: String { file + ".lock" }

  /// A location for an absolute path that is already resolved (tests, tools).
  package init(resolvedFile file: String) {
    shown = file
    self.file = file
  }

  /// Checks and resolves a session path: an empty path or a folder is a usage error before
  /// anything is touched.
  /// `resolve` makes a path absolute (against the working directory, `~/` against the home).
  package init(shown: String, resolve: (String) -> String) throws {
    guard !shown.isEmpty else {
      throw SessionStoreError(
        .badPath, "the session path is empty; give a file with --session PATH or $STORESIM_SESSION")
    }
    self.shown = shown
    var path = resolve(shown)
    guard !path.hasSuffix("/") else {
      throw SessionStoreError(.badPath, "the session path \(shown) is a folder; give a file name")
    }
    // Follow symlinks of the last component (at most 32, like the kernel's own limit of 40).
    for _ in 0..<32 {
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { break }
      var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = readlink(path, &target, target.count - 1)
      guard n > 0 else { break }
      let destination = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      path =
        destination.hasPrefix("/")
        ? destination : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
    }
    var info = stat()
    if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
      throw SessionStoreError(.badPath, "the session path \(shown) is a folder; give a file name")
    }
    file = path
  }
}

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
    descriptor = open(location.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
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

/// Atomic replacement of a file: a temporary file beside it, flushed, renamed over it, the
/// folder flushed. Signals that end the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are held
/// from the temporary file's creation to the rename, so they leave the old or the new file and
/// no temporary file; they take effect right after.
package enum AtomicFile {
  package static let temporaryMarker = ".tmp-"

  /// Whether changes to an existing file are refused because the user made it read-only.
  package static func checkWritable(_ location: SessionLocation) throws {
    var info = stat()
    guard stat(location.file, &info) == 0 else { return }
    // The owner's write bit counts even for root: a file made read-only is a decision to respect.
    if info.st_mode & S_IWUSR == 0 {
      let mode = String(info.st_mode & 0o7777, radix: 8)
      throw SessionStoreError(
        .permissionDenied,
        "session file \(location.shown) is read-only (mode \(mode)); it was left untouched — make it writable (chmod u+w) to change it"
      )
    }
    if access(location.file, W_OK) != 0 && (errno == EACCES || errno == EPERM || errno == EROFS) {
      throw SessionStoreError.system("cannot change session file \(location.shown)", errno: errno)
    }
  }

  package static func write(_ data: Data, to location: SessionLocation) throws {
    let path = location.file
    let folder = (path as NSString).deletingLastPathComponent
    try checkWritable(location)
    var existing = stat()
    let exists = stat(path, &existing) == 0
    let mode = exists ? mode_t(existing.st_mode & 0o7777) : 0o644
    removeStaleTemporaries(of: path)

    ProcessSignals.hold()
    defer { ProcessSignals.release() }

    let temporary = path + temporaryMarker + String(getpid())
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else {
      throw SessionStoreError.system("cannot save the session to \(location.shown)", errno: errno)
    }
    // Keep the mode exactly (the umask may have narrowed it) and the owner where allowed.
    fchmod(fd, mode)
    if exists && (existing.st_uid != getuid() || existing.st_gid != getgid()) {
      _ = fchown(fd, existing.st_uid, existing.st_gid)
    }
    var failure: Int32 = 0
    data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = posixWrite(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 {
          failure = n < 0 ? errno : EIO
          return
        }
        offset += n
      }
    }
    if failure == 0 && fsync(fd) != 0 { failure = errno }
    if close(fd) != 0 && failure == 0 { failure = errno }
    if failure == 0 && rename(temporary, path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      throw SessionStoreError.system("cannot save the session to \(location.shown)", errno: failure)
    }
    let dirfd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
    if dirfd >= 0 {
      fsync(dirfd)
      close(dirfd)
    }
  }

  /// Deletes temporary files of processes that died while saving. Called under the lock; a
  /// temporary file of a live process (another storesim saving without the lock cannot exist,
  /// but a recycled pid can) is left alone.
  package static func removeStaleTemporaries(of path: String) {
    let folder = (path as NSString).deletingLastPathComponent
    let prefix = (path as NSString).lastPathComponent + temporaryMarker
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
    where name.hasPrefix(prefix) {
      if let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) == 0 { continue }
      unlink((folder as NSString).appendingPathComponent(name))
    }
  }

  /// Creates a folder and its missing parents; the error names the system's reason.
  package static func makeFolder(_ folder: String) throws {
    var info = stat()
    if folder.isEmpty || stat(folder, &info) == 0 { return }
    try makeFolder((folder as NSString).deletingLastPathComponent)
    if mkdir(folder, 0o755) != 0 && errno != EEXIST {
      throw SessionStoreError.system("cannot create the session folder \(folder)", errno: errno)
    }
  }

  /// Moves a damaged session file aside as `<name>.damaged`, `<name>.damaged.1`, ... never
  /// overwriting an earlier copy. Only a regular file is moved. Returns the name it was kept as.
  package static func keepDamaged(_ location: SessionLocation) throws -> String {
    var info = stat()
    guard lstat(location.file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw SessionStoreError(.badPath, "\(location.shown) is not a regular file; storesim moves only session files")
    }
    var n = 0
    while true {
      let suffix = n == 0 ? ".damaged" : ".damaged.\(n)"
      let target = location.file + suffix
      // link(2) fails when the target exists: no earlier copy is ever replaced.
      if link(location.file, target) == 0 {
        unlink(location.file)
        return location.shown + suffix
      }
      if errno != EEXIST {
        throw SessionStoreError.system("cannot keep the damaged session \(location.shown)", errno: errno)
      }
      n += 1
    }
  }
}

/// The system's `write`, which `AtomicFile.write` hides by name.
@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}
