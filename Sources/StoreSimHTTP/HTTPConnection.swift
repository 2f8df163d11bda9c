import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One client connection of `HTTPServer` on its socket: it carries out what its
/// `HTTPConnectionState` says (reads, writes, logs, closes) on the clock of the server. Owned by
/// one thread at a time (the event loop, or the worker the loop handed a complete request to);
/// the hand-over goes through a lock, so no field needs one (hence `@unchecked`).
final class HTTPConnection: @unchecked Sendable {
  let fd: Int32
  let peer: String
  let server: HTTPServer
  /// The event loop that watches it (its index in the server's loops).
  let loop: Int
  /// What has arrived, the request waiting, what is still to be written, the deadlines.
  var state: HTTPConnectionState
  /// The event loop stopped answering its requests for this turn (its share is used): it is
  /// settled again next turn without waiting for the socket.
  var yielded = false
  /// The quick handler declined the pending request (the event loop asked it): the worker
  /// that takes the connection runs the handler without asking it again.
  var quickDeclined = false

  init(fd: Int32, peer: String, server: HTTPServer, loop: Int = 0) {
    self.fd = fd
    self.peer = peer
    self.server = server
    self.loop = loop
    state = HTTPConnectionState(server.connectionConfiguration, now: server.clock.nanoseconds())
  }

  /// What the connection needs next.
  enum Next: Equatable {
    /// A complete request is in `state.pending`: run the handler.
    case handle
    /// Wait until the socket is readable (`read`) or writable (`write`).
    case wait(Interest)
    case close
  }

  enum Interest { case read, write }

  /// Carries out the state's actions until it waits for the socket, has a request for the
  /// handler, or closes: writes what it can of the output, logs the refusals the state made.
  /// Never blocks: it reads nothing from the socket.
  func advance() -> Next {
    let now = server.clock.nanoseconds()
    while true {
      switch state.next(now: now) {
      case .write:
        switch flush(now) {
        case .blocked: return .wait(.write)
        case .failed: return .close
        case .done: break
        }
      case .log(let answer): log(answer)
      case .handle: return .handle
      case .read: return .wait(.read)
      case .close: return .close
      }
    }
  }

  /// Answers the pending request (closing the connection after it when `closing`) and logs it.
  func respond(_ response: HTTPResponse, closing: Bool = false) {
    quickDeclined = false
    log(state.respond(response, now: server.clock.nanoseconds(), closing: closing))
  }

  /// One line of the server's log.
  func log(_ answer: HTTPConnectionState.Answer) {
    server.log?(
      HTTPServer.LogEntry(
        peer: peer, method: answer.method, target: answer.target, status: answer.status, bytes: answer.bytes,
        milliseconds: answer.milliseconds))
  }

  /// Reads once from the socket, at most `scratch.count` bytes (one turn's share: a client
  /// sending flat out gets no more than that per turn, and the buffer keeps no more than the
  /// request being read plus one read); false at end of stream or on an error with nothing
  /// read (an end of stream after bytes is seen by the next read, once the requests before it
  /// are answered).
  func read(into scratch: inout [UInt8]) -> Bool {
    while true {
      let n = scratch.withUnsafeMutableBytes { Glue.recv(fd, $0.baseAddress!, $0.count, 0) }
      if n > 0 {
        state.receive(scratch[0..<n], now: server.clock.nanoseconds())
        return true
      }
      if n < 0 && errno == EINTR { continue }
      if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
        state.receive([], now: server.clock.nanoseconds())
        return true
      }
      state.receiveEnd()
      return false
    }
  }

  /// Waits until the socket is readable or `deadline` passes; true when readable.
  func awaitBytes(until deadline: WaitDeadline) -> Bool {
    while true {
      let milliseconds = deadline.pollMilliseconds
      guard milliseconds > 0 else { return false }
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let rc = poll(&entry, 1, milliseconds)
      if rc > 0 { return true }
      if rc < 0 && errno != EINTR { return false }
    }
  }

  private enum Flush { case done, blocked, failed }

  /// Writes the state's output until it is all written or the socket takes no more.
  private func flush(_ now: UInt64) -> Flush {
    repeat {
      let n = state.withUnwritten { Glue.send(fd, $0.baseAddress!, $0.count, HTTPClient.sendFlags) }
      if n > 0 {
        state.wrote(n, now: now)
        continue
      }
      if n < 0 && errno == EINTR { continue }
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .blocked : .failed
    } while state.isWriting
    return .done
  }
}
