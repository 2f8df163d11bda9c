import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A tiny HTTP server for transport tests: listens on 127.0.0.1 or ::1, port 0 (the kernel
/// picks), serves one connection at a time on its own thread, and records what it saw. Every
/// wait in it also watches a wake-up pipe, so `stop()` always ends it.
final class TestHTTPServer: @unchecked Sendable {
  enum Family: Sendable { case ipv4, ipv6 }

  enum Behavior: Sendable {
    /// Reads the request, answers `status` with `headers` and `body` (Content-Length added), closes.
    case respond(status: Int, headers: [String: String] = [:], body: String = "")
    /// Reads the request, sends `bytes` as they are, closes.
    case raw(String)
    /// Reads the request, answers 200 without a length and sends body bytes until the client
    /// goes away (or `endlessCap` bytes, a guard against a client that never stops reading).
    case endless
    /// Reads the request and never answers; waits until the client closes.
    case silent
    /// Sends `bytes` as soon as the connection is accepted, without reading, and closes (a
    /// server that speaks first, or speaks no TLS to a TLS client).
    case greet(String)
    /// A keep-alive receiver: reads requests one after another on the connection, taking the
    /// next step for each (an answer with Content-Length and no `Connection: close`, or closing
    /// without an answer, or never answering); closes when the steps run out.
    case keepAlive([KeptStep])
  }

  struct Request: Sendable {
    var method: String
    var target: String
    var version: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    func headerCount(_ name: String) -> Int { headers.filter { $0.name.lowercased() == name.lowercased() }.count }
  }

  static let endlessCap = 512 * 1024 * 1024
  /// Bytes after which `.endless` gives up (a guard, not a behaviour under test).
  let endlessCap: Int

  let port: Int
  let family: Family
  /// `http://127.0.0.1:PORT` or `http://[::1]:PORT`.
  var base: String { family == .ipv4 ? "http://127.0.0.1:\(port)" : "http://[::1]:\(port)" }

  private let listener: Int32
  private let wake: (read: Int32, write: Int32)
  private let behaviors: [Behavior]
  private let lock = NSLock()
  private let changed = NSCondition()
  private var _requests: [Request] = []
  private var _connections = 0
  private var _endlessBytesSent = 0
  private var _endlessFinished = false
  private var _silentClientClosed = false
  private let finished = DispatchSemaphore(value: 0)
  private var stopped = false

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Whether a socket can be bound to ::1 here.
  static let ipv6LoopbackAvailable: Bool = {
    guard let server = try? TestHTTPServer(.ipv6, [.respond(status: 200)]) else { return false }
    server.stop()
    return true
  }()

  /// `behaviors` are used one per connection, the last one for every further connection.
  init(_ family: Family = .ipv4, _ behaviors: [Behavior], endlessCap: Int = TestHTTPServer.endlessCap) throws {
    precondition(!behaviors.isEmpty)
    self.endlessCap = endlessCap
    self.family = family
    self.behaviors = behaviors
    let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, Self.streamType, 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var rc: Int32
    var boundPort: UInt16 = 0
    switch family {
    case .ipv4:
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = 0
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      if rc == 0 {
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        rc = withUnsafeMutablePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        boundPort = UInt16(bigEndian: address.sin_port)
      }
    case .ipv6:
      _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = 0
      _ = inet_pton(AF_INET6, "::1", &address.sin6_addr)
      rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
      if rc == 0 {
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        rc = withUnsafeMutablePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        boundPort = UInt16(bigEndian: address.sin6_port)
      }
    }
    if rc == 0 { rc = listen(fd, 16) }
    guard rc == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw Failure(description: "bind/listen on \(family == .ipv4 ? "127.0.0.1" : "::1"): \(reason)")
    }
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else {
      close(fd)
      throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
    }
    listener = fd
    wake = (fds[0], fds[1])
    port = Int(boundPort)
    let thread = Thread { [self] in
      serve()
      finished.signal()
    }
    thread.start()
  }

  deinit { stop() }

  /// Ends the server thread (whatever it is waiting for) and closes every descriptor.
  func stop() {
    lock.lock()
    if stopped {
      lock.unlock()
      return
    }
    stopped = true
    lock.unlock()
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
    finished.wait()
    close(listener)
    close(wake.read)
    close(wake.write)
  }

  var requests: [Request] { locked { _requests } }
  /// Connections accepted.
  var connections: Int { locked { _connections } }
  var endlessBytesSent: Int { locked { _endlessBytesSent } }

  /// Waits until `condition` holds or `guardSeconds` pass (a guard against hanging the test
  /// run, not a timing expectation); returns whether it holds.
  func waitUntil(guardSeconds: TimeInterval = 60, _ condition: (TestHTTPServer) -> Bool) -> Bool {
    let end = Date().addingTimeInterval(guardSeconds)
    changed.lock()
    defer { changed.unlock() }
    while !condition(self) {
      if !changed.wait(until: end) { return condition(self) }
    }
    return true
  }

  var endlessFinished: Bool { locked { _endlessFinished } }
  var silentClientClosed: Bool { locked { _silentClientClosed } }

  // MARK: Serving

  func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  func note(_ change: () -> Void) {
    changed.lock()
    lock.lock()
    change()
    lock.unlock()
    changed.broadcast()
    changed.unlock()
  }

  private enum Wait { case ready, woken }

  /// Waits for `events` on `fd` or the wake-up pipe.
  private func wait(_ fd: Int32, _ events: Int32) -> Wait {
    while true {
      var entries = [
        pollfd(fd: fd, events: Int16(events), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
      ]
      let rc = poll(&entries, 2, -1)
      if rc < 0 && errno == EINTR { continue }
      if entries[1].revents != 0 { return .woken }
      if rc > 0 { return .ready }
    }
  }

  private func serve() {
    var served = 0
    while true {
      guard wait(listener, POLLIN) == .ready else { return }
      let connection = accept(listener, nil, nil)
      if connection < 0 { continue }
      _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL, 0) | O_NONBLOCK)
      #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      #endif
      note { _connections += 1 }
      let behavior = behaviors[min(served, behaviors.count - 1)]
      served += 1
      let keepGoing = handle(connection, behavior)
      close(connection)
      if !keepGoing { return }
    }
  }

  /// false when woken to stop.
  private func handle(_ fd: Int32, _ behavior: Behavior) -> Bool {
    if case .greet(let text) = behavior { return sendAll(fd, Array(text.utf8)) }
    if case .keepAlive(let steps) = behavior { return serveKept(fd, steps) }
    var pending: [UInt8] = []
    guard let request = readRequest(fd, &pending) else { return !isStopping }
    record(request)
    switch behavior {
    case .respond(let status, let headers, let body):
      var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
      for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
      return sendAll(fd, Array((head + "\r\n" + body).utf8))
    case .raw(let text):
      return sendAll(fd, Array(text.utf8))
    case .endless:
      guard sendAll(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n".utf8)) else {
        note { _endlessFinished = true }
        return !isStopping
      }
      let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
      var sent = 0
      while sent < endlessCap {
        let n = chunk.withUnsafeBytes { Self.sendRaw(fd, $0.baseAddress!, $0.count) }
        if n > 0 {
          sent += n
          note { _endlessBytesSent = sent }
          continue
        }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
          if wait(fd, POLLOUT) == .woken {
            note { _endlessFinished = true }
            return false
          }
          continue
        }
        break  // the client went away: EPIPE / ECONNRESET
      }
      note { _endlessFinished = true }
      return true
    case .greet, .keepAlive: return true
    case .silent: return waitForTheClientToClose(fd)
    }
  }

  /// Reads until the client closes; false when woken to stop.
  func waitForTheClientToClose(_ fd: Int32) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      if wait(fd, POLLIN) == .woken { return false }
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
      if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
        note { _silentClientClosed = true }
        return true
      }
    }
  }

  /// Notes a request read.
  func record(_ request: Request) { note { _requests.append(request) } }

  var isStopping: Bool { locked { stopped } }

  /// Reads a request head and its Content-Length body (after the bytes `data` holds, and
  /// leaving there any that follow it); nil if the client closes first.
  func readRequest(_ fd: Int32, _ data: inout [UInt8]) -> Request? {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    var parsed: (request: Request, bodyStart: Int, length: Int)?
    var fresh = !data.isEmpty
    while true {
      if parsed == nil, fresh, let end = Self.find(Array("\r\n\r\n".utf8), in: data) {
        let lines = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let first = lines[0].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard first.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
          guard let colon = line.firstIndex(of: ":") else { continue }
          headers.append(
            (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let request = Request(method: first[0], target: first[1], version: first[2], headers: headers, body: [])
        parsed = (request, end + 4, Int(request.header("Content-Length") ?? "0") ?? 0)
      }
      if let p = parsed, data.count - p.bodyStart >= p.length {
        var request = p.request
        request.body = Array(data[p.bodyStart..<(p.bodyStart + p.length)])
        data.removeFirst(p.bodyStart + p.length)
        return request
      }
      guard wait(fd, POLLIN) == .ready else { return nil }
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
      if n == 0 { return nil }
      if n < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
        return nil
      }
      data += buffer[0..<n]
      fresh = true
    }
  }

  func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Self.sendRaw(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n > 0 {
        offset += n
      } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        if wait(fd, POLLOUT) == .woken { return false }
      } else {
        return true  // the client went away; keep serving
      }
    }
    return true
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
      if Array(haystack[i..<(i + needle.count)]) == needle { return i }
    }
    return nil
  }

  #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    static func sendRaw(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { send(fd, p, n, Int32(MSG_NOSIGNAL)) }
  #else
    static let streamType = SOCK_STREAM
    static func sendRaw(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { send(fd, p, n, 0) }
  #endif
}

/// A port on 127.0.0.1 with nothing listening (bound, then closed).
func unusedLoopbackPort() -> Int {
  let fd = socket(AF_INET, TestHTTPServer.streamType, 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  _ = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}
