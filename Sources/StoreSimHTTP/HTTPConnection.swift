import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One client connection of `HTTPServer`: what has arrived, what is still to be written, and
/// where its request stands. Owned by one thread at a time (the event loop, or the worker the
/// loop handed a complete request to); the hand-over goes through a lock, so no field needs one
/// (hence `@unchecked`).
final class HTTPConnection: @unchecked Sendable {
  let fd: Int32
  let peer: String
  let server: HTTPServer
  /// The event loop that watches it (its index in the server's loops).
  let loop: Int
  /// Bytes read; those from `start` on are not yet taken by a request. Requests are parsed
  /// where they lie and taking one only moves `start`: the bytes before it are dropped when
  /// all are taken, or before a read once they are at least half of the buffer (so each byte
  /// is moved at most once on average, whatever the pipelining).
  private(set) var buffer: [UInt8] = []
  private(set) var start = 0
  /// Bytes read and not yet taken by a request.
  var backlog: Int { buffer.count - start }
  /// The event loop stopped answering its requests for this turn (its share is used): it is
  /// settled again next turn without waiting for the socket.
  var yielded = false
  /// The peer closed its end (or the socket failed) with nothing left to read.
  var ended = false
  /// The answer (or refusal, or `100 Continue`) being written, from `written` on.
  var output: [UInt8] = []
  var written = 0
  /// The head of the request whose body is being read.
  var head: RequestHead?
  var bodyLength = 0
  var sentContinue = false
  /// Close once `output` is written (a refusal, `Connection: close`, the server stopping).
  var closeAfterWrite = false
  /// A complete request waiting for the handler.
  var pending: (request: HTTPRequest, head: RequestHead)?
  /// Monotonic nanoseconds: when the current request's first byte arrived (nil between
  /// requests), when the connection last became idle, when the pending write must be done.
  var requestStart: UInt64?
  var idleSince: UInt64
  var writeDeadline: UInt64 = 0
  /// Monotonic nanoseconds taken after the last read from the socket: every byte in `buffer`
  /// had arrived by then.
  var lastRead: UInt64 = 0

  init(fd: Int32, peer: String, server: HTTPServer, loop: Int = 0) {
    self.fd = fd
    self.peer = peer
    self.server = server
    self.loop = loop
    idleSince = Clock.now
  }

  /// What the connection needs next.
  enum Next: Equatable {
    /// A complete request is in `pending`: run the handler.
    case handle
    /// Wait until the socket is readable (`read`) or writable (`write`).
    case wait(Interest)
    case close
  }

  enum Interest { case read, write }

  /// Writes what it can of `output`, then takes the next request off the buffer: a refusal
  /// becomes the output (and closes after it), a complete request becomes `pending`. Never
  /// blocks: it reads nothing from the socket.
  func advance() -> Next {
    while true {
      if written < output.count {
        switch flush() {
        case .blocked: return .wait(.write)
        case .failed: return .close
        case .done: break
        }
      }
      if closeAfterWrite { return .close }
      if pending != nil { return .handle }
      switch step() {
      case .request(let request, let head):
        pending = (request, head)
        return .handle
      case .needMore:
        if written < output.count { continue }  // 100 Continue to send first
        return .wait(.read)
      case .refuse(let status, let message, let head):
        refuse(status, message, head)
      }
    }
  }

