import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimTestSupport

/// The notification transport against real sockets: every test starts its own server on
/// 127.0.0.1 (or ::1) and stops it. No timings are asserted; waits on the server have a large
/// guard only so a broken client cannot hang the run.
@Suite struct DeliveryTransportTests {
  static let body = #"{"signedPayload":"eyJ.héllo wörld ✓.sig"}"#

  static func url(_ text: String) throws -> HTTPURL { try HTTPURL(text) }

  // MARK: Answers

  @Test func postsTheBodyAndHeadersAndCounts200() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 200, body: "ok")])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url("\(server.base)/hooks/apple?env=local"), timeout: 10)
    #expect(attempt.status == 200)
    #expect(attempt.error == nil)
    #expect(attempt.succeeded)
    try Self.checkRequest(server, target: "/hooks/apple?env=local", host: "127.0.0.1:\(server.port)")
  }

  @Test(.enabled(if: TestHTTPServer.ipv6LoopbackAvailable, "IPv6 loopback (::1) cannot be bound on this machine"))
  func postsToAnIPv6Literal() throws {
    let server = try TestHTTPServer(.ipv6, [.respond(status: 200)])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url("\(server.base)/v6"), timeout: 10)
    #expect(attempt.status == 200)
    #expect(attempt.error == nil)
    try Self.checkRequest(server, target: "/v6", host: "[::1]:\(server.port)")
  }

  @Test func schemeIsCaseInsensitive() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 204)])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url("HTTP://127.0.0.1:\(server.port)"), timeout: 10)
    #expect(attempt.status == 204)
    #expect(attempt.succeeded)
    #expect(server.requests.first?.target == "/")
  }

  static func checkRequest(_ server: TestHTTPServer, target: String, host: String) throws {
    let requests = server.requests
    try #require(requests.count == 1)
    let request = requests[0]
    #expect(request.method == "POST")
    #expect(request.target == target)
    #expect(request.version == "HTTP/1.1")
    #expect(request.header("Host") == host)
    #expect(request.headerCount("Host") == 1)
    #expect(request.header("Content-Type") == "application/json")
    #expect(request.header("Content-Length") == String(body.utf8.count))
    #expect(request.header("Connection") == "close")
    #expect(request.header("User-Agent")?.hasPrefix("storesim") == true)
    #expect(request.body == Array(body.utf8))
  }

  @Test func a500IsAFailedAttemptWithItsStatus() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 500, body: "boom")])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url("\(server.base)/n"), timeout: 10)
    #expect(attempt.status == 500)
    #expect(attempt.error == nil)
    #expect(!attempt.succeeded)
    #expect(server.requests.count == 1)
  }

  /// Apple: "Send HTTP 200, or any HTTP code between 200 and 206, if the post was successful."
  @Test(arguments: [(200, true), (204, true), (206, true), (207, false), (299, false), (404, false)])
  func onlyHTTP200To206Succeed(status: Int, succeeds: Bool) throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: status)])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10)
    #expect(attempt.status == status)
    #expect(attempt.succeeded == succeeds)
    #expect(
      NotificationDelivery(index: 0, url: server.base, httpStatus: status, error: nil, date: Date()).succeeded
        == succeeds)
    if (207..<300).contains(status) {
      #expect(attempt.error == "HTTP \(status) is not a success for the App Store (200-206)")
    }
  }

  @Test func redirectsAreNotFollowed() throws {
    let other = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { other.stop() }
    let redirecting = try TestHTTPServer(
      .ipv4, [.respond(status: 307, headers: ["Location": "\(other.base)/elsewhere"])])
    defer { redirecting.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url("\(redirecting.base)/n"), timeout: 10)
    #expect(attempt.status == 307)
    #expect(!attempt.succeeded)
    #expect(attempt.error?.hasPrefix("redirect (HTTP 307") == true)
    #expect(attempt.error?.hasSuffix("not followed") == true)
    #expect(attempt.error?.contains("\(other.base)/elsewhere") == true)
    #expect(redirecting.requests.count == 1)
    // `post` has returned, so a followed redirect would already have reached `other`.
    #expect(other.connections == 0)
  }

  @Test func interimResponsesAreSkipped() throws {
    let server = try TestHTTPServer(
      .ipv4, [.raw("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10)
    #expect(attempt.status == 202)
    #expect(attempt.error == nil)
  }

  @Test func aResponseThatIsNotHTTPFails() throws {
    let server = try TestHTTPServer(.ipv4, [.raw("SSH-2.0-OpenSSH_9.6\r\n\r\n")])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10)
    #expect(attempt.status == nil)
    #expect(attempt.error?.hasPrefix("not an HTTP response") == true)
  }

  @Test func aServerThatClosesWithoutAnsweringFails() throws {
    let server = try TestHTTPServer(.ipv4, [.raw("")])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10)
    #expect(attempt.status == nil)
    #expect(attempt.error == "connection closed without a response")
  }

  @Test func oversizedResponseHeadersFail() throws {
    let huge = "HTTP/1.1 200 OK\r\nX-Padding: " + String(repeating: "p", count: 70 * 1024) + "\r\n\r\n"
    let server = try TestHTTPServer(.ipv4, [.raw(huge)])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10)
    #expect(attempt.status == nil)
    #expect(attempt.error == "response headers over 64 KiB")
  }

  /// `localhost` goes through getaddrinfo; when it lists ::1 first, the refused ::1 is skipped
  /// for 127.0.0.1.
  @Test func aHostNameIsResolvedAndItsAddressesTried() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url("http://localhost:\(server.port)/n"), timeout: 10)
    #expect(attempt.status == 200)
    #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
  }

  @Test func anUnresolvableHostNamesTheReason() throws {
    let attempt = Delivery.post(Self.body, to: try Self.url("http://nonexistent.invalid/"), timeout: 10)
    #expect(attempt.status == nil)
    #expect(
      attempt.error?.hasPrefix("cannot resolve 'nonexistent.invalid'") == true
        || attempt.error?.hasPrefix("timed out") == true)
  }

  // MARK: Misbehaving servers

  @Test func anEndlessBodyIsCutAtTheLimit() throws {
    let server = try TestHTTPServer(.ipv4, [.endless])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10)
    #expect(attempt.status == 200)
    #expect(attempt.succeeded)
    #expect(attempt.bodyBytesRead > 0)
    #expect(attempt.bodyBytesRead <= Delivery.bodyLimit)
    // The client dropped the connection: the server's send loop ends with an error long
    // before its guard cap (which only stops a client that reads forever).
    #expect(server.waitUntil { $0.endlessFinished })
    #expect(server.endlessBytesSent < TestHTTPServer.endlessCap)
  }

  @Test func aSmallBodyLimitIsHonoured() throws {
    let server = try TestHTTPServer(.ipv4, [.endless])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 10, bodyLimit: 1000)
    #expect(attempt.status == 200)
    #expect(attempt.bodyBytesRead <= 1000)
    #expect(server.waitUntil { $0.endlessFinished })
  }

  @Test func aServerThatNeverAnswersTimesOut() throws {
    let server = try TestHTTPServer(.ipv4, [.silent])
    defer { server.stop() }
    let attempt = Delivery.post(Self.body, to: try Self.url(server.base), timeout: 0.25)
    #expect(attempt.status == nil)
    #expect(attempt.error?.hasPrefix("timed out after 0.25 s") == true)
    #expect(server.waitUntil { $0.requests.count == 1 })
    // The client closed its end when it gave up.
    #expect(server.waitUntil { $0.silentClientClosed })
  }

  @Test func aRefusedConnectionNamesTheReason() throws {
    let attempt = Delivery.post(Self.body, to: try Self.url("http://127.0.0.1:\(unusedLoopbackPort())/"), timeout: 10)
    #expect(attempt.status == nil)
    #expect(attempt.error == "connection refused")
  }

  // MARK: The URLSession path (https)
  //
  // No TLS server here: these drive `HTTPSClient` (the https transport) with plain http URLs,
  // which URLSession handles the same way, to check its delegate's redirect, body-limit and
  // deadline rules.

  @Test func urlSessionPathPostsAndCounts200() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 200, body: "ok")])
    defer { server.stop() }
    let attempt = HTTPSClient.post(
      Data(Self.body.utf8), to: try Self.url("\(server.base)/s"), timeout: 10, bodyLimit: Delivery.bodyLimit,
      userAgent: Delivery.userAgent)
    #expect(attempt.status == 200)
    #expect(attempt.error == nil)
    let request = try #require(server.requests.first)
    #expect(request.method == "POST")
    #expect(request.header("Content-Type") == "application/json")
    #expect(request.body == Array(Self.body.utf8))
  }

  @Test func urlSessionPathDoesNotFollowRedirects() throws {
    let other = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { other.stop() }
    let redirecting = try TestHTTPServer(
      .ipv4, [.respond(status: 307, headers: ["Location": "\(other.base)/elsewhere"])])
    defer { redirecting.stop() }
    let attempt = HTTPSClient.post(
      Data(Self.body.utf8), to: try Self.url("\(redirecting.base)/n"), timeout: 10, bodyLimit: Delivery.bodyLimit,
      userAgent: Delivery.userAgent)
    #expect(attempt.status == 307)
    #expect(attempt.error?.hasPrefix("redirect (HTTP 307") == true)
    #expect(redirecting.requests.count == 1)
    #expect(other.connections == 0)
  }

  @Test func urlSessionPathCutsAnEndlessBody() throws {
    let cap = 64 * 1024 * 1024
    let server = try TestHTTPServer(.ipv4, [.endless], endlessCap: cap)
    defer { server.stop() }
    let attempt = HTTPSClient.post(
      Data(Self.body.utf8), to: try Self.url(server.base), timeout: 10, bodyLimit: Delivery.bodyLimit,
      userAgent: Delivery.userAgent)
    #expect(attempt.status == 200)
    #expect(attempt.bodyBytesRead <= Delivery.bodyLimit)
    #expect(server.waitUntil { $0.endlessFinished })
    #if canImport(FoundationNetworking)
      withKnownIssue(
        "swift-corelibs-foundation URLSession keeps receiving a streaming body after cancel(); the server may reach its cap",
        isIntermittent: true
      ) {
        #expect(server.endlessBytesSent < cap)
      }
    #else
      #expect(server.endlessBytesSent < cap)
    #endif
  }

  @Test func urlSessionPathTimesOut() throws {
    let server = try TestHTTPServer(.ipv4, [.silent])
    defer { server.stop() }
    let attempt = HTTPSClient.post(
      Data(Self.body.utf8), to: try Self.url(server.base), timeout: 0.25, bodyLimit: Delivery.bodyLimit,
      userAgent: Delivery.userAgent)
    #expect(attempt.status == nil)
    #expect(attempt.error?.hasPrefix("timed out after 0.25 s") == true)
  }

  @Test func httpsToARefusedPortFailsWithAReason() throws {
    let attempt = Delivery.post(Self.body, to: try Self.url("https://127.0.0.1:\(unusedLoopbackPort())/"), timeout: 10)
    #expect(attempt.status == nil)
    #expect(attempt.error?.isEmpty == false)
    #expect(attempt.error?.contains("\n") == false)
  }

  // MARK: Batches and the store

  @Test func aBatchStopsSendingAfterATimeout() throws {
    let server = try TestHTTPServer(.ipv4, [.silent])
    defer { server.stop() }
    let bodies = [(index: 3, body: "{}"), (index: 4, body: "{}"), (index: 5, body: "{}")]
    let attempts = Delivery.post(bodies: bodies, to: server.base + "/", timeout: 0.25)
    #expect(attempts.count == 3)
    #expect(attempts[0].error?.hasPrefix("timed out") == true)
    #expect(attempts[1].error == "not sent: the post of #3 to this URL timed out")
    #expect(attempts[2].error == attempts[1].error)
    #expect(attempts.allSatisfy { $0.status == nil })
    #expect(server.waitUntil { $0.silentClientClosed })
    #expect(server.connections == 1)
  }

  @Test func anInvalidURLFailsEveryAttemptWithTheReason() {
    let attempts = Delivery.post(
      bodies: [(index: 0, body: "{}"), (index: 1, body: "{}")], to: "http://127.0.0.1:99999/")
    #expect(attempts.map(\.error) == Array(repeating: "invalid URL: invalid port 99999 (use 1-65535)", count: 2))
  }

  /// What Scripts/interop.py checks end to end: a 500 then 200s loses nothing.
  @Test func a500ThenRetryDeliversEveryNotificationOnce() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 500), .respond(status: 200)])
    defer { server.stop() }
    var store = Fixtures.store()
    _ = try store.buyProduct("car")
    _ = try store.buyProduct("monthly")
    let count = store.notifications.count
    try #require(count >= 2)
    let url = server.base + "/notifications"

    func deliver(_ indexes: [Int]) -> [NotificationDelivery] {
      let planned = PlannedDeliveries(store, indexes: indexes, to: url)
      return Delivery.deliver(planned) { record in record(&store) }
    }
    let first = deliver(Array(0..<count))
    #expect(first.map(\.succeeded) == [false] + Array(repeating: true, count: count - 1))
    #expect(first[0].httpStatus == 500)
    #expect(store.undelivered(to: url).failed == [0])
    #expect(store.undelivered(to: url).new.isEmpty)

    let retry = deliver(store.undelivered(to: url).failed)
    #expect(retry.map(\.succeeded) == [true])
    #expect(store.undelivered(to: url) == (new: [], failed: []))
    let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
    #expect(bodies.count == count + 1)
    #expect(Set(bodies.dropFirst()).count == count)
    #expect(Set(bodies.dropFirst()) == Set((0..<count).map { PlannedDeliveries(store, indexes: [], to: url).body($0) }))
  }

  // The client reads the answer with the one header parser (HTTPHead).
  @Test func theClientAcceptsBareLFLineEndings() throws {
    let server = try TestHTTPServer(
      .ipv4, [.raw("HTTP/1.1 100 Continue\n\nHTTP/1.1 202 Accepted\nContent-Length: 0\n\n")])
    defer { server.stop() }
    let attempt = Delivery.post("{}", to: try HTTPURL("\(server.base)/hook"), timeout: 10)
    #expect(attempt.status == 202)
    #expect(attempt.error == nil)
  }

  @Test func theClientRefusesAMalformedHeaderField() throws {
    let server = try TestHTTPServer(.ipv4, [.raw("HTTP/1.1 200 OK\r\nNot a field\r\n\r\n")])
    defer { server.stop() }
    let attempt = Delivery.post("{}", to: try HTTPURL("\(server.base)/hook"), timeout: 10)
    #expect(attempt.status == nil)
    #expect(attempt.error == "malformed response header field")
  }
}
