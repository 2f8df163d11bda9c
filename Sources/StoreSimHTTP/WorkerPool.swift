import Foundation
import StoreSimSignals
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `HTTPServer`'s worker threads, shared by its event loops: each takes a connection with a
/// complete request, runs the handler, writes the answer (as far as the socket takes it without
/// waiting) and answers the requests already read behind it, then gives the connection back to
/// the event loop it came from, which it wakes through that loop's pipe (once per batch of
/// connections given back). It also places new connections: a loop that accepts one gives it
/// to the loop of its client's CPU, or to the loop holding the fewest when that one holds too
/// many (`place(acceptedBy:cpu:)`, `hand(_:to:)`), so the loops share the work however the
/// clients connect.
final class WorkerPool: Sendable {
  /// Connections waiting for a worker, and the workers.
  private struct Jobs {
    var queue: [HTTPConnection] = []
    var queueHead = 0
    var closing = false
    var running = 0
    /// Workers waiting for a connection.
    var idle = 0

    /// The next connection in the queue (nil when it is empty).
    mutating func take() -> HTTPConnection? {
      guard queueHead < queue.count else { return nil }
      let connection = queue[queueHead]
      queueHead += 1
      if queueHead == queue.count {
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
      }
      return connection
    }
  }

  /// Connections given back to one event loop, and new ones another loop accepted for it.
  private struct Returns {
    var returned: [(HTTPConnection, HTTPConnection.Next)] = []
    var arrived: [HTTPConnection] = []
    var loopWoken = false
  }

  private let server: HTTPServer
  private let count: Int
  private let jobs = Condition(Jobs())
  /// By event loop.
  private let returns: [Mutex<Returns>]
  private let isStopping = Mutex(false)
  /// By event loop: the connections it holds (counting those handed to it and not yet taken),
  /// and the most it may hold (its share of the server's connections).
  private let held: Mutex<[Int]>
  private let shares: [Int]
  /// By event loop: the pipe that wakes it.
  private let wakeReads: [Int32]
  private let wakeWrites: [Int32]

  /// - Parameter shares: by event loop, the most connections it may hold.
  init(server: HTTPServer, count: Int, shares: [Int]) {
    self.server = server
    self.count = count
    self.shares = shares
    held = Mutex([Int](repeating: 0, count: shares.count))
    let loops = shares.count
    var reads: [Int32] = []
    var writes: [Int32] = []
    for _ in 0..<loops {
      var ends: [Int32] = [-1, -1]
      if pipe(&ends) != 0 { ends = [-1, -1] }
      for end in ends where end >= 0 {
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        _ = fcntl(end, F_SETFL, O_NONBLOCK)
      }
      reads.append(ends[0])
      writes.append(ends[1])
    }
    wakeReads = reads
    wakeWrites = writes
    returns = (0..<loops).map { _ in Mutex(Returns()) }
  }

  deinit {
    for fd in wakeReads + wakeWrites { close(fd) }
  }

  /// The end of the pipe that wakes event loop `loop` when connections come back to it.
  func wakeRead(_ loop: Int) -> Int32 { wakeReads[loop] }