  /// Answers an error and closes the connection after it.
  func refuse(_ status: Int, _ message: String, _ head: RequestHead?) {
    buffer = []
    start = 0
    self.head = nil
    respond(HTTPResponse(status: status, body: server.refusalBody(status, message)), keepAlive: false, head: head)
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
        let now = Clock.now
        if backlog == 0 && requestStart == nil && head == nil { requestStart = now }
        if start > 0 && start >= buffer.count / 2 {
          buffer.removeFirst(start)
          start = 0
        }
        buffer.append(contentsOf: scratch[0..<n])
        lastRead = now
        return true
      }
      if n < 0 && errno == EINTR { continue }
      lastRead = Clock.now
      if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
      ended = true
      return false
    }
  }

  /// Takes `count` bytes off the front of the backlog.
  private func take(_ count: Int) {
    start += count
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
      start = 0
    }
  }

  /// Waits until the socket is readable or `deadline` (monotonic nanoseconds) passes; true when readable.
  func awaitBytes(until deadline: UInt64) -> Bool {
    while true {
      let now = Clock.now
      guard now < deadline else { return false }
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let rc = poll(&entry, 1, Int32((deadline - now + 999_999) / 1_000_000))
      if rc > 0 { return true }
      if rc < 0 && errno != EINTR { return false }
    }
  }

  private enum Step {
    case request(HTTPRequest, RequestHead)
    case needMore
    case refuse(Int, String, RequestHead?)
  }

  /// The next request off the buffer, once it has all arrived.
  private func step() -> Step {
    let limits = server.limits
    if head == nil {
      let blank = HTTPHead.leadingEmptyLines(buffer, from: start)
      if blank > 0 { take(blank) }
      guard backlog > 0 else {
        requestStart = nil
        return .needMore
      }
      if requestStart == nil { requestStart = Clock.now }
      let tooLarge = "Request header fields too large (limit \(limits.headerBytes) bytes)."
      guard let (end, body) = HTTPHead.end(in: buffer, from: start) else {
        return backlog > limits.headerBytes ? .refuse(431, tooLarge, nil) : .needMore
      }
      if end - start > limits.headerBytes { return .refuse(431, tooLarge, nil) }
      guard let parsed = HTTPHead(buffer[start..<end]), let request = RequestHead(parsed) else {
        return .refuse(400, "Malformed HTTP request.", nil)
      }
      take(body - start)
      if let refusal = bodyLength(request) { return refusal }
      head = request
    }
    guard let head else { return .needMore }
    if backlog < bodyLength {
      if !sentContinue, head.fields["expect"]?.lowercased() == "100-continue" {
        sentContinue = true
        setOutput(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
      }
      return .needMore
    }
    let body = Array(buffer[start..<start + bodyLength])
    take(bodyLength)
    self.head = nil
    sentContinue = false
    var request = HTTPRequest(method: head.method, target: head.target, headers: head.fields, body: body)
    request.received = lastRead
    return .request(request, head)
  }

  /// Sets `bodyLength` from `Content-Length` (0 without it); a refusal when it is refused.
  private func bodyLength(_ head: RequestHead) -> Step? {
    if head.fields["transfer-encoding"] != nil {
      return .refuse(501, "Transfer-Encoding is not supported; send Content-Length.", head)
    }
    bodyLength = 0
    if let text = head.fields["content-length"] {
      guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
        return .refuse(400, "Invalid Content-Length.", head)
      }
      bodyLength = n
    }
    let limit = server.limits.bodyBytesFor?(head.method, head.target) ?? server.limits.bodyBytes
    if bodyLength > limit {
      return .refuse(413, "Request body too large (limit \(limit) bytes).", head)
    }
    return nil
  }

  /// Puts a response in `output` (written by the next `advance`) and logs it.
  func respond(_ response: HTTPResponse, keepAlive: Bool, head: RequestHead?) {
    let status = response.status
    if !keepAlive { closeAfterWrite = true }
    setOutput(response.serialized(keepAlive: keepAlive))
    if let log = server.log {
      let length = response.body.utf8.count
      let elapsed = requestStart.map { Double(Clock.now &- $0) / 1_000_000 } ?? 0
      log(
        HTTPServer.LogEntry(
          peer: peer, method: head?.method, target: head?.target, status: status, bytes: length,
          milliseconds: max(0, elapsed)))
    }
    requestStart = nil
  }

  private func setOutput(_ bytes: [UInt8]) {
    if written >= output.count {
      output = bytes
      written = 0
    } else {
      output += bytes
    }
    writeDeadline = Clock.now &+ Clock.nanoseconds(server.limits.writeSeconds)
  }

  private enum Flush { case done, blocked, failed }

  private func flush() -> Flush {
    while written < output.count {
      let n = output.withUnsafeBytes {
        Glue.send(fd, $0.baseAddress! + written, output.count - written, HTTPClient.sendFlags)
      }
      if n > 0 {
        written += n
        continue
      }
      if n < 0 && errno == EINTR { continue }
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .blocked : .failed
    }
    output = []
    written = 0
    if backlog == 0 && head == nil { idleSince = Clock.now }
    return .done
  }
}

/// A request line and header fields.
struct RequestHead: Sendable {
  var method: String
  var target: String
  var version: String
  var fields: [String: String]

  init?(_ head: HTTPHead) {
    guard let line = head.requestLine else { return nil }
    (method, target, version) = line
    fields = head.fields
  }

  var keepAlive: Bool {
    let connection = fields["connection"]
    if version == "HTTP/1.0" { return HTTPHead.lists(connection, "keep-alive") }
    return !HTTPHead.lists(connection, "close")
  }
}
