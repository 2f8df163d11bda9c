import Foundation
import Testing

@testable import StoreSimCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `StandardStream` holds no lock across a blocking `write(2)`.
@Suite struct StandardStreamTests {
  /// A thread blocked writing to a pipe nobody reads does not hold up a second writer: the
  /// second write returns while the first is still blocked, and once the pipe is read, both
  /// texts arrive whole, one after the other.
  @Test func aBlockedWriteDoesNotHoldUpAnotherThreadsWrite() throws {
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    defer { close(fds[0]) }
    let stream = StandardStream(descriptor: fds[1])
    let first = String(repeating: "a", count: 256 * 1024)  // more than a pipe holds
    let firstStarted = DispatchSemaphore(value: 0)
    let firstDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      firstStarted.signal()
      stream.write(first)
      firstDone.signal()
    }
    firstStarted.wait()
    // Wait (bounded) until the first write has filled the pipe: it is then the thread writing
    // the queue out, blocked. (Started before it, the second thread could take that role
    // itself, and the first would only queue its text and return.)
    var full = false
    for _ in 0..<2_000 where !full {
      var writable = pollfd(fd: fds[1], events: Int16(POLLOUT), revents: 0)
      full = poll(&writable, 1, 0) == 0
      if !full { usleep(1_000) }
    }
    #expect(full, "the first write never filled the pipe")
    let secondDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      stream.write("b\n")
      secondDone.signal()
    }
    let returned = secondDone.wait(timeout: .now() + 2) == .success
    #expect(returned, "the second write waited for the blocked one")
    #expect(firstDone.wait(timeout: .now()) == .timedOut, "the pipe was never full")
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while received.count < first.utf8.count + 2 {
      let n = read(fds[0], &buffer, buffer.count)
      // A signal to this process (another test's child exiting) interrupts the read: read on,
      // or the first writer stays blocked on the full pipe.
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      received += buffer[0..<n]
    }
    // Bounded: a writer that never finishes fails the test instead of holding up the run.
    #expect(firstDone.wait(timeout: .now() + 30) == .success, "the first write never finished")
    if !returned { #expect(secondDone.wait(timeout: .now() + 30) == .success) }
    close(fds[1])
    // Whole and not interleaved; which thread reached the stream first is up to the scheduler.
    let text = String(decoding: received, as: UTF8.self)
    #expect(text == first + "b\n" || text == "b\n" + first)
    #expect(stream.failure == nil)
  }

  /// A failed write (here to a descriptor that is not open) is kept as the stream's failure.
  @Test func aFailedWriteIsKeptAsTheFailure() {
    let stream = StandardStream(descriptor: -1)
    #expect(stream.failure == nil)
    stream.write("lost\n")
    stream.write("also lost\n")
    #expect(stream.failure != nil)
  }
}
