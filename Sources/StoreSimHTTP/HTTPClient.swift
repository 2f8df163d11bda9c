import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 client for plain `http://` delivery over POSIX sockets: one total deadline
/// for resolve + connect + send + receive, no redirects, at most `bodyLimit` response body bytes
/// read before the connection is dropped. `post` uses one connection for one POST
/// (`Connection: close`); `post(_:to:timeout:bodyLimit:userAgent:keeping:)` (HTTPClient+Kept)
/// keeps a connection alive to each receiver for a run of POSTs.
package enum HTTPClient {
  /// Response headers (status line included) larger than this are refused.
  package static let headerLimit = 64 * 1024

  package static func post(
    _ body: [UInt8], to url: HTTPURL, timeout: TimeInterval, bodyLimit: Int, userAgent: String
  ) -> HTTPAttempt {
    let deadline = WaitClock.system.deadline(after: timeout)
    let fd: Int32
    switch open(url, deadline: deadline, timeout: timeout) {
    case .success(let socket): fd = socket
    case .failure(let unconnected): return unconnected.attempt
    }
    defer { close(fd) }
    let request = requestBytes(body, to: url, userAgent: userAgent, keepAlive: false)
    return exchange(request, on: fd, deadline: deadline, timeout: timeout, bodyLimit: bodyLimit).attempt
  }

  /// The failed attempt when no connection could be made.
  struct Unconnected: Error { var attempt: HTTPAttempt }

  /// Resolves `url`'s host and connects to the first address that answers.
  static func open(_ url: HTTPURL, deadline: WaitDeadline, timeout: TimeInterval) -> Result<Int32, Unconnected> {
    let addresses: [SocketAddress]
    switch SocketAddress.resolve(host: url.host, port: url.port, deadline: deadline) {
    case .success(let list): addresses = list
    case .failure(.timedOut):
      return .failure(.init(attempt: .init(status: nil, error: "\(HTTPText.timedOut(timeout)) resolving \(url.host)")))
    case .failure(.failed(let reason)): return .failure(.init(attempt: .init(status: nil, error: reason)))
    }
    switch connect(to: addresses, deadline: deadline) {
    case .success(let socket): return .success(socket)
    case .failure(.timedOut):
      return .failure(.init(attempt: .init(status: nil, error: "\(HTTPText.timedOut(timeout)) connecting")))
    case .failure(.failed(let reason)): return .failure(.init(attempt: .init(status: nil, error: reason)))
    }
  }

  /// The request's head and body: `Connection: close` unless the connection is to be kept
  /// (HTTP/1.1 keeps it by default).
  static func requestBytes(_ body: [UInt8], to url: HTTPURL, userAgent: String, keepAlive: Bool) -> [UInt8] {
    var request: [UInt8] = []
    request.reserveCapacity(200 + url.target.utf8.count + url.hostHeader.utf8.count + userAgent.utf8.count + body.count)
    request += "POST ".utf8
    request += url.target.utf8
    request += " HTTP/1.1\r\nHost: ".utf8
    request += url.hostHeader.utf8
    request += "\r\nContent-Type: application/json\r\nContent-Length: ".utf8
    request += String(body.count).utf8
    request += (keepAlive ? "\r\nUser-Agent: " : "\r\nConnection: close\r\nUser-Agent: ").utf8
    request += userAgent.utf8
    request += "\r\nAccept: */*\r\n\r\n".utf8
    request += body
    return request
  }

  /// One request and its response on a connection.
  struct Exchange {
    var attempt: HTTPAttempt
    /// The whole request went out and exactly one whole response came back, framed by its
    /// length (or chunks, or none), HTTP/1.1 without `Connection: close`: the connection can
    /// carry another request.
    var reusable = false
    /// Not one byte came back: the peer closed or reset the connection (a kept connection the
    /// receiver closed while idle).
    var unanswered = false
  }

  static func exchange(
    _ request: [UInt8], on fd: Int32, deadline: WaitDeadline, timeout: TimeInterval, bodyLimit: Int
  ) -> Exchange {
    // A server may answer (and close) before reading the whole request: if sending fails, a
    // response already there still decides the attempt.
    let sendFailure = send(request, on: fd, deadline: deadline)
    if case .timedOut? = sendFailure {
      return .init(attempt: .init(status: nil, error: "\(HTTPText.timedOut(timeout)) sending the request"))
    }
    var response = ResponseReader(bodyLimit: bodyLimit)
    let outcome = response.read(from: fd, deadline: deadline)
    if let status = response.status {
      var attempt = HTTPAttempt(status: status, error: nil, bodyBytesRead: response.bodyBytesRead)
      attempt.body = response.body
      attempt.contentType = response.contentType
      var done = false
      if case .done = outcome { done = true } else { attempt.complete = false }
      if (300..<400).contains(status) {
        let to = response.location.map { " to \(HTTPText.printable($0, limit: 100))" } ?? ""
        attempt.error = "redirect (HTTP \(status)\(to)) not followed"
      }
      return .init(attempt: attempt, reusable: done && sendFailure == nil && response.leavesConnectionReusable)
    }
    let unanswered = !response.receivedAnything
    if case .failed(let reason)? = sendFailure {
      return .init(attempt: .init(status: nil, error: "sending the request failed: \(reason)"), unanswered: unanswered)
    }
    switch outcome {
    case .timedOut:
      return .init(attempt: .init(status: nil, error: "\(HTTPText.timedOut(timeout)) waiting for the response"))
    case .failed(let reason): return .init(attempt: .init(status: nil, error: reason), unanswered: unanswered)
    case .done: return .init(attempt: .init(status: nil, error: "no response"), unanswered: unanswered)
    }
  }

  package enum Failure: Error { case timedOut, failed(String) }

  // MARK: Connect

  private static func connect(to addresses: [SocketAddress], deadline: WaitDeadline) -> Result<Int32, Failure> {
    var lastError = "no address to connect to"
    for address in addresses {
      if deadline.hasPassed { return .failure(.timedOut) }
      let fd = socket(address.family, streamSocketType, 0)
      if fd < 0 {
        lastError = "cannot create a socket: \(errorText(errno))"
        continue
      }
      configure(fd)
      let rc = address.withSockaddr { Glue.connect(fd, $0, $1) }
      let code = rc == 0 ? 0 : errno
      if rc == 0 { return .success(fd) }
      guard code == EINPROGRESS || code == EINTR else {
        lastError = errorText(code)
        close(fd)
        continue
      }
      switch wait(fd, for: Int16(POLLOUT), deadline: deadline) {
      case .timedOut:
        close(fd)
        return .failure(.timedOut)
      case .failed(let reason):
        lastError = reason
        close(fd)
        continue
      case .ready:
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 { error = errno }
        if error == 0 { return .success(fd) }
        lastError = errorText(error)
        close(fd)
      }
    }
    return .failure(.failed(lastError))
  }

  private static func configure(_ fd: Int32) {
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
    #if canImport(Darwin)
      var one: Int32 = 1
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  // MARK: Send

  /// nil when everything was sent.
  private static func send(_ bytes: [UInt8], on fd: Int32, deadline: WaitDeadline) -> Failure? {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        Glue.send(fd, raw.baseAddress! + offset, raw.count - offset, sendFlags)
      }
      if n > 0 {
        offset += n
        continue
      }
      let code = errno
      if n < 0 && code == EINTR { continue }
      if n < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
        switch wait(fd, for: Int16(POLLOUT), deadline: deadline) {
        case .ready: continue
        case .timedOut: return .timedOut
        case .failed(let reason): return .failed(reason)
        }
      }
      return .failed(n < 0 ? errorText(code) : "connection closed")
    }
    return nil
  }

  // MARK: Receive

  /// Reads one response: interim 1xx answers skipped, the status line and headers parsed, then
  /// the body counted (not kept) until its end, EOF, the body limit or the deadline.
  package struct ResponseReader {
    package let bodyLimit: Int
    package var status: Int?
    package var location: String?
    package var contentType: String?
    package var bodyBytesRead = 0
    /// The body bytes read as they came (chunk framing included; see `body`).
    private var raw: [UInt8] = []
    private var head: [UInt8] = []
    private var contentLength: Int?
    private var chunked = false
    private var bodyless = false
    private var tail: [UInt8] = []
    /// Body bytes that came (framing included), also those past the body limit.
    private var received = 0
    /// The final response is HTTP/1.1 and does not say `Connection: close`.
    private var persistent = false
    /// Any byte of a response came.
    package private(set) var receivedAnything = false

    package init(bodyLimit: Int) { self.bodyLimit = max(0, bodyLimit) }

    package enum Outcome { case done, timedOut, failed(String) }

    private var complete: Bool {
      guard status != nil else { return false }
      if bodyless || bodyBytesRead >= bodyLimit { return true }
      if let contentLength, bodyBytesRead >= contentLength { return true }
      if chunked {
        let end: [UInt8] = Array("0\r\n\r\n".utf8)
        if tail.count >= 7 ? Array(tail.suffix(7)) == Array("\r\n0\r\n\r\n".utf8) : tail == end { return true }
      }
      return false
    }

    package mutating func read(from fd: Int32, deadline: WaitDeadline) -> Outcome {
      var chunk = [UInt8](repeating: 0, count: 16 * 1024)
      while !complete {
        switch HTTPClient.wait(fd, for: Int16(POLLIN), deadline: deadline) {
        case .ready: break
        case .timedOut: return .timedOut
        case .failed(let reason): return .failed(reason)
        }
        let room = status == nil ? HTTPClient.headerLimit + 4 - head.count : bodyLimit - bodyBytesRead
        let n = chunk.withUnsafeMutableBytes { Glue.recv(fd, $0.baseAddress!, min($0.count, max(room, 1)), 0) }
        if n == 0 {
          // A declared length or chunked body not read to its end was cut short.
          if status != nil {
            return contentLength != nil || chunked
              ? .failed("connection closed in the middle of the response body") : .done
          }
          return .failed(
            head.isEmpty
              ? "connection closed without a response" : "connection closed in the middle of the response headers")
        }
        if n < 0 {
          let code = errno
          if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
          return .failed(errorText(code))
        }
        receivedAnything = true
        if status == nil {
          head += chunk[0..<n]
          if let failure = parseHead() { return .failed(failure) }
        } else {
          countBody(chunk[0..<n])
        }
      }
      return .done
    }

    private mutating func countBody(_ bytes: ArraySlice<UInt8>) {
      raw += bytes.prefix(max(0, bodyLimit - bodyBytesRead))
      bodyBytesRead = min(bodyLimit, bodyBytesRead + bytes.count)
      received += bytes.count
      tail = Array((tail + bytes).suffix(7))
    }

    /// Parses complete heads in `head`; nil unless the response is malformed.
    private mutating func parseHead() -> String? {
      while status == nil {
        guard let (end, next) = HTTPHead.end(in: head) else {
          if head.count > HTTPClient.headerLimit { return "response headers over \(HTTPClient.headerLimit / 1024) KiB" }
          if head.count >= 5 && !head.starts(with: Array("HTTP/".utf8)) { return notHTTP() }
          return nil
        }
        let rest = Array(head[next...])
        guard let parsed = HTTPHead(head[..<end]) else { return "malformed response header field" }
        guard let code = parsed.statusCode else { return notHTTP() }
        if (100..<200).contains(code) && code != 101 {
          head = rest  // interim response (100 Continue, 103 Early Hints): the real one follows
          continue
        }
        let headers = parsed.fields
        status = code
        location = headers["location"]
        contentType = headers["content-type"]
        contentLength = headers["content-length"].flatMap { Int($0) }
        chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        bodyless = code == 204 || code == 304 || code < 200
        persistent =
          parsed.startBytes.starts(with: Array("HTTP/1.1 ".utf8)) && !HTTPHead.lists(headers["connection"], "close")
        head = []
        countBody(rest[...])
      }
      return nil
    }

    /// After a whole response (`read` returned `.done`): whether the connection can carry another
    /// request. Only a persistent HTTP/1.1 response framed to its exact end qualifies: no body
    /// (and no byte after the head), exactly `Content-Length` bytes, or chunks ending at the last
    /// byte read; a body cut at the limit, or one that ends when the connection closes, does not.
    package var leavesConnectionReusable: Bool {
      guard let status, status >= 200, persistent, received < bodyLimit || received == 0 else { return false }
      if bodyless { return received == 0 }
      if chunked { return contentLength == nil && complete }
      if let contentLength { return received == contentLength }
      return false
    }

    /// The body read, without chunk framing when it was chunked.
    package var body: [UInt8] {
      guard chunked else { return raw }
      var out: [UInt8] = []
      var i = 0
      while i < raw.count {
        guard let lineEnd = (i..<raw.count - 1).first(where: { raw[$0] == 13 && raw[$0 + 1] == 10 }),
          let size = Int(String(String(decoding: raw[i..<lineEnd], as: UTF8.self).prefix { $0 != ";" }), radix: 16),
          size > 0
        else { break }
        let start = lineEnd + 2
        let end = min(start + size, raw.count)
        out += raw[start..<end]
        i = end + 2
      }
      return out
    }

    private func notHTTP() -> String {
      let start = String(decoding: head.prefix(40), as: UTF8.self)
      return "not an HTTP response (starts with '\(HTTPText.printable(start, limit: 40))')"
    }
  }

  // MARK: Waiting

  package enum Readiness { case ready, timedOut, failed(String) }

  package static func wait(_ fd: Int32, for events: Int16, deadline: WaitDeadline) -> Readiness {
    while true {
      let remaining = deadline.pollMilliseconds
      if remaining <= 0 { return .timedOut }
      var entry = pollfd(fd: fd, events: events, revents: 0)
      let rc = poll(&entry, 1, remaining)
      if rc < 0 {
        if errno == EINTR { continue }
        return .failed(errorText(errno))
      }
      if rc == 0 { continue }  // re-checks the deadline
      return .ready  // errors and hang-ups show up in the following call
    }
  }

  package static func errorText(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
  }

  #if canImport(Glibc)
    package static let streamSocketType = Int32(SOCK_STREAM.rawValue)
    package static let sendFlags = Int32(MSG_NOSIGNAL)
  #else
    package static let streamSocketType = SOCK_STREAM
    package static let sendFlags: Int32 = 0
  #endif
}
