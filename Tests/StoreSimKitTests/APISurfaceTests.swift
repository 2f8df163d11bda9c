import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// The rest of the surface: interrupted and failing purchases, per-product queries, signed
/// data and the session's notifications.
@Suite("API surface", .isolatedTestSession)
struct APISurfaceTests {
  @Test func anInterruptedPurchaseIsPendingUntilResolvedThenArrivesOnUpdates() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    session.interruptedPurchasesEnabled = true
    try await session.run {
      let updates = Transaction.updates
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      guard case .pending = try await car.purchase() else { Issue.record("expected pending"); return }
      let record = try #require(session.allTransactions().first)
      #expect(record.hasPurchaseIssue)
      session.interruptedPurchasesEnabled = false
      try session.resolveIssueForTransaction(identifier: record.identifier)
      var iterator = updates.makeAsyncIterator()
      #expect(await iterator.next()?.unsafePayloadValue.productID == car.id)
    }
  }

  @Test func failTransactionsEnabledMakesPurchasesThrow() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    session.failTransactionsEnabled = true
    try await session.run {
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      await #expect(throws: StoreKitError.self) { try await car.purchase() }
      #expect(await collect(Transaction.all).isEmpty)
    }
  }

  @Test func perProductQueriesAndStatusForAGroup() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      try await session.buyProduct(identifier: "subscription.premium")
      try await session.buyProduct(identifier: "nonconsumable.car")
      #expect(
        await collect(Transaction.currentEntitlements(for: "nonconsumable.car")).map(\.productID) == [
          "nonconsumable.car"
        ])
      #expect(await collect(Transaction.all(for: "subscription.premium")).count == 1)
      #expect(await Transaction.currentEntitlement(for: "nonconsumable.racecar") == nil)
      let statuses = try await Product.SubscriptionInfo.status(for: "5A1E6001")
      #expect(statuses.map(\.state) == [.subscribed])
      try await session.setSimulatedError(.generic(.unknown), forAPI: .subscriptionStatus)
      await #expect(throws: StoreKitError.self) { try await Product.SubscriptionInfo.status(for: "5A1E6001") }
      #expect(await session.simulatedErrorName(forAPI: .subscriptionStatus) == "generic.unknown")
    }
  }

  @Test func signedDataDecodesToTheTransaction() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let token = UUID()
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      guard case .success(let result) = try await car.purchase(options: [.appAccountToken(token)]) else {
        Issue.record("not purchased"); return
      }
      let t = try result.payloadValue
      let json = try #require(try JSONSerialization.jsonObject(with: result.payloadData) as? [String: Any])
      #expect(json["transactionId"] as? String == String(t.id))
      #expect(json["productId"] as? String == "nonconsumable.car")
      #expect(json["appAccountToken"] as? String == token.uuidString.lowercased())
      #expect(json["environment"] as? String == "Xcode")
      #expect(t.jsonRepresentation == result.payloadData)
      #expect(t.environment == .xcode)
      #expect(t.storefront.countryCode == "USA")
      #expect(t.currencyCode == "USD")
      #expect(t.appBundleID == "com.example.app")
    }
  }

  @Test func theSessionsNotificationsAreSignedV2Payloads() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.buyProduct(identifier: "subscription.pro")
    try session.advance(by: 62 * Kit.day)  // intro period of two months, then a renewal
    #expect(session.notificationNames() == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"])
    let last = try #require(session.notifications.last)
    #expect(last.signedPayload.split(separator: ".").count == 3)
    let payload = try #require(try JSONSerialization.jsonObject(with: Data(last.payload.utf8)) as? [String: Any])
    #expect(payload["notificationType"] as? String == "DID_RENEW")
    #expect(last.signedDate == Kit.date("2026-03-01T00:00:00Z"))
  }

  @Test(.timeLimit(.minutes(1)))
  func statusUpdatesFollowTheSubscription() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let statuses = Product.SubscriptionInfo.Status.updates
      let listener = Task.detached { () -> [RenewalState] in
        var seen: [RenewalState] = []
        for await status in statuses {
          seen.append(status.state)
          if seen.count == 4 { break }
        }
        return seen
      }
      let monthly = try #require(try await Product.products(for: ["com.example.premium.monthly"]).first)
      _ = try await monthly.purchase()
      session.shouldEnterBillingRetryOnRenewal = true
      session.billingGracePeriodIsEnabled = true
      try session.advance(by: 7 * Kit.day)  // renewal fails: grace
      try session.advance(by: 16 * Kit.day)  // grace ends: billing retry
      try session.advance(by: 60 * Kit.day)  // retry runs out: expired
      #expect(await listener.value == [.subscribed, .inGracePeriod, .inBillingRetryPeriod, .expired])
    }
  }
}
