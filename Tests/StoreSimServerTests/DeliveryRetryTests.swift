import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// Apple's delivery against receivers on 127.0.0.1: Production's retries with the same payload,
/// each attempt in Get Notification History; one attempt elsewhere; the tester's resend.
@Suite struct DeliveryRetryTests {
  static func deliver(_ store: inout Store, since count: Int) -> [NotificationDelivery] {
    Delivery.deliver(Delivery.planned(store, since: count)) { record in record(&store) }
  }

  static func history(_ store: Store) -> [JSONNode] {
    let start = store.now.addingTimeInterval(-29 * 86_400).epochMilliseconds
    let end = store.now.addingTimeInterval(86_400).epochMilliseconds
    let body = #"{"startDate":\#(start),"endDate":\#(end)}"#
    let (status, answer) = ServerAPICall.call(store, "POST", "/inApps/v1/notifications/history", body: body)
    #expect(status == 200)
    return ServerAPICall.array(answer["notificationHistory"])
  }

  // notifications-are-retried-in-production
  @Test func aProductionNotificationIsRetriedWithTheSamePayloadUntilItSucceeds() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 500), .respond(status: 503), .respond(status: 200)])
    defer { server.stop() }
    var store = Fixtures.store(environment: .production)
    store.setDeliveryURL(server.base + "/n")
    try store.purchase("car")
    let first = Self.deliver(&store, since: 0)
    #expect(first.map(\.result) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE"])
    #expect(first[0].nextAttempt == first[0].date.addingTimeInterval(3_600))
    _ = try store.advance(by: 30 * 60)
    #expect(Self.deliver(&store, since: store.notifications.count).isEmpty)  // not due yet
    _ = try store.advance(by: 14 * 3_600)
    let retries = Self.deliver(&store, since: store.notifications.count)
    #expect(retries.map(\.result) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
    #expect(retries.map { $0.date.timeIntervalSince(first[0].date) } == [3_600, 13 * 3_600])
    _ = try store.advance(by: 10 * 86_400)
    #expect(Self.deliver(&store, since: store.notifications.count).isEmpty)  // delivered: no more
    // The same signed payload (and so the same notificationUUID) every time.
    let bodies = server.requests.map(\.body)
    #expect(bodies.count == 3 && Set(bodies).count == 1)
    // Each attempt in Get Notification History, with its result and date.
    let item = try #require(Self.history(store).first)
    let attempts = ServerAPICall.array(item["sendAttempts"])
    #expect(
      attempts.compactMap { ServerAPICall.string($0["sendAttemptResult"]) } == [
        "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS",
      ])
  }

  // sandbox-notifications-are-sent-once
  @Test func aSandboxNotificationIsSentOnceAndAResendIsNotInTheHistory() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 500), .respond(status: 200)])
    defer { server.stop() }
    var store = Fixtures.store(environment: .sandbox)
    store.setDeliveryURL(server.base + "/n")
    try store.purchase("car")
    _ = Self.deliver(&store, since: 0)
    _ = try store.advance(by: 7 * 86_400)
    #expect(Self.deliver(&store, since: store.notifications.count).isEmpty)
    // The tester resends (notifications deliver --retry): labelled, and not an App Store attempt.
    let plan = DeliveryPlan(store, explicit: [(index: 0, url: server.base + "/n", origin: .resend)])
    let resent = Delivery.deliver(PlannedDeliveries(store, plan)) { record in record(&store) }
    #expect(resent.map(\.result) == ["SUCCESS"])
    #expect(resent[0].label == " (your resend; not an App Store attempt)")
    let attempts = ServerAPICall.array(try #require(Self.history(store).first)["sendAttempts"])
    #expect(
      attempts.compactMap { ServerAPICall.string($0["sendAttemptResult"]) } == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE"])
    #expect(server.requests.count == 2)
  }

  // delivery-faults-are-seeded-and-labelled: byte-identical deliveries for one seed
  @Test func oneSeedGivesByteIdenticalDeliveries() throws {
    func run(seed: UInt64) throws -> [String] {
      let server = try TestHTTPServer(.ipv4, [.respond(status: 200)])
      defer { server.stop() }
      var store = Fixtures.store(environment: .production)
      store.setDeliveryURL(server.base + "/n")
      var faults = DeliveryFaults(seed: seed)
      faults.duplicatePercent = 50
      faults.reorderWindow = 1_800
      store.setDeliveryFaults(faults)
      for _ in 0..<8 { try store.purchase("fuel") }
      _ = Self.deliver(&store, since: 0)
      _ = try store.advance(by: 3_600)
      let records = Self.deliver(&store, since: store.notifications.count)
      #expect(records.contains { $0.origin == .duplicate })
      return server.requests.map { String(decoding: $0.body, as: UTF8.self) }
    }
    let a = try run(seed: 42)
    #expect(a.count > 8)
    #expect(a == (try run(seed: 42)))
    #expect(a != (try run(seed: 43)))
  }

  // The delivery state survives the session file: faults, held first attempts, the other URL,
  // and each attempt's result, origin, fault and next attempt.
  @Test func theDeliveryStateSurvivesTheSessionFile() throws {
    var store = Fixtures.store(environment: .production)
    store.setDeliveryURL("http://127.0.0.1:9/p")
    store.setDeliveryURL("http://127.0.0.1:9/s", production: false)
    var faults = DeliveryFaults(seed: 9)
    faults.duplicatePercent = 20
    faults.reorderWindow = 600
    faults.delayMinimum = 60
    faults.delayMaximum = 120
    faults.outages = [.init(start: store.now, end: store.now.addingTimeInterval(3_600))]
    store.setDeliveryFaults(faults)
    try store.purchase("car")
    _ = Self.deliver(&store, since: 0)  // held by the delay: kept in the session
    store.recordDelivery(
      NotificationDelivery(
        index: 0, url: "http://127.0.0.1:9/p", httpStatus: nil, error: "connection refused", date: store.now,
        result: "SOCKET_ISSUE", origin: .resend, fault: "outage", nextAttempt: store.now.addingTimeInterval(3_600)))
    #expect(store.state.heldDeliveries?.count == 1)
    let decoded = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(decoded == store.state)
    #expect(Store(state: decoded).deliveryURL(production: false) == "http://127.0.0.1:9/s")
  }
}
