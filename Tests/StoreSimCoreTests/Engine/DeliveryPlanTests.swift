import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Apple's delivery on the virtual clock, as the core plans it (no sockets: the outcome of each
/// POST is given), and storesim's seeded faults.
@Suite struct DeliveryPlanTests {
  static let url = "http://127.0.0.1:9/n"

  /// Runs every POST the plan gives with `outcome` deciding success, recording each on the
  /// store as the front end does; returns the POSTs in order.
  static func run(
    _ store: inout Store, since count: Int, _ outcome: (DeliveryPlan.Due) -> Bool = { _ in false }
  ) -> [DeliveryPlan.Due] {
    var plan = DeliveryPlan(store, newSince: count, to: store.state.deliveryURL)
    var made: [DeliveryPlan.Due] = []
    while let due = plan.next() {
      let ok = outcome(due)
      let next = plan.record(due, succeeded: ok)
      made.append(due)
      store.recordDelivery(
        NotificationDelivery(
          index: due.index, url: due.url, httpStatus: ok ? 200 : 500, error: nil, date: due.date,
          result: ok ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE", origin: due.origin, fault: due.fault,
          nextAttempt: next))
    }
    store.keepHeldDeliveries(plan)
    return made
  }

  static func store(_ environment: StoreEnvironment) -> Store {
    var store = Fixtures.store(environment: environment)
    store.setDeliveryURL(url)
    return store
  }

  // notifications-are-retried-in-production
  @Test func notificationsAreRetriedInProduction() throws {
    var store = Self.store(.production)
    try store.purchase("car")
    let bought = store.notifications[0].signedDate
    #expect(Self.run(&store, since: 0).map(\.date) == [bought])
    var dates: [Date] = []
    for _ in 0..<14 {
      _ = try store.advance(by: 12 * 3_600)
      dates += Self.run(&store, since: store.notifications.count).map(\.date)
    }
    let hours = dates.map { $0.timeIntervalSince(bought) / 3_600 }
    // 1, 12, 24, 48 and 72 hours after the previous attempt; then no more.
    #expect(hours == [1, 13, 37, 85, 157])
    #expect(store.appStoreAttempts(of: 0).count == 6)
    #expect(store.appStoreAttempts(of: 0).last?.nextAttempt == nil)
    #expect(store.appStoreAttempts(of: 0).first?.nextAttempt == bought.addingTimeInterval(3_600))
  }

  // notifications-are-retried-in-production: an advance past several retries makes them all, in order
  @Test func retriesFallingDueInOneAdvanceAreMadeInOrder() throws {
    var store = Self.store(.production)
    try store.purchase("car")
    _ = Self.run(&store, since: 0)
    _ = try store.advance(by: 7 * 86_400)
    let made = Self.run(&store, since: store.notifications.count)
    #expect(made.map { $0.date.timeIntervalSince(store.notifications[0].signedDate) / 3_600 } == [1, 13, 37, 85, 157])
    // A success stops the retries.
    var other = Self.store(.production)
    try other.purchase("car")
    _ = Self.run(&other, since: 0)
    _ = try other.advance(by: 7 * 86_400)
    var calls = 0
    let two = Self.run(&other, since: other.notifications.count) { _ in
      calls += 1
      return calls == 2
    }
    #expect(two.count == 2)
  }

  // notifications-are-retried-in-production: in order with everything else
  @Test func retriesAreDeliveredInOrderWithEverythingElse() throws {
    var store = Self.store(.production)
    try store.purchase("car")
    _ = Self.run(&store, since: 0)
    let start = store.notifications[0].signedDate
    _ = try store.advance(by: 2 * 86_400)
    try store.purchase("fuel")  // a new notification at 48 hours, in the same change as the advance
    let made = Self.run(&store, since: 1)
    #expect(made.map(\.index) == [0, 0, 0, 1])
    #expect(made.map { $0.date.timeIntervalSince(start) / 3_600 } == [1, 13, 37, 48])
  }

  // sandbox-notifications-are-sent-once
  @Test(arguments: [StoreEnvironment.sandbox, .xcode, .localTesting])
  func sandboxNotificationsAreSentOnce(_ environment: StoreEnvironment) throws {
    var store = Self.store(environment)
    try store.purchase("car")
    #expect(Self.run(&store, since: 0).count == 1)
    _ = try store.advance(by: 10 * 86_400)
    #expect(Self.run(&store, since: store.notifications.count).isEmpty)
    #expect(store.appStoreAttempts(of: 0).count == 1)
    #expect(store.appStoreAttempts(of: 0)[0].nextAttempt == nil)
  }

