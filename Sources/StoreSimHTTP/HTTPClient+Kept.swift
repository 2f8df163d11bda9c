import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The connections a run of POSTs keeps alive: at most one to each receiver (host and port),
/// idle between two POSTs, closed when the run ends (`closeAll`, or when this is freed). Used
/// by one thread at a time (a run is sequential); not `Sendable`.
package final class HTTPKeptConnections {
  private var idle: [String: Int32] = [:]
  /// Connections opened, for tests and the bench (a kept one counts once).
  package private(set) var opened = 0

  package init() {}

  deinit { closeAll() }

  /// Closes every idle connection.
  package func closeAll() {
    for fd in idle.values { close(fd) }
    idle = [:]
  }

  /// How many connections are idle (kept for the next POST).
  package var idleCount: Int { idle.count }

  /// The idle connection to `key`, taken out of the pool; nil when there is none or the peer
  /// has closed it (or sent bytes nobody asked for) since: then it is closed here.
  func take(_ key: String) -> Int32? {
    guard let fd = idle.removeValue(forKey: key) else { return nil }
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    if poll(&entry, 1, 0) == 0 { return fd }
    close(fd)  // readable while idle: closed by the peer, or a stray answer
    return nil
  }

  /// Keeps `fd` for the next POST to `key` (closing one already kept there).
  func keep(_ fd: Int32, for key: String) {
    if let old = idle.updateValue(fd, forKey: key), old != fd { close(old) }
  }

  func noteOpened() { opened += 1 }
}

extension HTTPClient {
  /// POSTs `body` as `post` does, on the connection `connections` keeps to the URL's host and
  /// port (HTTP/1.1 keep-alive: no `Connection: close`), opening one when none is kept. The
  /// connection is kept afterwards only when the exchange was whole (`Exchange.reusable`):
  /// never after a timeout, an error, a cut or unframed body, or an answer that closes it.
  /// When a kept connection turns out closed by the receiver before any byte of an answer
  /// (it closed it while idle, as servers do), the POST is made again once on a new connection
  /// within the same deadline; a notification's POST carries the same signed bytes on every
  /// attempt, so a receiver that did get the first one sees a duplicate, which Apple's retries
  /// make it handle anyway.
  package static func post(
    _ body: [UInt8], to url: HTTPURL, timeout: TimeInterval, bodyLimit: Int, userAgent: String,
    keeping connections: HTTPKeptConnections
  ) -> HTTPAttempt {
    let deadline = WaitClock.system.deadline(after: timeout)
    let key = "\(url.host.lowercased()) \(url.port)"
    let request = requestBytes(body, to: url, userAgent: userAgent, keepAlive: true)
    if let fd = connections.take(key) {
      let exchange = exchange(request, on: fd, deadline: deadline, timeout: timeout, bodyLimit: bodyLimit)
      if exchange.reusable {
        connections.keep(fd, for: key)
        return exchange.attempt
      }
      close(fd)
      if !exchange.unanswered || deadline.hasPassed { return exchange.attempt }
    }
    let fd: Int32
    switch open(url, deadline: deadline, timeout: timeout) {
    case .success(let socket): fd = socket
    case .failure(let unconnected): return unconnected.attempt
    }
    connections.noteOpened()
    let exchange = exchange(request, on: fd, deadline: deadline, timeout: timeout, bodyLimit: bodyLimit)
    if exchange.reusable { connections.keep(fd, for: key) } else { close(fd) }
    return exchange.attempt
  }
}
