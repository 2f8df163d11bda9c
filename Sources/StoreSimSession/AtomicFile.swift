import Foundation
import StoreSim
import StoreSimSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Atomic replacement of a file: a temporary file beside it, flushed, renamed over it, the
/// folder flushed. Signals that end the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are held
/// from the temporary file's creation to the rename, so they leave the old or the new file and
/// no temporary file; they take effect right after.
package enum AtomicFile {
  package static let temporaryMarker = ".tmp-"

  /// Whether changes to an existing file are refused because the user made it read-only.
  package static func checkWritable(_ location: SessionLocation) throws {
    _ = try writableStatus(location)
  }

  /// The file's status when it exists (nil when not), after `checkWritable`'s checks: one
  /// `stat` serves both the check and the mode a save keeps.
  private static func writableStatus(_ location: SessionLocation) throws -> stat? {
    var info = stat()
    guard stat(location.file, &info) == 0 else { return nil }
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
    return info
  }

  /// `durable: false` skips the two `fsync`s (the file's and its folder's): the rename still
  /// makes the file the old one or the whole new one for every process reading it, but a crash
  /// of the system (not of storesim) may lose the last saves. For disposable sessions only (the
  /// control API's, docs/control-api.md). `sweeping: false` leaves the folder unread for
  /// temporary files of processes that died while saving: for a save after one this process
  /// made of the same file with nothing read between (`SessionWork.Kept`), which swept it.
  package static func write(
    _ data: Data, to location: SessionLocation, durable: Bool = true, sweeping: Bool = true
  )
    throws
  {
    try write(to: location, durable: durable, sweeping: sweeping) { emit in
      // One `write` for the whole file, as a system call takes it.
      try data.withUnsafeBytes(emit)
    }
  }

  /// Writes what `body` hands to its `emit`, piece by piece, as `write(_:to:)` writes `data`:
  /// the file is the old one or the whole new one, never a part.
  package static func write(
    to location: SessionLocation, durable: Bool = true, sweeping: Bool = true,
    _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    let path = location.file
    let folder = (path as NSString).deletingLastPathComponent
    let existing = try writableStatus(location)
    let mode = existing.map { mode_t($0.st_mode & 0o7777) } ?? 0o644
    if sweeping { removeStaleTemporaries(of: path) }

    ProcessSignals.hold()
    defer { ProcessSignals.release() }

    let temporary = path + temporaryMarker + String(getpid())
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else {
      throw SessionStoreError.system("cannot save the session to \(location.shown)", errno: errno)
    }
    // Keep the mode exactly (the umask may have narrowed it) and the owner where allowed.
    fchmod(fd, mode)
    if let existing, existing.st_uid != getuid() || existing.st_gid != getgid() {
      _ = fchown(fd, existing.st_uid, existing.st_gid)
    }
    var failure: Int32 = 0
    var thrown: (any Error)?
    do {
      try body { raw in
        guard failure == 0 else { return }
        failure = writeAll(fd, raw)
      }
    } catch {
      thrown = error
    }
    if let thrown {
      close(fd)
      unlink(temporary)
      throw thrown
    }
    if failure == 0 && durable && fsync(fd) != 0 { failure = errno }
    if close(fd) != 0 && failure == 0 { failure = errno }
    if failure == 0 && rename(temporary, path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      throw SessionStoreError.system("cannot save the session to \(location.shown)", errno: failure)
    }
    guard durable else { return }
    let dirfd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
    if dirfd >= 0 {
      fsync(dirfd)
      close(dirfd)
    }
  }

  /// Appends `bytes` to the existing file (a session's change line, `StateCodec+Changes`) in
  /// one `write`, flushed when `durable`, and returns the file's identity after it; signals that
  /// end the process are held meanwhile, as for a whole save. A write that fails or falls short
  /// throws and leaves what it wrote: a line without its newline is not read, and the caller's
  /// next save writes the file whole (the file is not cut back: other processes may have it
  /// mapped). nil when the file is not there (the caller saves it whole).
  package static func append(_ bytes: [UInt8], to location: SessionLocation, durable: Bool) throws -> FileIdentity? {
    ProcessSignals.hold()
    defer { ProcessSignals.release() }
    let fd = open(location.file, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      throw SessionStoreError.system("cannot save the session to \(location.shown)", errno: errno)
    }
    defer { close(fd) }
    var failure = bytes.withUnsafeBytes { writeAll(fd, $0) }
    if failure == 0 && durable && fsync(fd) != 0 { failure = errno }
    if failure != 0 {
      throw SessionStoreError.system("cannot save the session to \(location.shown)", errno: failure)
    }
    return FileIdentity(descriptor: fd)
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

/// Writes all of `raw` to `fd`, again after a short write or EINTR; the errno that stopped it
/// (EIO for a write of nothing), or 0.
private func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> Int32 {
  var offset = 0
  while offset < raw.count {
    let n = posixWrite(fd, raw.baseAddress! + offset, raw.count - offset)
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { return n < 0 ? errno : EIO }
    offset += n
  }
  return 0
}

/// The system's `write`, which `AtomicFile.write` hides by name.
@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}
