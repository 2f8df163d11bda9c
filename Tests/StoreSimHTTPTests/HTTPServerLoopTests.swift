import Foundation
import StoreSimSync
import Testing

@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The event loops' own answers (the quick handler), several loops, and prepared responses.
@Suite struct HTTPServerLoopTests {
  typealias Client = HTTPServerTests.Client

  /// Counts the requests that reached the (worker's) handler.
  final class Count: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
  }

  /// A server whose quick handler answers `/quick...` paths and whose handler echoes the rest,
  /// counting them in `handled`.
  static func quickOrEcho(counting handled: Count) throws -> HTTPServerTests.Running {
    try HTTPServerTests.Running(
      quickHandler: { request in
        request.path.hasPrefix("/quick") ? HTTPResponse(status: 200, body: "{\"quick\":\"\(request.path)\"}") : nil
      },
      handler: { request in
        handled.add()
        return HTTPServerTests.echo(request)
      })
  }

  @Test func theQuickHandlerAnswersOnTheLoopAndLeavesTheRestToTheWorkers() throws {
    let handled = Count()
    let running = try Self.quickOrEcho(counting: handled)
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    // Pipelined on one connection: the loop answers the first, a worker the second, in order.
    client.send("GET /quick/0 HTTP/1.1\r\nHost: a\r\n\r\nGET /slow/1 HTTP/1.1\r\nHost: a\r\n\r\n")
    let quick = try #require(client.response())
    #expect(quick.status == 200 && quick.body == "{\"quick\":\"/quick/0\"}")
    #expect(quick.headers["connection"] == "keep-alive")
    #expect(client.response()?.body.contains("\"/slow/1\"") == true)
    #expect(handled.value == 1)
    // (A worker keeps a connection a little after answering, so its next request may be its
    // worker's; another connection's is the loop's.)
    let other = try Client(port: running.server.port)
    other.send("GET /quick/2 HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(other.response()?.body == "{\"quick\":\"/quick/2\"}")
    #expect(handled.value == 1)
    #expect(running.logBox.lock.withLock { running.logBox.lines.count } == 3)
  }

  @Test func aWorkerHoldingAConnectionGivesTheQuickAnswerOfTheRequestsAfterTheOneThatNeededIt() throws {
    let handled = Count()
    let running = try Self.quickOrEcho(counting: handled)
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    // Pipelined on one connection: the first needs a worker, which then holds the connection
    // and answers the two after it; it gives their kept answers, as the loop would.
    client.send(
      "GET /slow/0 HTTP/1.1\r\nHost: a\r\n\r\nGET /quick/1 HTTP/1.1\r\nHost: a\r\n\r\n"
        + "GET /quick/2 HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(client.response()?.body.contains("\"/slow/0\"") == true)
    #expect(client.response()?.body == "{\"quick\":\"/quick/1\"}")
    #expect(client.response()?.body == "{\"quick\":\"/quick/2\"}")
    #expect(handled.value == 1)
  }

  /// The event loop asks the quick handler once for a request; a request it declines goes to a
  /// worker, which runs the handler without asking again (it asks for the requests after it).
  @Test func theQuickHandlerIsAskedOnceForARequestItDeclines() throws {
    let asked = Mutex<[String]>([])
    let handled = Count()
    let running = try HTTPServerTests.Running(
      quickHandler: { request in
        asked.withLock { $0.append(request.path) }
        return request.path.hasPrefix("/quick") ? HTTPResponse(status: 200, body: "{}") : nil
      },
      handler: { request in
        handled.add()
        return HTTPServerTests.echo(request)
      })
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    client.send("GET /slow/0 HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(client.response()?.body.contains("\"/slow/0\"") == true)
    #expect(asked.current == ["/slow/0"])
    client.send("GET /slow/1 HTTP/1.1\r\nHost: a\r\n\r\nGET /quick/2 HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(client.response()?.body.contains("\"/slow/1\"") == true)
    #expect(client.response()?.body == "{}")
    #expect(asked.current == ["/slow/0", "/slow/1", "/quick/2"])
    #expect(handled.value == 2)
  }

  @Test func aQuickAnswerToConnectionCloseClosesTheConnection() throws {
    let running = try HTTPServerTests.Running(
      quickHandler: { _ in HTTPResponse(status: 200, body: "{}").prepared() }, handler: HTTPServerTests.echo)
    defer { running.stop() }
    let client = try Client(port: running.server.port)
    client.send("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n")
    let answer = try #require(client.response())
    #expect(answer.headers["connection"] == "close")
    #expect(client.closedByServer())
  }

  @Test func severalLoopsShareTheConnectionsAndTheirLimit() throws {
    let running = try HTTPServerTests.echoServer {
      $0.eventLoops = 3
      $0.workers = 1
    }
    defer { running.stop() }
    let clients = try (0..<30).map { _ in try Client(port: running.server.port) }
    for round in 0..<3 {
      for (i, c) in clients.enumerated() { c.send("GET /\(round)/\(i) HTTP/1.1\r\n\r\n") }
      for (i, c) in clients.enumerated() {
        #expect(c.response()?.body.contains("\"/\(round)/\(i)\"") == true, "round \(round), client \(i)")
      }
    }
  }

  @Test func aNewConnectionGoesToTheLoopOfItsClientsCPUUnlessThatLoopHoldsFourMoreThanTheFewest() throws {
    let server = try HTTPServer(host: "127.0.0.1", port: 0, log: nil) { _ in HTTPResponse(status: 200, body: "{}") }
    let pool = WorkerPool(server: server, count: 1, shares: [10, 10])
    #expect(WorkerPool.pairingSlack == 4)
    // Connections of a client on CPU 3 go to loop 1 (3 modulo 2 loops), whichever loop accepted.
    for accepting in [0, 0, 1, 1] { #expect(pool.place(acceptedBy: accepting, cpu: 3) == 1) }
    // Loop 1 holds four more than loop 0: the next goes to loop 0, then loop 1 again.
    #expect(pool.place(acceptedBy: 1, cpu: 1) == 0)
    #expect(pool.place(acceptedBy: 1, cpu: 1) == 1)
    // Where the system does not say, the loop that accepted it, within the same bound.
    #expect(pool.place(acceptedBy: 1) == 0)
    #expect(pool.place(acceptedBy: 0) == 0)
    #expect(pool.place(acceptedBy: 1) == 1)
  }

  @Test func aNewConnectionGoesToALoopUnderItsShareAndToTheOneThatAcceptedItWhenNoneIs() throws {
    let server = try HTTPServer(host: "127.0.0.1", port: 0, log: nil) { _ in HTTPResponse(status: 200, body: "{}") }
    let pool = WorkerPool(server: server, count: 1, shares: [2, 3])
    #expect(pool.place(acceptedBy: 0, cpu: 0) == 0)
    #expect(pool.place(acceptedBy: 0, cpu: 0) == 0)
    // Loop 0 holds its share (2): the next ones go to loop 1, which then holds its own.
    #expect(pool.hasRoom)
    #expect(pool.place(acceptedBy: 0, cpu: 0) == 1)
    #expect(pool.place(acceptedBy: 0, cpu: 0) == 1)
    #expect(pool.place(acceptedBy: 0, cpu: 0) == 1)
    #expect(!pool.hasRoom)
    // One accepted meanwhile stays where it was accepted; closing makes room again.
    #expect(pool.place(acceptedBy: 0, cpu: 1) == 0)
    pool.released(0)
    pool.released(0)
    #expect(pool.hasRoom)
    #expect(pool.place(acceptedBy: 1, cpu: 1) == 0)
  }

  @Test func oneClientsConnectionsAreSpreadOverTheLoopsAndAnsweredWhereTheyWereHanded() throws {
    // The loop that answers a connection's requests is the thread its quick handler runs on.
    let threads = Mutex<[String: UInt]>([:])
    let running = try HTTPServerTests.Running(
      limits: {
        var limits = HTTPServer.Limits()
        limits.eventLoops = 2
        return limits
      }(),
      quickHandler: { request in
        threads.withLock { $0[request.path] = UInt(bitPattern: Int(bitPattern: pthread_self())) }
        return HTTPResponse(status: 200, body: "{}")
      }, handler: HTTPServerTests.echo)
    defer { running.stop() }
    let clients = try (0..<8).map { _ in try Client(port: running.server.port) }
    for round in 0..<2 {
      for (i, c) in clients.enumerated() { c.send("GET /\(i) HTTP/1.1\r\n\r\n") }
      for c in clients { #expect(c.response()?.status == 200, "round \(round)") }
    }
    // Whatever CPU the client ran on, no loop holds more than four over the other.
    let byThread = Dictionary(grouping: threads.current.values, by: { $0 }).mapValues(\.count)
    #expect(byThread.count == 2 && byThread.values.allSatisfy { $0 >= 2 }, "\(byThread)")
  }

  @Test func withMoreLoopsThanConnectionsAllowedTheLimitStillHolds() throws {
    let running = try HTTPServerTests.echoServer {
      $0.eventLoops = 4
      $0.connections = 2
    }
    defer { running.stop() }
    var first = try (0..<2).map { _ in try Client(port: running.server.port) }
    for c in first {
      c.send("GET /held HTTP/1.1\r\n\r\n")
      #expect(c.response()?.status == 200)
    }
    let third = try Client(port: running.server.port)
    third.send("GET /third HTTP/1.1\r\n\r\n")
    first.removeFirst()
    #expect(third.response()?.body.contains("\"/third\"") == true)
  }

  @Test func aPreparedResponseIsWrittenAsTheSameBytesAndEqualsItsOriginal() {
    let response = HTTPResponse(
      status: 503, body: "{\"a\":1}", headers: [HTTPResponse.Header("Retry-After", "1")])
    let prepared = response.prepared()
    #expect(prepared == response)
    #expect(prepared.serialized(keepAlive: true) == response.serialized(keepAlive: true))
    #expect(prepared.serialized(keepAlive: false) == response.serialized(keepAlive: false))
    #expect(
      String(decoding: response.serialized(keepAlive: false), as: UTF8.self)
        == "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 7\r\n"
        + "Retry-After: 1\r\nConnection: close\r\n\r\n{\"a\":1}")
  }

  /// A client that sends its requests and then shuts down its side gets every answer, also
  /// when the end of stream comes in the same read as the requests (64 KiB: the loop's buffer).
  @Test func requestsBeforeTheClientsEndOfStreamAreAnswered() throws {
    let running = try HTTPServerTests.Running(
      quickHandler: { _ in HTTPResponse(status: 200, body: "{}").prepared() }, handler: HTTPServerTests.echo)
    defer { running.stop() }
    let request = "GET /a HTTP/1.1\r\nHost: a\r\n\r\n"
    let count = 65536 / request.utf8.count
    let padding = 65536 - count * request.utf8.count
    let last = "GET /a HTTP/1.1\r\nHost: a\r\nX-Pad: \(String(repeating: "a", count: padding - 9))\r\n\r\n"
    let text = String(repeating: request, count: count - 1) + last
    #expect(text.utf8.count == 65536)
    let client = try Client(port: running.server.port)
    client.send(text)
    _ = shutdown(client.fd, Int32(SHUT_WR))
    var answered = 0
    while client.response()?.status == 200 { answered += 1 }
    #expect(answered == count)
  }
}
