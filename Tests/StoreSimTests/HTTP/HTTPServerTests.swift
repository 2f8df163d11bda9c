import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimSession

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The server's transport on a real socket (127.0.0.1, port 0), started and stopped by each test.
@Suite struct HTTPServerTests {
  /// A running server and the thread that runs it.
  final class Running: @unchecked Sendable {
    let server: HTTPServer
    let done = DispatchSemaphore(value: 0)
    let lock = NSLock()
    var logged: [String] = []

    init(
      limits: HTTPServer.Limits = HTTPServer.Limits(), quickHandler: HTTPServer.QuickHandler? = nil,
      handler: @escaping HTTPServer.Handler
    ) throws {
      let box = LogBox()
      server = try HTTPServer(
        host: "127.0.0.1", port: 0, limits: limits, log: { box.append("\($0.status)") }, quickHandler: quickHandler,
        handler: handler)
      logBox = box
      let server = self.server
      let done = self.done
      Thread {
        server.run()
        done.signal()
      }.start()
    }
    let logBox: LogBox

    func stop() {
      server.stop()
      done.wait()
    }
  }

  final class LogBox: @unchecked Sendable {
    let lock = NSLock()
    var lines: [String] = []
    func append(_ s: String) { lock.withLock { lines.append(s) } }
  }

  /// A blocking client connection.
  final class Client {
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
      guard rc == 0 else { throw CLIError.failed("connect failed") }
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
      let n = chunk.withUnsafeMutableBytes { Glue.recv(fd, $0.baseAddress!, $0.count, 0) }
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
  }

  /// The echo server with some of its limits changed.
  static func echoServer(limits change: (inout HTTPServer.Limits) -> Void) throws -> Running {
    var limits = HTTPServer.Limits()
    change(&limits)
    return try Running(limits: limits, handler: echo)
  }

  static let echo: HTTPServer.Handler = { request in
    HTTPResponse(
      status: request.path == "/missing" ? 404 : 200,
      body: JSONOutput.object([
        "method": .string(request.method), "path": .string(request.path), "body": .int(Int64(request.body.count)),
      ]).rendered(pretty: false)
    )
  }

  @Test func keepAliveAnswersSeveralRequestsOnOneConnection() throws {
    let running = try Running(handler: Self.echo)
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    client.send(
      "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /missing HTTP/1.1\r\n\r\n"
    )
    let a = try #require(client.response())
    #expect(a.status == 200)
    #expect(a.headers["connection"] == "keep-alive")
    #expect(a.body == #"{"body":0,"method":"GET","path":"/a"}"#)
    let b = try #require(client.response())
    #expect(b.body == #"{"body":5,"method":"POST","path":"/b"}"#)
    let c = try #require(client.response())
    #expect(c.status == 404)
    client.send("GET /last HTTP/1.1\r\nConnection: close\r\n\r\n")
    let d = try #require(client.response())
    #expect(d.headers["connection"] == "close")
    #expect(client.closedByServer())
    #expect(running.logBox.lock.withLock { running.logBox.lines.count } == 4)
  }

  @Test func severalClientsAtOnce() throws {
    let running = try Running(handler: Self.echo)
    defer { running.stop() }
    let clients = try (0..<8).map { _ in try Client(port: running.server.port) }
    for (i, c) in clients.enumerated() { c.send("GET /\(i) HTTP/1.1\r\n\r\n") }
    for (i, c) in clients.enumerated() {
      #expect(c.response()?.body.contains("\"/\(i)\"") == true)
    }
  }

  @Test func limitsAnswerAndClose() throws {
    let running = try Self.echoServer {
      $0.headerBytes = 256
      $0.bodyBytes = 10
    }
    defer { running.stop() }
    let big = try Client(port: running.server.port)
    big.send("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 400) + "\r\n\r\n")
    #expect(big.response()?.status == 431)
    #expect(big.closedByServer())
    let body = try Client(port: running.server.port)
    body.send("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n")
    #expect(body.response()?.status == 413)
    let garbage = try Client(port: running.server.port)
    garbage.send("HELLO\r\n\r\n")
    #expect(garbage.response()?.status == 400)
    let chunked = try Client(port: running.server.port)
    chunked.send("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    #expect(chunked.response()?.status == 501)
  }

  @Test func slowClientsAreAnswered408() throws {
    let running = try Self.echoServer { $0.requestSeconds = 0.2 }
    defer { running.stop() }
    let slow = try Client(port: running.server.port)
    slow.send("GET / HTTP/1.1\r\n")  // never finishes its head
    #expect(slow.response()?.status == 408)
    #expect(slow.closedByServer())
  }

  @Test func idleConnectionsAreClosed() throws {
    let running = try Self.echoServer { $0.idleSeconds = 0.2 }
    defer { running.stop() }
    let idle = try Client(port: running.server.port)
    #expect(idle.closedByServer())
  }

  @Test func stopClosesOpenConnections() throws {
    let running = try Running(handler: Self.echo)
    let client = try Client(port: running.server.port)
    client.send("GET / HTTP/1.1\r\n\r\n")
    #expect(client.response()?.status == 200)
    running.stop()  // returns only once the kept-alive connection is closed
    #expect(client.closedByServer())
  }

  @Test func serveAnswersFromTheSessionFileAndSeesOtherProcessesChanges() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy subscription.pro").code == 0)
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_800_000_000) })
    let parsed = try ArgumentScanner.scan(["serve"], commands: CommandTable.standard)
    let inv = Invocation(arguments: parsed, environment: env, table: CommandTable.standard)
    let location = try SessionLocation(shown: ".storesim/session.json", environment: env)
    let service = SessionService(inv, location: location)
    let running = try Running { service.answer($0) }
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    let auth = ServerAPITests.token(exp: 1_800_000_000 + 600).dropFirst(0)
    func get(_ path: String) -> (status: Int, headers: [String: String], body: String)? {
      client.send("GET \(path) HTTP/1.1\r\nAuthorization: \(auth)\r\n\r\n")
      return client.response()
    }
    #expect(get("/inApps/v1/transactions/2000000000000001")?.status == 200)
    #expect(get("/inApps/v1/transactions/2000000000000002")?.status == 404)
    #expect(cli.run("buy nonconsumable.car").code == 0)
    #expect(get("/inApps/v1/transactions/2000000000000002")?.status == 200)
    // Read without the outbox so far: notification history needs it and must see it all
    // (the notifications storesim attempted to deliver, within the last 30 days).
    cli.run("notifications deliver http://127.0.0.1:9/")
    let history = #"{"startDate":1767139200000,"endDate":9999999999999}"#
    client.send(
      "POST /inApps/v1/notifications/history HTTP/1.1\r\nAuthorization: \(auth)\r\nContent-Length: \(history.utf8.count)\r\n\r\n\(history)"
    )
    let answer = try #require(client.response())
    #expect(answer.status == 200)
    #expect(answer.body.components(separatedBy: "signedPayload").count - 1 == 2)
    client.send("GET /inApps/v1/transactions/2000000000000001 HTTP/1.1\r\n\r\n")
    #expect(client.response()?.status == 401)
  }
}
