import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSession
import Testing

@testable import StoreSimCLI
@testable import StoreSimHTTPTestSupport
@testable import StoreSimSync

/// `populate --deliver-url URL --rate R` (issue 50, item 4): the population's notifications
/// POSTed to a receiver in event order, at most R a second, with Apple's retry rules.
@Suite struct PopulationDeliveryTests {
  /// The `notificationUUID` of each request's signed payload, in the order received.
  static func uuids(_ server: TestHTTPServer) throws -> [String] {
    try server.requests.map { request in
      let body = try #require(
        try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
      let jws = try #require(body["signedPayload"] as? String)
      var part = String(jws.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
        .replacingOccurrences(of: "_", with: "/")
      while part.count % 4 != 0 { part += "=" }
      let data = try #require(Data(base64Encoded: part))
      let payload = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      return try #require(payload["notificationUUID"] as? String)
    }
  }

  static func delivery(_ stdout: String) throws -> [String: Any] {
    let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
    return try #require(object["delivery"] as? [String: Any])
  }

  @Test func populateDeliversItsNotificationsInEventOrderAtTheRate() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { server.stop() }
    let cli = try CLIHarness()
    cli.run(PopulateTests.initLine)
    let rate = 40.0
    let r = cli.run("populate --customers 6 --months 3 --seed 5 --deliver-url \(server.base)/hook --rate 40 --json")
    #expect(r.code == 0, "\(r.stderr)")
    let state = try PopulateTests.session(cli)
    let expected = state.notifications.map(\.notificationUUID)
    #expect(expected.count > 5)
    #expect(try Self.uuids(server) == expected)
    #expect(server.requests.allSatisfy { $0.method == "POST" && $0.target == "/hook" })
    let d = try Self.delivery(r.stdout)
    #expect(d["attempts"] as? Int == expected.count)
    #expect(d["delivered"] as? Int == expected.count)
    #expect(d["failed"] as? Int == 0)
    // Paced: the k-th attempt is not made before k / R seconds.
    let seconds = try #require(d["seconds"] as? Double)
    #expect(seconds >= Double(expected.count - 1) / rate * 0.99, "\(seconds) s for \(expected.count) at \(rate)/s")
    // The load test changes nothing in the session.
    #expect(state.deliveryLog == nil)
  }

  @Test func populateDeliveryFollowsApplesRetryRulesInProduction() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 500), .respond(status: 200)])
    defer { server.stop() }
    let cli = try CLIHarness()
    cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z --environment Production")
    let r = cli.run("populate --customers 4 --months 2 --seed 5 --deliver-url \(server.base)/ --rate 1000 --json")
    #expect(r.code == 0, "\(r.stderr)")
    let state = try PopulateTests.session(cli)
    let n = state.notifications.count
    let d = try Self.delivery(r.stdout)
    #expect(d["attempts"] as? Int == n + 1)
    #expect(d["delivered"] as? Int == n)
    #expect((d["failures"] as? [String: Any])?["UNSUCCESSFUL_HTTP_RESPONSE_CODE"] as? Int == 1)
    // The failed first notification is sent again, the same bytes, an hour later in the
    // population's time: after the notifications of that hour, before those after it.
    let uuids = try Self.uuids(server)
    let first = state.notifications[0]
    let retryAt = first.signedDate.addingTimeInterval(3_600)
    let before = state.notifications.filter { $0.signedDate <= retryAt }.count
    #expect(uuids[before] == first.notificationUUID)
    #expect(server.requests[before].body == server.requests[0].body)

    // Sandbox tries once.
    let sandbox = try TestHTTPServer(.ipv4, [.respond(status: 500), .respond(status: 200)])
    defer { sandbox.stop() }
    let other = try CLIHarness()
    other.run(PopulateTests.initLine)
    let s = other.run("populate --customers 4 --months 2 --seed 5 --deliver-url \(sandbox.base)/ --rate 1000 --json")
    let ds = try Self.delivery(s.stdout)
    #expect(ds["attempts"] as? Int == (try PopulateTests.session(other)).notifications.count)
    #expect(ds["failed"] as? Int == 1)
  }

  @Test func populateDeliveryStopsAtItsLimit() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { server.stop() }
    let cli = try CLIHarness()
    cli.run(PopulateTests.initLine)
    let r = cli.run("populate --customers 6 --months 3 --deliver-url \(server.base)/ --rate 1000 --deliver-limit 3")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(server.requests.count == 3)
    #expect(r.stdout.contains("3 attempts, 3 succeeded, 0 failed"), "\(r.stdout)")
    #expect(r.stdout.contains("stopped after 3 attempts (--deliver-limit)"), "\(r.stdout)")
  }

  /// The pacing on a clock that moves only when the delivery sleeps: the k-th attempt is made
  /// at k / R seconds, not before.
  @Test func populateDeliveryPacesItsAttemptsAtTheRate() throws {
    let cli = try CLIHarness()
    cli.run(PopulateTests.initLine)
    #expect(cli.run("populate --customers 4 --months 2 --seed 5").code == 0)
    let store = Store(state: try PopulateTests.session(cli))
    let clock = Mutex<UInt64>(0)
    var sentAt: [UInt64] = []
    let summary = try PopulationDelivery(url: "http://127.0.0.1:9/", rate: 4, limit: nil).run(
      store, since: 0, clock: WaitClock { clock.withLock { $0 } }, sleep: { ns in clock.withLock { $0 += ns } },
      post: { _, _ in
        sentAt.append(clock.withLock { $0 })
        return HTTPAttempt(status: 200, error: nil)
      })
    #expect(summary.attempts == store.notifications.count && summary.delivered == summary.attempts)
    #expect(sentAt == (0..<UInt64(sentAt.count)).map { $0 * 250_000_000 })
  }

  @Test func thePercentilesAreNearestRank() {
    var s = PopulationDelivery.Summary()
    s.latencies = (1...100).map { Float($0) }
    #expect(s.percentile(50) == 50)
    #expect(s.percentile(99) == 99)
    #expect(s.percentile(100) == 100)
  }
}