  func start() {
    jobs.withLock { $0.running = count }
    for _ in 0..<count {
      let thread = Thread { [self] in
        ProcessSignals.blockStopping()
        work()
        jobs.withLock(waking: .all) { $0.running -= 1 }
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
  }

  func enqueue(_ connection: HTTPConnection) {
    jobs.withLock(waking: .one) { $0.queue.append(connection) }
  }

  /// The connections workers have given back to event loop `loop` since its last call, with
  /// what each needs next, and the new connections other loops handed to it.
  func takeBack(_ loop: Int) -> (returned: [(HTTPConnection, HTTPConnection.Next)], arrived: [HTTPConnection]) {
    var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    while withUnsafeMutableBytes(of: &bytes, { read(wakeReads[loop], $0.baseAddress, $0.count) }) == 32 {}
    return returns[loop].withLock { r in
      r.loopWoken = false
      defer {
        r.returned = []
        r.arrived = []
      }
      return (r.returned, r.arrived)
    }
  }

  /// Whether some event loop holds less than its share (else nothing is accepted).
  var hasRoom: Bool {
    held.withLock { held in held.indices.contains { held[$0] < shares[$0] } }
  }

  /// How many more connections than the loop holding the fewest a loop may hold to keep
  /// together the connections of client threads on its CPU (a client's threads usually connect
  /// a few connections each).
  static let pairingSlack = 4

  /// The event loop that is to hold a connection `loop` has just accepted, counted as holding
  /// it. A connection whose client ran on CPU `cpu` when it connected goes to loop `cpu`
  /// (modulo the loops), so that one client thread's connections share a loop, which the
  /// system then runs beside it; unless that loop holds its share, or `pairingSlack` more than
  /// the loop holding the fewest: then the loop holding the fewest takes it (the preferred one
  /// among equals). Either way one client's connections spread over the loops even when one loop
  /// accepts them all (it drains the listener). `loop` itself when every loop holds its share.
  /// (Placed once accepted: a place kept for a connection not yet accepted would count one
  /// that may never come, and send the next elsewhere.)
  func place(acceptedBy loop: Int, cpu: Int? = nil) -> Int {
    held.withLock { held in
      let preferred = cpu.map { $0 % held.count } ?? loop
      var fewest: Int?
      for i in held.indices where held[i] < shares[i] {
        if let f = fewest, held[i] > held[f] || held[i] == held[f] && i != preferred { continue }
        fewest = i
      }
      var chosen = fewest ?? loop
      if let fewest, held[preferred] < shares[preferred], held[preferred] < held[fewest] + Self.pairingSlack {
        chosen = preferred
      }
      held[chosen] += 1
      return chosen
    }
  }

  /// Event loop `loop` no longer holds a connection `place` counted (it closed).
  func released(_ loop: Int) {
    held.withLock { $0[loop] -= 1 }
  }

  /// Gives a new connection to the event loop `place` chose for it, and wakes that loop.
  func hand(_ connection: HTTPConnection, to loop: Int) {
    let wake = returns[loop].withLock { r in
      r.arrived.append(connection)
      defer { r.loopWoken = true }
      return !r.loopWoken
    }
    if wake { self.wake(loop) }
  }

  /// Closes the connections handed to loops that had stopped (after every loop has ended).
  func closeUntaken() {
    for loop in returns.indices {
      for connection in takeBack(loop).arrived { close(connection.fd) }
    }
  }

  /// From now on every answer says `Connection: close`.
  func stopping() { isStopping.withLock { $0 = true } }

  /// Ends the worker threads once the queue is empty, and waits for them.
  func finish() {
    jobs.withLock(waking: .all) { $0.closing = true }
    jobs.wait(for: { $0.running > 0 ? nil : () })
  }

  /// The next connection to serve; nil once the pool is closing and the queue is empty.
  private func next() -> HTTPConnection? {
    jobs.wait(
      for: { j -> HTTPConnection?? in
        if let connection = j.take() { return .some(connection) }
        return j.closing ? .some(nil) : nil
      },
      waiting: { j, waiting in j.idle += waiting ? 1 : -1 })
  }

  /// How long a worker with nothing else to do keeps a kept-alive connection after answering,
  /// waiting for its next request: a client that asks again at once is answered without a trip
  /// through the event loop.
  static let linger: TimeInterval = 0.02

  private func work() {
    var scratch = [UInt8](repeating: 0, count: 16 * 1024)
    while let connection = next() {
      var next = HTTPConnection.Next.handle
      let lingerEnd = server.clock.deadline(after: Self.linger)
      var answered = 0
      while true {
        while next == .handle, answered < EventLoop.requestsPerTurn, let pending = connection.state.pending {
          // A kept answer first, as the event loop gives it: a connection a worker lingers on
          // keeps the quick path for the requests that follow the one that needed the worker.
          // The request the loop handed over was asked already (`quickDeclined`): not again.
          let quick = connection.quickDeclined ? nil : server.quickHandler?(pending.request)
          let answer = quick ?? server.handler(pending.request)
          connection.respond(answer, closing: isStopping.withLock({ $0 }))
          answered += 1
          next = connection.advance()
        }
        // Its share used, a pipelining connection goes back to the end of the queue.
        guard next == .wait(.read), mayLinger(), connection.awaitBytes(until: lingerEnd) else { break }
        next = connection.read(into: &scratch) ? connection.advance() : .close
      }
      giveBack(connection, next)
    }
  }

  /// Whether a worker may keep its connection a little: no connection is waiting for a worker
  /// and another worker is free to take the next one.
  private func mayLinger() -> Bool {
    jobs.withLock { $0.queueHead == $0.queue.count && $0.idle > 0 && !$0.closing }
  }

  private func giveBack(_ connection: HTTPConnection, _ next: HTTPConnection.Next) {
    let wake = returns[connection.loop].withLock { r in
      r.returned.append((connection, next))
      defer { r.loopWoken = true }
      return !r.loopWoken
    }
    if wake { self.wake(connection.loop) }
  }

  private func wake(_ loop: Int) {
    var byte: UInt8 = 1
    _ = write(wakeWrites[loop], &byte, 1)
  }
}
