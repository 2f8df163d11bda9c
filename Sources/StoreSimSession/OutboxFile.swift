import Foundation
import StoreSim

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The notifications of a session being made, written out as they are made (issue 50, item 6):
/// `populate` hands each batch of new notifications here (`take(from:)`), as the rows the
/// session file's outbox holds, and the store keeps only their places (`Store.writeOutNotifications`).
/// The save copies the rows into the file (`StateCodec.encode(_:outbox:...)`): the same bytes
/// as a save of the notifications themselves, since a notification's row depends only on it and
/// on whether its transaction is still stored as it carries it, which a population's never stops
/// being (a purchase never changes; a change of status is written as part of the reference).
///
/// The rows are kept in a file with no name in the session's folder (made and unlinked at once,
/// so nothing is left behind whatever happens), not in memory: a population of 100,000
/// customers makes about 430,000 notifications, 130 MB of rows.
package final class OutboxFile: @unchecked Sendable {
  private let location: SessionLocation
  /// The file, made when the first mebibyte of rows is (-1 until then).
  private var fd: Int32 = -1
  /// How many notifications, from the first, are written out.
  package private(set) var count = 0
  /// Rows not yet in the file, with the separator state of the outbox's list.
  private var writer = StateCodec.Writer()
  /// Bytes in the file.
  private var written = 0

  /// Rows to be kept in a file with no name beside the session's (made when they need it).
  package init(beside location: SessionLocation) {
    self.location = location
  }

  deinit { if fd >= 0 { close(fd) } }

  /// Writes out the store's notifications made since the last call.
  package func take(from store: inout Store) throws {
    try store.writeOutNotifications(from: count) { n, stored in
      writer.notification(n, stored: stored)
      count += 1
      if writer.bytes.count >= 1 << 20 { try flush() }
    }
  }

  private func flush() throws {
    guard !writer.bytes.isEmpty else { return }
    if fd < 0 {
      let path = location.file + ".outbox-" + String(getpid())
      fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard fd >= 0 else {
        throw SessionStoreError.system("cannot write the notifications beside \(location.shown)", errno: errno)
      }
      unlink(path)
    }
    try writer.bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = pwrite(fd, raw.baseAddress! + offset, raw.count - offset, off_t(written + offset))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
          throw SessionStoreError.system("cannot write the notifications", errno: n < 0 ? errno : EIO)
        }
        offset += n
      }
    }
    written += writer.bytes.count
    writer.bytes.removeAll(keepingCapacity: true)
  }

  /// The rows written out, in order and separated as in the outbox's list, handed to `emit`
  /// about a mebibyte at a time.
  func replay(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
    try flush()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset = 0
    while offset < written {
      let want = min(buffer.count, written - offset)
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(offset)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        throw SessionStoreError.system("cannot read the notifications back", errno: n < 0 ? errno : EIO)
      }
      try buffer.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
      offset += n
    }
  }
}
