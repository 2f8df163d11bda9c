import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 client for plain `http://` delivery over POSIX sockets: one POST per
/// connection (`Connection: close`), one total deadline for resolve + connect + send + receive,
/// no redirects, at most `bodyLimit` response body bytes read before the connection is dropped.
package enum HTTPClient {
  /// Response headers (status line included) larger than this are refused.
  package static let headerLimit = 64 * 1024

  package static func post(
    _ body: [UInt8], to url: HTTPURL, timeout: TimeInterval, bodyLimit: Int, userAgent: String
  ) -> HTTPAttempt {
    let deadline = Deadline(seconds: timeout)
    let timedOut = HTTPText.timedOut(timeout)

    let addresses: [SocketAddress]
    switch SocketAddress.resolve(host: url.host, port: url.port, deadline: deadline) {
    case .success(let list): addresses = list
    case .failure(.timedOut): return .init(status: nil, error: "\(timedOut) resolving \(url.host)")
    case .failure(.failed(let reason)): return .init(status: nil, error: reason)
    }

    let fd: Int32
    switch connect(to: addresses, deadline: deadline) {
    case .success(let socket): fd = socket
    case .failure(.timedOut): return .init(status: nil, error: "\(timedOut) connecting")
    case .failure(.failed(let reason)): return .init(status: nil, error: reason)
    }
    defer { close(fd) }

    var request = Array(
      ("POST \(url.target) HTTP/1.1\r\n" + "Host: \(url.hostHeader)\r\n" + "Content-Type: application/json\r\n"
        + "Content-Length: \(body.count)\r\n" + "Connection: close\r\n" + "User-Agent: \(userAgent)\r\n"
        + "Accept: */*\r\n\r\n").utf8)
    request += body

    // A server may answer (and close) before reading the whole request: if sending fails, a
    // response already there still decides the attempt.
    let sendFailure = send(request, on: fd, deadline: deadline)
    if case .timedOut? = sendFailure { return .init(status: nil, error: "\(timedOut) sending the request") }
    var response = ResponseReader(bodyLimit: bodyLimit)
    let outcome = response.read(from: fd, deadline: deadline)
    if let status = response.status {
      var attempt = HTTPAttempt(status: status, error: nil, bodyBytesRead: response.bodyBytesRead)
      attempt.body = response.body
      if case .done = outcome {} else { attempt.complete = false }
      if (300..<400).contains(status) {
        let to = response.location.map { " to \(HTTPText.printable($0, limit: 100))" } ?? ""
        attempt.error = "redirect (HTTP \(status)\(to)) not followed"
      }
      return attempt
    }
    if case .failed(let reason)? = sendFailure {
      return .init(status: nil, error: "sending the request failed: \(reason)")
    }
    switch outcome {
    case .timedOut: return .init(status: nil, error: "\(timedOut) waiting for the response")
    case .failed(let reason): return .init(status: nil, error: reason)
    case .done: return .init(status: nil, error: "no response")
    }
  }

  package enum Failure: Error { case timedOut, failed(String) }

  // MARK: Connect

  private static func connect(to addresses: [SocketAddress], deadline: Deadline) -> Result<Int32, Failure> {
    var lastError = "no address to connect to"
    for address in addresses {
      if deadline.expired { return .failure(.timedOut) }
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
  private static func send(_ bytes: [UInt8], on fd: Int32, deadline: Deadline) -> Failure? {
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
    package var bodyBytesRead = 0
    /// The body bytes read as they came (chunk framing included; see `body`).
    private var raw: [UInt8] = []
    private var head: [UInt8] = []
    private var contentLength: Int?
    private var chunked = false
    private var bodyless = false
    private var tail: [UInt8] = []

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

    package mutating func read(from fd: Int32, deadline: Deadline) -> Outcome {
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
          if status != nil { return .done }
          return .failed(
            head.isEmpty
              ? "connection closed without a response" : "connection closed in the middle of the response headers")
        }
        if n < 0 {
          let code = errno
          if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
          return .failed(errorText(code))
        }
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
        contentLength = headers["content-length"].flatMap { Int($0) }
        chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        bodyless = code == 204 || code == 304 || code < 200
        head = []
        countBody(rest[...])
      }
      return nil
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

  package static func wait(_ fd: Int32, for events: Int16, deadline: Deadline) -> Readiness {
    while true {
      let remaining = deadline.remainingMilliseconds
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

/// Unqualified names for the C functions the enum's own `connect`/`send` shadow.
package enum Glue {
  package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
      Glibc.connect(fd, address, length)
    #else
      Darwin.connect(fd, address, length)
    #endif
  }
  package static func send(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
      Glibc.send(fd, bytes, count, flags)
    #else
      Darwin.send(fd, bytes, count, flags)
    #endif
  }
  package static func recv(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
      Glibc.recv(fd, bytes, count, flags)
    #else
      Darwin.recv(fd, bytes, count, flags)
    #endif
  }
}

/// A monotonic deadline.
package struct Deadline: Sendable {
  package let end: UInt64

  package init(seconds: TimeInterval) {
    end = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1_000_000_000)
  }

  package var expired: Bool { DispatchTime.now().uptimeNanoseconds >= end }

  package var remainingSeconds: TimeInterval {
    let now = DispatchTime.now().uptimeNanoseconds
    return now >= end ? 0 : TimeInterval(end - now) / 1_000_000_000
  }

  /// Rounded up so a poll never returns just before the deadline; at most Int32.max.
  package var remainingMilliseconds: Int32 {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now < end else { return 0 }
    return Int32(min(UInt64(Int32.max), (end - now + 999_999) / 1_000_000))
  }
}

/// One resolved socket address.
package struct SocketAddress: Sendable {
  package var family: Int32
  package var bytes: [UInt8]

  package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    bytes.withUnsafeBytes { raw in
      body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
    }
  }

  /// Whether `host` is a numeric IPv4 or IPv6 address (not a name).
  package static func isNumeric(_ host: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
  }

  /// Addresses of `host` (a name or a numeric address), in getaddrinfo's order. Numeric hosts
  /// never touch the resolver; names are resolved on a helper thread so the deadline holds
  /// (a resolver that outlives it is abandoned and finishes on its own).
  package static func resolve(
    host: String, port: Int, deadline: Deadline
  ) -> Result<[SocketAddress], HTTPClient.Failure> {
    if isNumeric(host) { return lookup(host: host, port: port, numeric: true) }

    let box = Mutex<Result<[SocketAddress], HTTPClient.Failure>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      let result = lookup(host: host, port: port, numeric: false)
      box.withLock { $0 = result }
      done.signal()
    }
    thread.start()
    if done.wait(timeout: .now() + deadline.remainingSeconds) == .timedOut { return .failure(.timedOut) }
    return box.withLock { $0 } ?? .failure(.failed("cannot resolve '\(host)'"))
  }

  private static func lookup(host: String, port: Int, numeric: Bool) -> Result<[SocketAddress], HTTPClient.Failure> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = HTTPClient.streamSocketType
    hints.ai_flags = AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0)
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &list)
    guard rc == 0, let first = list else {
      let reason = rc == EAI_SYSTEM ? HTTPClient.errorText(errno) : String(cString: gai_strerror(rc))
      return .failure(.failed("cannot resolve '\(host)': \(reason.prefix(1).lowercased() + reason.dropFirst())"))
    }
    defer { freeaddrinfo(first) }
    var result: [SocketAddress] = []
    var node: UnsafeMutablePointer<addrinfo>? = first
    while let entry = node {
      if let address = entry.pointee.ai_addr, entry.pointee.ai_family == AF_INET || entry.pointee.ai_family == AF_INET6
      {
        let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
        result.append(SocketAddress(family: entry.pointee.ai_family, bytes: bytes))
      }
      node = entry.pointee.ai_next
    }
    return result.isEmpty ? .failure(.failed("cannot resolve '\(host)': no IPv4 or IPv6 address")) : .success(result)
  }
}
