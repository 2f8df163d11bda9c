import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One of `HTTPServer`'s event loops (one per core, sharing the listener): one thread polls the
/// listener and every connection it holds that waits to be read or written, reads and parses
/// requests as their bytes arrive (a client that dribbles its header holds nothing but its own
/// buffer), answers what the quick handler answers, and hands other complete requests to the
/// worker pool, which gives the connection back once it has answered. A connection it accepts
/// goes to the loop `WorkerPool.place(acceptedBy:cpu:)` chooses (this one or another, which
/// the pool wakes). Past its share of `limits.connections` the listener is not polled, so new
/// connections go to another loop or, when every loop holds its share, wait in the kernel's
/// listen queue.
/// `@unchecked`: its fields are used only by the thread that runs the loop.
final class EventLoop: @unchecked Sendable {
  private let server: HTTPServer
  private let listener: Int32
  /// Slots 0–2: the stop pipe, the pipe workers wake the loop with, the listener (fd -1 while
  /// not accepting); then one per connection in `watched`, in the same order.
  private var fds: [pollfd]
  private var watched: [HTTPConnection] = []
  /// Connections open: watched, queued for a worker, or with one (the pool's count of this
  /// loop, without the connections handed to it and not yet taken).
  private var open = 0
  private var withWorkers = 0
  private let maxConnections: Int
  /// accept() ran out of file descriptors: the listener is not polled until a connection of
  /// this loop closes or `acceptRetry` (monotonic nanoseconds) passes, so a loop that holds no
  /// connection backs off instead of spinning on a listener that stays readable.
  private var acceptBlocked = false
  private var acceptRetry: UInt64 = 0
  private var acceptBackoff: UInt64 = 0
  /// Connections that used their share of a turn and have requests left (settled again next
  /// turn without waiting for their socket).
  private var yielded = 0
  private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
  private let pool: WorkerPool
  /// This loop's index among the server's loops.
  private let index: Int
  private let tick: UInt64
  private var nextSweep: UInt64 = 0

  private static let fixedSlots = 3
  /// The most requests of one connection a turn answers before the loop turns to the others:
  /// a client pipelining thousands of requests delays another by at most this many answers.
  static let requestsPerTurn = 64

  /// - Parameter maxConnections: this loop's share of the connections the server holds.
  init(server: HTTPServer, listener: Int32, stopPipe: Int32, pool: WorkerPool, index: Int, maxConnections: Int) {
    self.server = server
    self.listener = listener
    self.pool = pool
    self.index = index
    self.maxConnections = maxConnections
    fds = [
      pollfd(fd: stopPipe, events: Int16(POLLIN), revents: 0),
      pollfd(fd: pool.wakeRead(index), events: Int16(POLLIN), revents: 0),
      pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
    ]
    // Timeouts are checked every quarter of the shortest limit (between 10 ms and 1 s).
    let timeouts = server.connectionConfiguration
    let shortest = min(timeouts.idleTimeout, timeouts.requestTimeout, timeouts.writeTimeout)
    tick = min(1_000_000_000, max(10_000_000, shortest / 4))
  }

  func run() {
    while true {
      let now = server.clock.nanoseconds()
      if now >= nextSweep {
        sweep(now)
        nextSweep = now &+ tick
      }
      if acceptBlocked && now >= acceptRetry { acceptBlocked = false }
      fds[2].fd = open < maxConnections && !acceptBlocked ? listener : -1
      let wake = acceptBlocked ? min(nextSweep, acceptRetry) : nextSweep
      let left = wake &- min(wake, server.clock.nanoseconds())
      let timeout = yielded > 0 ? 0 : Int32(min(UInt64(Int32.max), (left + 999_999) / 1_000_000))
      let rc = poll(&fds, nfds_t(fds.count), timeout)
      if rc < 0 && errno != EINTR { break }
      if rc < 0 || rc == 0 && yielded == 0 { continue }
      if fds[0].revents != 0 { break }
      // Connections first: every readable one is read (once: one turn's share) before any
      // request is answered (what a quick answer checks once then covers all of them), then
      // each is settled from the last (a removed slot takes the last one's place).
      for i in Self.fixedSlots..<fds.count where fds[i].revents != 0 && fds[i].events == Int16(POLLIN) {
        _ = watched[i - Self.fixedSlots].read(into: &scratch)
      }
      // Only a turn after one that yielded looks at every connection's flag: with 1,000
      // connections the others touch only the slots poll() marked.
      let anyYielded = yielded > 0
      yielded = 0
      var i = fds.count - 1
      while i >= Self.fixedSlots {
        if fds[i].revents != 0 || anyYielded && watched[i - Self.fixedSlots].yielded { ready(i) }
        i -= 1
      }
      if fds[1].revents != 0 { takeBack() }
      if fds[2].revents != 0 { accept() }
    }
    shutDown()
  }

  // MARK: Connections

  private func add(_ connection: HTTPConnection, _ interest: HTTPConnection.Interest) {
    watched.append(connection)
    fds.append(pollfd(fd: connection.fd, events: Self.events(interest), revents: 0))
  }

  private static func events(_ interest: HTTPConnection.Interest) -> Int16 {
    Int16(interest == .read ? POLLIN : POLLOUT)
  }

  /// Removes slot `i` (the last slot takes its place).
  private func unwatch(_ i: Int) -> HTTPConnection {
    let connection = watched[i - Self.fixedSlots]
    watched[i - Self.fixedSlots] = watched[watched.count - 1]
    watched.removeLast()
    fds[i] = fds[fds.count - 1]
    fds.removeLast()
    return connection
  }

