import Foundation
import StoreSimHTTP
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A running `HTTPServer` on 127.0.0.1, port 0 (the kernel picks), and the thread that runs it.
final class RunningHTTPServer: @unchecked Sendable {
  let server: HTTPServer
  let done = DispatchSemaphore(value: 0)
  let lock = NSLock()
  var logged: [String] = []

  /// `log`, when given, also gets every entry (as `serve` hands them to its log).
  init(
    limits: HTTPServer.Limits = HTTPServer.Limits(), clock: WaitClock = .system,
    quickHandler: HTTPServer.QuickHandler? = nil,
    refusalBody: @escaping HTTPServer.RefusalBody = HTTPServer.plainRefusal,
    log: (@Sendable (HTTPServer.LogEntry) -> Void)? = nil, handler: @escaping HTTPServer.Handler
  ) throws {
    let box = HTTPLogBox()
    server = try HTTPServer(
      host: "127.0.0.1", port: 0, limits: limits, clock: clock,
      log: {
        box.append("\($0.status)")
        log?($0)
      }, refusalBody: refusalBody, quickHandler: quickHandler,
      handler: handler)
    logBox = box
    let server = self.server
    let done = self.done
    Thread {
      server.run()
      done.signal()
    }.start()
  }
  let logBox: HTTPLogBox

  func stop() {
    server.stop()
    done.wait()
  }
}

/// The status of every answer the server logged.
final class HTTPLogBox: @unchecked Sendable {
  let lock = NSLock()
  var lines: [String] = []
  func append(_ s: String) { lock.withLock { lines.append(s) } }
}

/// A blocking client connection to 127.0.0.1.
final class HTTPTestClient {
  let fd: Int32
  var buffer: [UInt8] = []

  init(port: Int) throws {
    fd = socket(AF_INET, HTTPClient.streamSocketType, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glue.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard rc == 0 else { throw ConnectFailed(port: port) }
    // A server that never answers fails the test (response() is nil) instead of holding up the run.
    var limit = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(fd) }

  func send(_ text: String) { send(bytes: Array(text.utf8)) }

  func send(bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { Glue.send(fd, $0.baseAddress!, bytes.count, HTTPClient.sendFlags) }
  }

  /// Reads one response: status, headers (lowercased names) and body; nil when the server
  /// closed the connection first.
  func response() -> (status: Int, headers: [String: String], body: String)? {
    while true {
      if let end = find() {
        let head = String(decoding: buffer[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
          let parts = line.split(separator: ":", maxSplits: 1)
          headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0")!
        while buffer.count < end + 4 + length { guard read() else { return nil } }
        let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        buffer.removeFirst(end + 4 + length)
        let status = Int(head[0].split(separator: " ")[1])!
        return (status, headers, body)
      }
      guard read() else { return nil }
    }
  }

  /// True when the server closed the connection (end of stream) with nothing left to read.
  func closedByServer() -> Bool { buffer.isEmpty && !read() }

  private func read() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    var n = 0
    repeat {
      // A signal to this process (another test's child exiting) interrupts the wait: wait on.
      n = chunk.withUnsafeMutableBytes { Glue.recv(fd, $0.baseAddress!, $0.count, 0) }
    } while n < 0 && errno == EINTR
    guard n > 0 else { return false }
    buffer += chunk[0..<n]
    return true
  }

  private func find() -> Int? {
    guard buffer.count >= 4 else { return nil }
    for i in 0...(buffer.count - 4)
    where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 { return i }
    return nil
  }

  /// The connection to 127.0.0.1 was refused.
  struct ConnectFailed: Error {
    var port: Int
  }
}