  // sandbox-notifications-are-sent-once: the tester's resend is not an App Store attempt
  @Test func aResendIsNotAnAppStoreAttempt() throws {
    var store = Self.store(.sandbox)
    try store.purchase("car")
    _ = Self.run(&store, since: 0)
    var plan = DeliveryPlan(store, explicit: [(index: 0, url: Self.url, origin: .resend)])
    let next = plan.next()
    let due = try #require(next)
    #expect(due.origin == .resend && plan.record(due, succeeded: true) == nil)
    store.recordDelivery(
      NotificationDelivery(index: 0, url: Self.url, httpStatus: 200, error: nil, date: due.date, origin: .resend))
    #expect(store.appStoreAttempts(of: 0).count == 1)
  }

  // delivery-faults-are-seeded-and-labelled
  @Test func deliveryFaultsAreSeededAndLabelled() throws {
    func deliveries(seed: UInt64) throws -> [DeliveryPlan.Due] {
      var store = Self.store(.sandbox)
      var faults = DeliveryFaults(seed: seed)
      faults.duplicatePercent = 30
      faults.reorderWindow = 3_600
      faults.delayMinimum = 60
      faults.delayMaximum = 600
      store.setDeliveryFaults(faults)
      for _ in 0..<20 { try store.purchase("fuel") }
      var made = Self.run(&store, since: 0)
      #expect(made.isEmpty)  // every first attempt is held at least a minute
      #expect(store.state.heldDeliveries?.count == 20)
      _ = try store.advance(by: 2 * 3_600)
      made = Self.run(&store, since: store.notifications.count)
      #expect(store.state.heldDeliveries == nil)
      return made
    }
    let a = try deliveries(seed: 7)
    #expect(a == (try deliveries(seed: 7)))
    #expect(a != (try deliveries(seed: 8)))
    #expect(a.filter { $0.origin == nil }.count == 20)
    let duplicates = a.filter { $0.origin == .duplicate }
    #expect(!duplicates.isEmpty && duplicates.allSatisfy { $0.fault == "duplicate" })
    #expect(a.filter { $0.origin == nil }.allSatisfy { $0.fault?.hasPrefix("delayed ") == true })
    #expect(a.map(\.index) != a.map(\.index).sorted())  // held and released out of order
    #expect(a.map(\.date) == a.map(\.date).sorted())
  }

  // delivery-faults-are-seeded-and-labelled: an outage, and Apple's retries after it
  @Test func anOutageFailsAttemptsAndTheRetriesTakeOver() throws {
    var store = Self.store(.production)
    var faults = DeliveryFaults(seed: 1)
    faults.outages = [.init(start: store.now, end: store.now.addingTimeInterval(6 * 3_600))]
    store.setDeliveryFaults(faults)
    try store.purchase("car")
    var plan = DeliveryPlan(store, newSince: 0, to: Self.url)
    let next = plan.next()
    let first = try #require(next)
    #expect(plan.isOutage(at: first.date))
    #expect(!plan.isOutage(at: first.date.addingTimeInterval(13 * 3_600)))
    #expect(DeliveryFaults.duration(3_900) == "1h 5min" && DeliveryFaults.duration(172_800) == "2d")
    #expect(faults.words.hasPrefix("seed=1 outage=2026-"))
  }

  // two-notification-urls-per-app
  @Test(arguments: [StoreEnvironment.production, .sandbox, .xcode])
  func twoNotificationURLsPerApp(_ environment: StoreEnvironment) throws {
    var store = Fixtures.store(environment: environment)
    store.setDeliveryURL("http://127.0.0.1:9/production", production: true)
    store.setDeliveryURL("http://127.0.0.1:9/sandbox", production: false)
    let own = environment == .production ? "http://127.0.0.1:9/production" : "http://127.0.0.1:9/sandbox"
    #expect(store.state.deliveryURL == own)
    try store.purchase("car")
    #expect(Self.run(&store, since: 0).map(\.url) == [own])
    // `settings deliver-url` sets the session's own environment's URL; the other one stays.
    store.setDeliveryURL("http://127.0.0.1:9/own")
    #expect(store.deliveryURL(production: environment == .production) == "http://127.0.0.1:9/own")
    #expect(store.deliveryURL(production: environment != .production) != nil)
  }
}
