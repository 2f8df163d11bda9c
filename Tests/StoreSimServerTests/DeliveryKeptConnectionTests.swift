import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimTestSupport

/// Property kept-connections (storesim's own, not an App Store rule; issue 47 item 11): a run
/// of deliveries keeps one connection alive to each receiver, opens a new one when the
/// receiver closed it, and never reuses one after an exchange that was not whole. Each test
/// counts the connections a receiver on 127.0.0.1 accepted.
@Suite struct DeliveryKeptConnectionTests {
  static let body = #"{"signedPayload":"eyJ.kept.sig"}"#

  static func bodies(_ count: Int) -> [(index: Int, body: String)] {
    (0..<count).map { (index: $0, body: #"{"signedPayload":"eyJ.n\#($0).sig"}"#) }
  }

  @Test func aRunPostsToOneReceiverOnOneConnection() throws {
    let server = try TestHTTPServer(.ipv4, [.keepAlive(.answers(401, 100))])
    defer { server.stop() }
    let attempts = Delivery.post(bodies: Self.bodies(20), to: server.base + "/n", timeout: 10)
    #expect(attempts.map(\.status) == Array(repeating: 401, count: 20))
    #expect(server.requests.count == 20)
    #expect(server.connections == 1)
    #expect(server.requests.allSatisfy { $0.header("Connection") == nil && $0.version == "HTTP/1.1" })
    #expect(server.requests.map(\.body) == Self.bodies(20).map { Array($0.body.utf8) })
  }

  /// Production's retries that fall due in one run (as in `advance 7d`) go on the same
  /// connection as the first attempts of that run.
  @Test func productionRetriesInOneRunShareTheConnection() throws {
    let server = try TestHTTPServer(.ipv4, [.keepAlive(.answers(500, 100))])
    defer { server.stop() }
    var store = Fixtures.store(environment: .production)
    store.setDeliveryURL(server.base + "/n")
    for i in 0..<3 {
      try store.addCustomer(CustomerID("c\(i)"))
      try store.purchase("car", customer: CustomerID("c\(i)"))
    }
    let first = Delivery.deliver(Delivery.planned(store, since: 0)) { record in record(&store) }
    #expect(first.count == 3 && server.connections == 1)
    _ = try store.advance(by: 7 * 86_400)
    let retries = Delivery.deliver(Delivery.planned(store, since: store.notifications.count)) { record in
      record(&store)
    }
    #expect(retries.count == 15)
    #expect(retries.allSatisfy { $0.result == "UNSUCCESSFUL_HTTP_RESPONSE_CODE" })
    #expect(server.requests.count == 18)
    #expect(server.connections == 2)  // one a run
  }

  @Test func aConnectionTheReceiverClosesIsOpenedAgainAndNothingIsLost() throws {
    let server = try TestHTTPServer(.ipv4, [.keepAlive(.answers(200, 3))])
    defer { server.stop() }
    let attempts = Delivery.post(bodies: Self.bodies(10), to: server.base + "/n", timeout: 10)
    #expect(attempts.allSatisfy { $0.succeeded })
    #expect(server.requests.map(\.body) == Self.bodies(10).map { Array($0.body.utf8) })
    #expect(server.connections == 4)
  }

  /// A kept connection the receiver closes before any byte of an answer is posted on again
  /// once on a new connection; a new connection closed so is a failed attempt (NO_RESPONSE).
  @Test func aKeptConnectionClosedBeforeAnyAnswerIsPostedOnAgainOnce() throws {
    let server = try TestHTTPServer(
      .ipv4,
      [.keepAlive([.closeUnanswered]), .keepAlive([.answer(200), .closeUnanswered]), .keepAlive(.answers(200, 10))])
    defer { server.stop() }
    let attempts = Delivery.post(bodies: Self.bodies(4), to: server.base + "/n", timeout: 10)
    #expect(attempts.map(\.status) == [nil, 200, 200, 200])
    #expect(attempts[0].error == "connection closed without a response")
    #expect(Delivery.sendAttemptResult(attempts[0]) == "NO_RESPONSE")
    let bodies = Self.bodies(4).map { Array($0.body.utf8) }
    #expect(server.requests.map(\.body) == [bodies[0], bodies[1], bodies[2], bodies[2], bodies[3]])
    #expect(server.connections == 3)
  }

  @Test func aTimeoutDropsTheConnection() throws {
    let server = try TestHTTPServer(.ipv4, [.keepAlive([.answer(200), .silent]), .keepAlive(.answers(200, 5))])
    defer { server.stop() }
    let url = try HTTPURL(server.base + "/n")
    let connections = HTTPKeptConnections()
    #expect(Delivery.post(Self.body, to: url, timeout: 10, keeping: connections).status == 200)
    #expect(connections.idleCount == 1)
    let silent = Delivery.post(Self.body, to: url, timeout: 0.3, keeping: connections)
    #expect(Delivery.sendAttemptResult(silent) == "TIMED_OUT")
    #expect(connections.idleCount == 0)
    #expect(server.waitUntil { $0.silentClientClosed })
    #expect(Delivery.post(Self.body, to: url, timeout: 10, keeping: connections).status == 200)
    #expect(server.connections == 2 && connections.opened == 2)
  }

  /// Only a whole answer framed to its end, HTTP/1.1 without `Connection: close`, leaves the
  /// connection kept.
  @Test(arguments: [
    ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true),
    ("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n", true),
    ("HTTP/1.1 204 No Content\r\n\r\n", true),
    ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", true),
    ("HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n", true),
    ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", false),
    ("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false),
    ("HTTP/1.1 200 OK\r\n\r\nok", false),
    ("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nok", false),
    ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", false),
    ("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n" + String(repeating: "x", count: 40), false),
    ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", false),
  ])
  func onlyAWholeFramedPersistentAnswerKeepsTheConnection(answer: String, kept: Bool) throws {
    let server = try TestHTTPServer(.ipv4, [.raw(answer)])
    defer { server.stop() }
    let connections = HTTPKeptConnections()
    // A body limit of 16 bytes: the 40-byte body is cut at it.
    _ = Delivery.post(Self.body, to: try HTTPURL(server.base), timeout: 2, bodyLimit: 16, keeping: connections)
    #expect(connections.idleCount == (kept ? 1 : 0))
  }
}
