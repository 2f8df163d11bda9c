import Foundation
import StoreSimSync
import Testing

@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport

/// The server's transport on a real socket (127.0.0.1, port 0), started and stopped by each test.
@Suite struct HTTPServerTests {
  typealias Running = RunningHTTPServer
  typealias Client = HTTPTestClient

  /// The echo server with some of its limits changed.
  static func echoServer(limits change: (inout HTTPServer.Limits) -> Void) throws -> Running {
    var limits = HTTPServer.Limits()
    change(&limits)
    return try Running(limits: limits, handler: echo)
  }

  static let echo: HTTPServer.Handler = { request in
    HTTPResponse(
      status: request.path == "/missing" ? 404 : 200,
      body: #"{"body":\#(request.body.count),"method":"\#(request.method)","path":"\#(request.path)"}"#
    )
  }

  /// The control API answers 201 when it makes a session: its status line says so by name.
  @Test func everyStatusTheServersAnswerHasItsReasonPhrase() {
    let answered = [200, 201, 202, 204, 400, 401, 403, 404, 405, 408, 409, 413, 422, 429, 431, 500, 501, 503]
    #expect(answered.filter { HTTPStatus.reason($0).hasPrefix("Status ") } == [])
    #expect(HTTPStatus.reason(201) == "Created")
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
    let running = try Self.echoServer { $0.requestTimeout = .milliseconds(200) }
    defer { running.stop() }
    let slow = try Client(port: running.server.port)
    slow.send("GET / HTTP/1.1\r\n")  // never finishes its head
    #expect(slow.response()?.status == 408)
    #expect(slow.closedByServer())
  }

  @Test func idleConnectionsAreClosed() throws {
    let running = try Self.echoServer { $0.idleTimeout = .milliseconds(200) }
    defer { running.stop() }
    let idle = try Client(port: running.server.port)
    #expect(idle.closedByServer())
  }

  /// The server's timeouts are measured on the clock it is given: a connection idle for a
  /// second of real time is closed once its clock says 31 s have passed.
  @Test func theServersTimeoutsRunOnTheClockItIsGiven() throws {
    let reading = Mutex<UInt64>(0)
    let running = try Running(
      limits: {
        var limits = HTTPServer.Limits()
        limits.idleTimeout = .seconds(30)
        return limits
      }(), clock: WaitClock { reading.current }, handler: Self.echo)
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    client.send("GET / HTTP/1.1\r\n\r\n")
    #expect(client.response()?.status == 200)
    // The test's clock moves 31 s at a time, every 100 ms of real time, until the connection is
    // closed: the server may note the connection idle after the response reached the client,
    // at a reading already moved, so one jump alone could leave it 30 s short (a run under load
    // waited out the client's 60 s instead).
    let stop = Mutex(false)
    DispatchQueue.global().async {
      while !stop.withLock({ $0 }) {
        reading.withLock { $0 += 31_000_000_000 }
        usleep(100_000)
      }
    }
    defer { stop.withLock { $0 = true } }
    let start = ContinuousClock.now
    #expect(client.closedByServer())
    #expect(ContinuousClock.now - start < .seconds(10), "closed by the sweep, not by the client's own timeout")
  }

  @Test func stopClosesOpenConnections() throws {
    let running = try Running(handler: Self.echo)
    let client = try Client(port: running.server.port)
    client.send("GET / HTTP/1.1\r\n\r\n")
    #expect(client.response()?.status == 200)
    running.stop()  // returns only once the kept-alive connection is closed
    #expect(client.closedByServer())
  }
}
