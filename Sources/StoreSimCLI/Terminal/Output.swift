import Foundation
import StoreSim
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A standard stream of the process, written with `write(2)`.
///
/// A closed pipe or a full device is an error to report (exit 74), never a crash: `main`
/// ignores SIGPIPE, and the first failure is kept (later writes are dropped) so it is reported
/// once.
///
/// No lock is held across a `write(2)`: a write joins a queue under the lock, and the thread
/// that found nobody writing writes the queue out, in order, with the lock let go. So a slow
/// reader (a stderr pipe nobody drains) holds up only the thread writing the queue out (with
/// what others queued behind its own text), never every server thread that logs; a thread
/// alone (the CLI) writes its own text before `write` returns.
/// Past `backlogLimit` queued bytes a writer waits for room, so memory stays bounded.
final class StandardStream: Sendable {
  static let output = StandardStream(descriptor: STDOUT_FILENO)
  static let error = StandardStream(descriptor: STDERR_FILENO)
  /// Bytes that may wait in the queue before writers wait for room.
  static let backlogLimit = 1 << 20

  let descriptor: Int32

  /// The text waiting to be written, whether a thread is writing it out, and the `errno` of
  /// the first failed write.
  private struct Queue {
    var chunks: [[UInt8]] = []
    var bytes = 0
    var writing = false
    var failedErrno: Int32?
  }
  private let queue = Condition(Queue())

  init(descriptor: Int32) { self.descriptor = descriptor }

  /// The operating system's reason for the first failed write, if one failed (after what is
  /// queued has been written).
  var failure: String? {
    let failed = queue.wait(for: { q -> Int32?? in q.writing ? nil : .some(q.failedErrno) })
    return failed.map(SystemError.reason)
  }

  func write(_ text: String) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  func write(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    let chunk = [UInt8](bytes)
    let mustWrite = queue.wait(for: { q -> Bool? in
      guard q.failedErrno == nil else { return false }
      guard !q.writing || q.bytes < Self.backlogLimit else { return nil }
      q.chunks.append(chunk)
      q.bytes += chunk.count
      guard !q.writing else { return false }
      q.writing = true
      return true
    })
    if mustWrite { writeQueue() }
  }

  /// Writes the queue out until it is empty, taking the lock only to take each batch.
  private func writeQueue() {
    while true {
      let batch: [[UInt8]]? = queue.withLock(waking: .all) { q in
        guard !q.chunks.isEmpty, q.failedErrno == nil else {
          q.writing = false
          q.chunks = []
          q.bytes = 0
          return nil
        }
        defer {
          q.chunks = []
          q.bytes = 0
        }
        return q.chunks
      }
      guard let batch else { return }
      for chunk in batch {
        if let failed = writeAll(chunk) {
          queue.withLock { $0.failedErrno = failed }
          break
        }
      }
    }
  }

  /// Writes all of `chunk`; the `errno` of a failed write (EIO for a write of nothing).
  private func writeAll(_ chunk: [UInt8]) -> Int32? {
    chunk.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return nil }
      var offset = 0
      while offset < bytes.count {
        let n = systemWrite(descriptor, base + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return n < 0 ? errno : EIO }
        offset += n
      }
      return nil
    }
  }
}

@inline(__always)
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}

/// Holds a command's standard output until the command is over, so that a change is saved
/// before anything is printed: a reader that closes the pipe early (`| head -1`) can no longer
/// stop a command between its change and its save.
///
/// Up to `memoryLimit` bytes are kept in memory; beyond that the text spills to an anonymous
/// temporary file, so a long `advance` holds its output on disk, not in memory.
final class OutputSpool: Sendable {
  static let memoryLimit = 4 << 20

  /// What is held: text in memory, and the spill file once it grew past the limit. Vouched
  /// for by hand (`@unchecked Sendable`, for the C file pointer): it lives in `held` and the
  /// spill file is touched only under that lock.
  private struct Held: @unchecked Sendable {
    var buffer = ""
    var spill: UnsafeMutablePointer<FILE>?
    var spilled = false

    /// Moves the buffer to the spill file (kept in memory when no temporary file can be made).
    mutating func spillBuffer() {
      if spill == nil { spill = tmpfile() }
      guard let spill, !buffer.isEmpty else { return }
      let written = buffer.withUTF8 { fwrite($0.baseAddress, 1, $0.count, spill) }
      if written == buffer.utf8.count {
        buffer = ""
        spilled = true
      }
    }

    mutating func closeSpill() {
      if let spill { fclose(spill) }
      spill = nil
      spilled = false
    }
  }

  private let sink: @Sendable (String) -> Void
  private let held = Mutex(Held())

  init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

  deinit { held.withLock { $0.closeSpill() } }

  func append(_ text: String) {
    held.withLock { held in
      held.buffer += text
      if held.buffer.utf8.count >= Self.memoryLimit { held.spillBuffer() }
    }
  }

  /// Sends everything held so far to the sink.
  func flush() {
    held.withLock { held in
      if let spill = held.spill, held.spilled {
        held.spillBuffer()
        rewind(spill)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
          let n = fread(&chunk, 1, chunk.count, spill)
          if n <= 0 { break }
          sink(String(decoding: chunk[0..<n], as: UTF8.self))
        }
        held.closeSpill()
      }
      if !held.buffer.isEmpty {
        sink(held.buffer)
        held.buffer = ""
      }
    }
  }

  /// Drops everything held.
  func discard() {
    held.withLock { held in
      held.buffer = ""
      held.closeSpill()
    }
  }
}

/// Operating-system errors as people and the exit-code contract see them.
enum SystemError {
  /// The system's own words for an `errno`, e.g. "No space left on device".
  static func reason(_ code: Int32) -> String {
    String(cString: strerror(code))
  }

  /// The exit code for a failed file operation: 77 permission denied, 74 input/output error
  /// (disk full, quota, device errors), 73 for any other failure to create a file.
  static func exitCode(_ code: Int32) -> ExitCode {
    switch code {
    case EACCES, EPERM: return .permissionDenied
    case ENOSPC, EDQUOT, EIO, EFBIG: return .ioError
    default: return .cannotCreate
    }
  }

  /// A `CLIError` for a failed file operation: `what` names it, the system gives the reason.
  static func error(_ what: String, errno code: Int32) -> CLIError {
    CLIError(code: exitCode(code), message: "\(what): \(reason(code))")
  }
}