  private func close(_ connection: HTTPConnection) {
    _ = systemClose(connection.fd)
    open -= 1
    pool.released(index)
    acceptBlocked = false
  }

  /// Slot `i` was readable (and has been read), writable (or hung up), or has requests left
  /// from the last turn.
  private func ready(_ i: Int) {
    let connection = watched[i - Self.fixedSlots]
    guard !connection.state.ended else {
      close(unwatch(i))
      return
    }
    settle(connection, at: i)
  }

  /// Applies what the connection needs next to the one in slot `i` (nil: not watched yet).
  /// A request the quick handler answers is answered here, with no hand-off to a worker.
  /// At most `requestsPerTurn` requests are answered; a connection with more left yields (it is
  /// not read meanwhile, so its backlog stays bounded) and is settled again next turn.
  private func settle(_ connection: HTTPConnection, at i: Int?) {
    connection.yielded = false
    var answered = 0
    var next = connection.advance()
    while next == .handle, let quick = server.quickHandler, let pending = connection.state.pending {
      if answered == Self.requestsPerTurn, let i {
        connection.yielded = true
        yielded += 1
        fds[i].events = 0
        return
      }
      guard let answer = quick(pending.request) else {
        // The worker that takes the request runs the handler without asking again.
        connection.quickDeclined = true
        break
      }
      answered += 1
      connection.respond(answer)
      next = connection.advance()
    }
    switch next {
    case .wait(let interest):
      if let i {
        fds[i].events = Self.events(interest)
      } else {
        add(connection, interest)
      }
    case .close:
      if let i { _ = unwatch(i) }
      close(connection)
    case .handle:
      if let i { _ = unwatch(i) }
      withWorkers += 1
      pool.enqueue(connection)
    }
  }

  /// Connections the workers have answered, and new ones another loop accepted for this one.
  private func takeBack() {
    let (returned, arrived) = pool.takeBack(index)
    for connection in arrived {
      open += 1
      add(connection, .read)
    }
    for (connection, next) in returned {
      withWorkers -= 1
      switch next {
      case .close: close(connection)
      case .wait(let interest): add(connection, interest)
      case .handle:
        withWorkers += 1
        pool.enqueue(connection)
      }
    }
  }

  /// Accepts until the listener is empty or every loop holds its share, each connection for
  /// the loop `WorkerPool.place(acceptedBy:cpu:)` chooses.
  private func accept() {
    while pool.hasRoom {
      var peer = sockaddr_storage()
      var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let fd = withUnsafeMutablePointer(to: &peer) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemAccept(listener, $0, &length) }
      }
      if fd < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        if errno == EMFILE || errno == ENFILE {
          // Out of descriptors: wait for a close or, doubling from 10 ms to 1 s, a retry.
          acceptBackoff = min(1_000_000_000, max(10_000_000, acceptBackoff &* 2))
          acceptRetry = server.clock.nanoseconds() &+ acceptBackoff
          acceptBlocked = true
        }
        return
      }
      acceptBackoff = 0
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      var one: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      #endif
      let target = pool.place(acceptedBy: index, cpu: Self.incomingCPU(fd))
      let connection = HTTPConnection(fd: fd, peer: HTTPServer.describe(&peer), server: server, loop: target)
      if target == index {
        open += 1
        add(connection, .read)
      } else {
        pool.hand(connection, to: target)
      }
    }
  }

  /// The CPU that last handled the connection's incoming packets (on loopback, the client's
  /// when it connected); nil where the system does not say.
  private static func incomingCPU(_ fd: Int32) -> Int? {
    #if os(Linux)
      var cpu: Int32 = -1
      var length = socklen_t(MemoryLayout<Int32>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &length) == 0, cpu >= 0 else { return nil }
      return Int(cpu)
    #else
      return nil
    #endif
  }

  // MARK: Timeouts and stopping

  /// Carries out the deadlines that passed (`HTTPConnectionState.expire`): closes idle
  /// connections past `idleTimeout` and writes past `writeTimeout`, answers 408 to requests not
  /// complete within `requestTimeout`.
  private func sweep(_ now: UInt64) {
    var i = fds.count - 1
    while i >= Self.fixedSlots {
      let c = watched[i - Self.fixedSlots]
      switch c.state.expire(now: now) {
      case .none: break
      case .close: close(unwatch(i))
      case .refused(let answer):
        c.log(answer)
        settle(c, at: i)
      }
      i -= 1
    }
  }

  /// Closes every connection of this loop: the watched ones at once, the others once their
  /// worker is done.
  private func shutDown() {
    pool.stopping()
    while let connection = watched.popLast() {
      _ = connection
      close(connection)
    }
    fds.removeSubrange(Self.fixedSlots...)
    while withWorkers > 0 {
      var slot = [pollfd(fd: pool.wakeRead(index), events: Int16(POLLIN), revents: 0)]
      _ = poll(&slot, 1, -1)
      let (returned, arrived) = pool.takeBack(index)
      for connection in arrived {
        _ = systemClose(connection.fd)
        pool.released(index)
      }
      for (connection, _) in returned {
        withWorkers -= 1
        close(connection)
      }
    }
  }
}

/// The C functions whose names the loop's own methods shadow.
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
  accept(fd, address, &length)
}
