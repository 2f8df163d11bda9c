import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 server on POSIX sockets: keep-alive, a thread per connection (capped),
/// limits on header and body size and on idle and slow clients. It answers every request with
/// `handler` and knows nothing of the App Store.
package final class HTTPServer: @unchecked Sendable {
  package struct Limits: Sendable {
    /// Request line and header fields together.
    package var headerBytes = 16 * 1024
    package var bodyBytes = 1 << 20
    /// How long a kept-alive connection may wait for its next request.
    package var idleSeconds: TimeInterval = 30
    /// How long a request may take to arrive once its first byte has.
    package var requestSeconds: TimeInterval = 10
    /// How long writing a response may take.
    package var writeSeconds: TimeInterval = 10
    /// Connections served at once; more are answered 503 and closed.
    package var connections = 64
  }

  /// What the handler answers: status and JSON body.
  package typealias Handler = @Sendable (HTTPRequest) -> (status: Int, body: String)
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
  /// One line per request (nil: quiet).
  package let log: (@Sendable (LogEntry) -> Void)?
  package let refusalBody: RefusalBody
  private let listener: Int32
  /// The bound port (the one picked when asked for port 0).
  package let port: Int
  package let host: String
  /// Readable once `stop()` was called: every poll of the server watches it.
  private let wakeRead: Int32
  package let wakeWrite: Int32
  private let state = NSCondition()
  private var active = 0
  private var stopping = false

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
  package init(
    host: String, port: Int, limits: Limits = Limits(), log: (@Sendable (LogEntry) -> Void)?,
    refusalBody: @escaping RefusalBody = HTTPServer.plainRefusal, handler: @escaping Handler
  ) throws {
    self.limits = limits
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
    guard bound == 0, listen(fd, 128) == 0 else {
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
    listener = fd
    self.port = Int(boundPort)
    self.host = address
    wakeRead = pipeEnds[0]
    wakeWrite = pipeEnds[1]
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

  /// Accepts connections until `stop()`, then waits for the open ones to finish their request.
  package func run() {
    while true {
      var fds = [
        pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let rc = poll(&fds, 2, -1)
      if rc < 0 {
        if errno == EINTR { continue }
        break
      }
      if fds[1].revents != 0 { break }
      guard fds[0].revents != 0 else { continue }
      var peer = sockaddr_storage()
      var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let conn = withUnsafeMutablePointer(to: &peer) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
      }
      guard conn >= 0 else { continue }
      _ = fcntl(conn, F_SETFD, FD_CLOEXEC)
      _ = fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) | O_NONBLOCK)
      var one: Int32 = 1
      setsockopt(conn, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      #if canImport(Darwin)
        setsockopt(conn, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      #endif
      let client = Self.describe(&peer)
      state.lock()
      let admitted = active < limits.connections
      if admitted { active += 1 }
      state.unlock()
      guard admitted else {
        let connection = Connection(fd: conn, peer: client, server: self)
        connection.respond(
          status: 503, body: refusalBody(503, "Too many connections."), keepAlive: false,
          request: nil, started: Deadline(seconds: 0))
        close(conn)
        continue
      }
      let thread = Thread { [self] in
        Self.blockStopSignals()
        var connection = Connection(fd: conn, peer: client, server: self)
        connection.serve()
        close(conn)
        state.lock()
        active -= 1
        state.broadcast()
        state.unlock()
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    close(listener)
    state.lock()
    stopping = true
    while active > 0 { state.wait() }
    state.unlock()
  }

  /// Worker threads leave SIGINT and SIGTERM to the thread that runs the accept loop.
  package static func blockStopSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  private static func describe(_ peer: inout sockaddr_storage) -> String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    return withUnsafePointer(to: &peer) { p -> String in
      if Int32(p.pointee.ss_family) == AF_INET {
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
          var addr = a.pointee.sin_addr
          inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
          return String(cString: text) + ":\(UInt16(bigEndian: a.pointee.sin_port))"
        }
      }
      return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
        var addr = a.pointee.sin6_addr
        inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
        return "[" + String(cString: text) + "]:\(UInt16(bigEndian: a.pointee.sin6_port))"
      }
    }
  }

  /// Whether `stop()` was called (the wake pipe is readable).
  package var stopRequested: Bool {
    var entry = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) > 0
  }

  /// One client connection: requests read and answered in turn until either side closes.
  package struct Connection {
    package let fd: Int32
    package let peer: String
    package let server: HTTPServer
    package var buffer: [UInt8] = []

    package init(fd: Int32, peer: String, server: HTTPServer) {
      self.fd = fd
      self.peer = peer
      self.server = server
    }

    package enum Wait { case ready, timedOut, stopped, failed }

    /// Waits until the socket is readable (or writable), the deadline passes or the server stops.
    package func wait(_ events: Int16, _ deadline: Deadline) -> Wait {
      while true {
        let remaining = deadline.remainingMilliseconds
        if remaining <= 0 { return .timedOut }
        var fds = [
          pollfd(fd: fd, events: events, revents: 0), pollfd(fd: server.wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        let rc = poll(&fds, 2, remaining)
        if rc < 0 {
          if errno == EINTR { continue }
          return .failed
        }
        if rc == 0 { continue }
        if fds[0].revents != 0 { return .ready }
        if fds[1].revents != 0 { return .stopped }
      }
    }

    /// Reads what is available into the buffer; false at end of stream or on an error.
    package mutating func fill() -> Bool {
      var chunk = [UInt8](repeating: 0, count: 16 * 1024)
      while true {
        let n = chunk.withUnsafeMutableBytes { Glue.recv(fd, $0.baseAddress!, $0.count, 0) }
        if n > 0 {
          buffer.append(contentsOf: chunk[0..<n])
          return true
        }
        if n < 0 && errno == EINTR { continue }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
        return false
      }
    }

    package mutating func serve() {
      while true {
        // Idle: wait for the first byte of the next request.
        if buffer.isEmpty {
          guard wait(Int16(POLLIN), Deadline(seconds: server.limits.idleSeconds)) == .ready, fill(), !buffer.isEmpty
          else {
            return
          }
        }
        let started = Deadline(seconds: server.limits.requestSeconds)
        guard let head = readHead(started), let length = bodyLength(head, started),
          let body = readBody(length, head, started)
        else { return }
        let request = HTTPRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        let answer = server.handler(request)
        let keepAlive = head.keepAlive && !server.stopRequested
        guard respond(status: answer.status, body: answer.body, keepAlive: keepAlive, request: head, started: started),
          keepAlive
        else { return }
      }
    }

    /// The request head, taken off the buffer; nil when the connection ends (refused, timed out or closed).
    private mutating func readHead(_ started: Deadline) -> Head? {
      let limits = server.limits
      let tooLarge = "Request header fields too large (limit \(limits.headerBytes) bytes)."
      var headEnd: Int? = Self.find(buffer)
      while headEnd == nil {
        if buffer.count > limits.headerBytes {
          refuse(431, tooLarge, request: nil, started: started)
          return nil
        }
        guard receive(started, lateMessage: "The request did not arrive", request: nil) else { return nil }
        headEnd = Self.find(buffer)
      }
      let end = headEnd!
      if end > limits.headerBytes {
        refuse(431, tooLarge, request: nil, started: started)
        return nil
      }
      guard let head = Head(buffer[0..<end]) else {
        refuse(400, "Malformed HTTP request.", request: nil, started: started)
        return nil
      }
      buffer.removeFirst(end + 4)
      return head
    }

    /// The body's length from `Content-Length` (0 without it); nil when it is refused.
    private func bodyLength(_ head: Head, _ started: Deadline) -> Int? {
      if head.headers["transfer-encoding"] != nil {
        refuse(
          501, "Transfer-Encoding is not supported; send Content-Length.", request: head, started: started)
        return nil
      }
      var length = 0
      if let text = head.headers["content-length"] {
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
          refuse(400, "Invalid Content-Length.", request: head, started: started)
          return nil
        }
        length = n
      }
      if length > server.limits.bodyBytes {
        refuse(
          413, "Request body too large (limit \(server.limits.bodyBytes) bytes).", request: head,
          started: started)
        return nil
      }
      return length
    }

    /// The body, taken off the buffer (answering `Expect: 100-continue` first); nil when the connection ends.
    private mutating func readBody(_ length: Int, _ head: Head, _ started: Deadline) -> [UInt8]? {
      if length > buffer.count, head.headers["expect"]?.lowercased() == "100-continue" {
        guard send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), started) else { return nil }
      }
      while buffer.count < length {
        guard receive(started, lateMessage: "The request body did not arrive", request: head) else { return nil }
      }
      let body = Array(buffer[0..<length])
      buffer.removeFirst(length)
      return body
    }

    /// Waits for more of the request and reads it; false when the connection ends (after a 408
    /// "`lateMessage` within N s." when the request's time is up).
    private mutating func receive(_ started: Deadline, lateMessage: String, request: Head?) -> Bool {
      switch wait(Int16(POLLIN), started) {
      case .ready: return fill()
      case .timedOut:
        refuse(
          408, "\(lateMessage) within \(Int(server.limits.requestSeconds)) s.", request: request,
          started: started)
        return false
      case .stopped, .failed: return false
      }
    }

    /// Answers an error and closes the connection.
    private func refuse(_ status: Int, _ message: String, request: Head?, started: Deadline) {
      respond(
        status: status, body: server.refusalBody(status, message), keepAlive: false, request: request, started: started)
    }

    /// Writes a response and logs it; false when it could not be written.
    @discardableResult
    package func respond(status: Int, body: String, keepAlive: Bool, request: Head?, started: Deadline) -> Bool {
      let bytes = Array(body.utf8)
      var text = "HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n"
      text += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n"
      text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
      let sent = send(Array(text.utf8) + bytes, Deadline(seconds: server.limits.writeSeconds))
      if let log = server.log {
        let elapsed = server.limits.requestSeconds - started.remainingSeconds
        log(
          LogEntry(
            peer: peer, method: request?.method, target: request?.target, status: status, bytes: bytes.count,
            milliseconds: max(0, elapsed) * 1000))
      }
      return sent
    }

    package func send(_ bytes: [UInt8], _ deadline: Deadline) -> Bool {
      var offset = 0
      while offset < bytes.count {
        let n = bytes.withUnsafeBytes {
          Glue.send(fd, $0.baseAddress! + offset, bytes.count - offset, HTTPClient.sendFlags)
        }
        if n > 0 {
          offset += n
          continue
        }
        if n < 0 && errno == EINTR { continue }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
          guard wait(Int16(POLLOUT), deadline) == .ready else { return false }
          continue
        }
        return false
      }
      return true
    }

    /// The index of `\r\n\r\n` in the buffer.
    package static func find(_ buffer: [UInt8]) -> Int? {
      guard buffer.count >= 4 else { return nil }
      for i in 0...(buffer.count - 4)
      where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
        return i
      }
      return nil
    }
  }

  /// A request line and header fields.
  package struct Head {
    package var method: String
    package var target: String
    package var version: String
    package var headers: [String: String] = [:]

    /// Parses the head (without its final CRLF CRLF) from bytes: request line, then fields.
    package init?(_ bytes: ArraySlice<UInt8>) {
      var lines: [ArraySlice<UInt8>] = []
      var start = bytes.startIndex
      var i = bytes.startIndex
      while i < bytes.endIndex {
        if bytes[i] == 13, i + 1 < bytes.endIndex, bytes[i + 1] == 10 {
          lines.append(bytes[start..<i])
          i += 2
          start = i
        } else {
          i += 1
        }
      }
      lines.append(bytes[start..<bytes.endIndex])
      let parts = lines[0].split(separator: 32, omittingEmptySubsequences: false)
      guard parts.count == 3, !parts[0].isEmpty, parts[1].first == UInt8(ascii: "/") else { return nil }
      version = String(decoding: parts[2], as: UTF8.self)
      guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return nil }
      method = String(decoding: parts[0], as: UTF8.self)
      target = String(decoding: parts[1], as: UTF8.self)
      for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let nameBytes = line[line.startIndex..<colon]
        guard !nameBytes.contains(32), !nameBytes.contains(9) else { return nil }
        let name = String(decoding: nameBytes.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        var v = line[(colon + 1)...]
        while let f = v.first, f == 32 || f == 9 { v = v.dropFirst() }
        while let l = v.last, l == 32 || l == 9 { v = v.dropLast() }
        let value = String(decoding: v, as: UTF8.self)
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
      }
    }

    package var keepAlive: Bool {
      let connection = headers["connection"]?.lowercased() ?? ""
      if version == "HTTP/1.0" { return connection.contains("keep-alive") }
      return !connection.contains("close")
    }
  }
}
