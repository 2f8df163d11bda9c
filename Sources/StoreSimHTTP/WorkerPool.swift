import Foundation
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
/// connections given back).
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

  /// Connections given back to one event loop.
  private struct Returns {
    var returned: [(HTTPConnection, HTTPConnection.Next)] = []
    var loopWoken = false
  }

  private let server: HTTPServer
  private let count: Int
  private let jobs = Condition(Jobs())
  /// By event loop.
  private let returns: [Mutex<Returns>]
  private let isStopping = Mutex(false)
  /// By event loop: the pipe that wakes it.
  private let wakeReads: [Int32]
  private let wakeWrites: [Int32]

  init(server: HTTPServer, count: Int, loops: Int) {
    self.server = server
    self.count = count
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
  /// what each needs next.
  func takeBack(_ loop: Int) -> [(HTTPConnection, HTTPConnection.Next)] {
    var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    while withUnsafeMutableBytes(of: &bytes, { read(wakeReads[loop], $0.baseAddress, $0.count) }) == 32 {}
    return returns[loop].withLock { r in
      r.loopWoken = false
      defer { r.returned = [] }
      return r.returned
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
  static let lingerNanoseconds: UInt64 = 20_000_000

  private func work() {
    var scratch = [UInt8](repeating: 0, count: 16 * 1024)
    while let connection = next() {
      var next = HTTPConnection.Next.handle
      let lingerEnd = Clock.now &+ Self.lingerNanoseconds
      var answered = 0
      while true {
        while next == .handle, answered < EventLoop.requestsPerTurn, let (request, head) = connection.pending {
          connection.pending = nil
          // A kept answer first, as the event loop gives it: a connection a worker lingers on
          // keeps the quick path for the requests that follow the one that needed the worker.
          let answer = server.quickHandler?(request) ?? server.handler(request)
          let keepAlive = head.keepAlive && !isStopping.withLock({ $0 })
          connection.respond(answer, keepAlive: keepAlive, head: head)
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
    if wake {
      var byte: UInt8 = 1
      _ = write(wakeWrites[connection.loop], &byte, 1)
    }
  }
}
