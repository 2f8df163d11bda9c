import Foundation
import StoreSimSignals
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 server on POSIX sockets: keep-alive, one poll() event loop per core reading
/// requests from non-blocking sockets and writing answers, a bounded pool of worker threads
/// running `handler`, limits on header and body size and on idle and slow clients. It answers
/// every request with `handler` and knows nothing of the App Store.
package final class HTTPServer: Sendable {
  package struct Limits: Sendable {
    /// Request line and header fields together.
    package var headerBytes = 16 * 1024
    package var bodyBytes = 1 << 20
    /// The body limit of one request by method and target, when it is not `bodyBytes` (nil:
    /// `bodyBytes` for every request). Asked by the event loop once the head has arrived: it
    /// must not wait.
    package var bodyBytesFor: (@Sendable (_ method: String, _ target: String) -> Int?)?

    package init() {}
    /// How long a kept-alive connection may wait for its next request.
    package var idleTimeout: Duration = .seconds(30)
    /// How long a request may take to arrive once its first byte has (then 408).
    package var requestTimeout: Duration = .seconds(10)
    /// How long writing a response may take.
    package var writeTimeout: Duration = .seconds(10)
    /// Connections held open at once (at most the process's file limit allows); more wait in
    /// the listen queue until one closes.
    package var connections = 4096
    /// Threads running the handler: a slow answer holds one of them, never the event loop.
    package var workers = 16
    /// Event loops, each a thread reading and writing its share of the connections (at most
    /// one per connection allowed).
    package var eventLoops = ProcessInfo.processInfo.activeProcessorCount
  }

  /// What the handler answers: status and JSON body.
  package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
  /// An answer the event loop may give itself, without a hand-off to a worker: it must not
  /// wait (no lock wait, no network, no long computation). nil: a worker runs `handler`.
  /// Whatever it answers must be what `handler` would answer.
  package typealias QuickHandler = @Sendable (HTTPRequest) -> HTTPResponse?
  /// The JSON body of a response the server makes itself (a malformed or oversized request,
  /// too many connections, a slow client), from its status and a sentence saying why.
  package typealias RefusalBody = @Sendable (_ status: Int, _ message: String) -> String

  /// One answered request, for the log: who asked, what (nil when the request line was
  /// unreadable), the status, the body's size and how long the request took.
  package struct LogEntry: Sendable {
    package var peer: String
    package var method: String?
    package var target: String?
    package var status: Int
    package var bytes: Int
    package var milliseconds: Double
  }

  package let limits: Limits
  package let handler: Handler
  /// Answers the event loop gives itself (nil: every request goes to a worker).
  package let quickHandler: QuickHandler?
  /// One line per request (nil: quiet).
  package let log: (@Sendable (LogEntry) -> Void)?
  package let refusalBody: RefusalBody
  /// The one clock of the transport: its timeouts, the log's times and a request's `received`
  /// are readings of it.
  package let clock: WaitClock
  /// What every connection's state starts from (the limits as it counts them, the refusals).
  let connectionConfiguration: HTTPConnectionState.Configuration
  private let listener: Int32
  /// The bound port (the one picked when asked for port 0).
  package let port: Int
  /// The connections the server holds at once: `limits.connections`, or fewer when the file
  /// limit (`fileLimit`) leaves less once the descriptors already open and those kept for
  /// answering (reading the session, saving it, delivering notifications) are counted.
  package let connectionBudget: Int
  /// The process's limit on open files when the server started (after raising it).
  package let fileLimit: Int
  package let host: String
  /// Readable once `stop()` was called: every poll of the server watches it.
  private let wakeRead: Int32
  package let wakeWrite: Int32

  package enum StartError: Error, CustomStringConvertible {
    case address(String)
    case system(String)
    package var description: String {
      switch self {
      case .address(let s), .system(let s): return s
      }
    }
  }

  /// `bind` to a `sockaddr_in` or `sockaddr_in6`.
  private static func bindSocket<Address>(_ fd: Int32, to address: inout Address) -> Int32 {
    withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
    }
  }

  /// A refusal body that says why in one JSON field: `{"error": "..."}`.
  package static let plainRefusal: RefusalBody = { _, message in
    var escaped = ""
    for scalar in message.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return "{\"error\":\"\(escaped)\"}"
  }

  /// Binds and listens on `host` (a numeric IPv4 or IPv6 address, or `localhost`) and `port`.
  /// - Parameter clock: the monotonic clock of the transport (a handler that compares a
  ///   request's `received` with its own readings must read the same clock).
  package init(
    host: String, port: Int, limits: Limits = Limits(), clock: WaitClock = .system,
    log: (@Sendable (LogEntry) -> Void)?, refusalBody: @escaping RefusalBody = HTTPServer.plainRefusal,
    quickHandler: QuickHandler? = nil, handler: @escaping Handler
  ) throws {
    self.limits = limits
    self.clock = clock
    connectionConfiguration = HTTPConnectionState.Configuration(limits, refusalBody: refusalBody)
    self.quickHandler = quickHandler
    self.refusalBody = refusalBody
    self.handler = handler
    self.log = log
    let address = host == "localhost" ? "127.0.0.1" : host
    var v4 = sockaddr_in()
    var v6 = sockaddr_in6()
    let family: Int32
    if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
      family = AF_INET
    } else if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
      family = AF_INET6
    } else {
      throw StartError.address("'\(host)' is not an IPv4 or IPv6 address")
    }
    guard (0...65535).contains(port) else { throw StartError.address("port \(port) is not between 0 and 65535") }
    let fd = socket(family, HTTPClient.streamSocketType, 0)
    guard fd >= 0 else { throw StartError.system("cannot create a socket: \(HTTPClient.errorText(errno))") }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound: Int32
    if family == AF_INET {
      #if canImport(Darwin)
        v4.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
      #endif
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = in_port_t(UInt16(port).bigEndian)
      bound = Self.bindSocket(fd, to: &v4)
    } else {
      #if canImport(Darwin)
        v6.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
      #endif
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = in_port_t(UInt16(port).bigEndian)
      bound = Self.bindSocket(fd, to: &v6)
    }
    guard bound == 0, listen(fd, 4096) == 0 else {
      let reason = HTTPClient.errorText(errno)
      close(fd)
      throw StartError.system("cannot listen on \(host) port \(port): \(reason)")
    }
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    let boundPort = withUnsafePointer(to: &storage) { p -> UInt16 in
      family == AF_INET
        ? p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        : p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
    }
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else {
      close(fd)
      throw StartError.system("cannot create a pipe: \(HTTPClient.errorText(errno))")
    }
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(pipeEnds[1], F_SETFL, O_NONBLOCK)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    listener = fd
    self.port = Int(boundPort)
    self.host = address
    wakeRead = pipeEnds[0]
    wakeWrite = pipeEnds[1]
    (connectionBudget, fileLimit) = Self.budget(limits)
  }

  /// The connections the file limit leaves room for (at least 1), and the limit: each event
  /// loop's wake pipe takes two descriptors, answering keeps a reserve of a quarter of the limit
  /// (16 to 64).
  static func budget(_ limits: Limits) -> (connections: Int, fileLimit: Int) {
    let fileLimit = FileLimit.raise()
    let reserve = min(64, max(16, fileLimit / 4))
    let room = fileLimit - FileLimit.inUse() - 2 * max(1, limits.eventLoops) - reserve
    return (max(1, min(limits.connections, room)), fileLimit)
  }

  deinit {
    close(wakeRead)
    close(wakeWrite)
  }

  /// `http://127.0.0.1:PORT` (IPv6 in brackets).
  package var baseURL: String { host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)" }

  /// Asks the server to stop: `run` returns once every connection is closed. Async-signal-safe
  /// in effect (one `write` to a pipe), so a signal handler may do the same with `wakeWrite`.
  package func stop() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// Serves until `stop()`: event loops (this thread and `limits.eventLoops - 1` others) read
  /// requests and write answers, `limits.workers` threads run the handler. Returns once every connection is closed (a
  /// request being answered is answered first, with `Connection: close`).
  package func run() {
    let connections = connectionBudget
    let count = max(1, min(limits.eventLoops, connections))
    let shares = (0..<count).map { i in connections / count + (i < connections % count ? 1 : 0) }
    let pool = WorkerPool(server: self, count: max(1, limits.workers), shares: shares)
    let loops = (0..<count).map { i in
      EventLoop(
        server: self, listener: listener, stopPipe: wakeRead, pool: pool, index: i, maxConnections: shares[i])
    }
    pool.start()
    let done = Condition(0)
    for loop in loops.dropFirst() {
      let thread = Thread {
        ProcessSignals.blockStopping()
        loop.run()
        done.withLock(waking: .all) { $0 += 1 }
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    loops[0].run()
    done.wait(for: { $0 == count - 1 ? () : nil })
    pool.closeUntaken()
    pool.finish()
    close(listener)
  }

  static func describe(_ peer: inout sockaddr_storage) -> String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    return withUnsafePointer(to: &peer) { p -> String in
      if Int32(p.pointee.ss_family) == AF_INET {
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
          var addr = a.pointee.sin_addr
          inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
          return Self.text(text) + ":\(UInt16(bigEndian: a.pointee.sin_port))"
        }
      }
      return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
        var addr = a.pointee.sin6_addr
        inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
        return "[" + Self.text(text) + "]:\(UInt16(bigEndian: a.pointee.sin6_port))"
      }
    }
  }

  /// A C string in a buffer, up to its NUL.
  private static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
