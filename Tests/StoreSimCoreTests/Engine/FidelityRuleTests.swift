import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// One test per rule of issue 14 ("Fidelity, second pass"), named after the rule it states;
/// each rule is written up in docs/rules.md under the name in the comment above its test.
@Suite struct FidelityRuleTests {
  static let jan31 = Fixtures.jan31

  /// A store whose only group holds one auto-renewable with this period and no offers.
  static func store(period: String, start: Date = jan31, shareable: Bool = false) -> Store {
    Fixtures.planStore(period: period, start: start, shareable: shareable)
  }

  static func expiries(_ store: inout Store, renewals: Int) throws -> [String] {
    var list: [String] = []
    for _ in 0..<renewals {
      list.append(ISO8601.string(try #require(store.status()?.renewalInfo.renewalDate)))
      _ = try store.advanceToNextEvent()
    }
    return list
  }

  static func keys(_ json: JSONOutput?) -> Set<String> {
    if case .object(let d)? = json { return Set(d.keys) }
    return []
  }

  // notification-payload-is-apple-shape
  @Test func signedNotificationPayloadHoldsOnlyApplesDataKeys() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("monthly")
    _ = try store.buyProduct("fuel")
    let fuel = try #require(store.latestTransaction(for: "fuel"))
    try store.requestRefund(fuel.id, reason: .legal)
    let allowed: Set<String> = [
      "appAppleId", "bundleId", "bundleVersion", "environment", "signedTransactionInfo", "signedRenewalInfo", "status",
      "consumptionRequestReason",
    ]
    for n in store.notifications {
      let payload = store.payload(n)
      #expect(
        Self.keys(payload).isSubset(of: [
          "notificationType", "subtype", "notificationUUID", "version", "signedDate", "data",
        ]))
      #expect(Self.keys(payload["data"]).isSubset(of: allowed))
      // What is POSTed is exactly this payload, signed.
      #expect(store.signedBody(n)["signedPayload"] == .string(JWS.sign(payload, signer: store.state.signer)))
      // The decoded view for people carries the same data plus the decoded copies.
      #expect(
        Self.keys(store.decodedPayload(n)["data"])
          == Self.keys(payload["data"]).union(
            n.renewalInfo == nil ? ["transactionInfo"] : ["transactionInfo", "renewalInfo"]))
    }
    let request = try #require(store.notifications.last)
    #expect(request.notificationType == .consumptionRequest)
    #expect(store.payload(request)["data"]?["consumptionRequestReason"] == .string("LEGAL"))
  }

  // refund-requests-wait-for-an-answer
  @Test func refundRequestWaitsUntilTheAppStoreAnswers() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    let request = try store.requestRefund(car.id).value
    #expect(store.refundRequests().map(\.id) == [request.id])
    #expect(store.customer()?.transaction(car.id)?.isRevoked == false)
    #expect(store.currentEntitlements().map(\.id) == [car.id])
    #expect(throws: StoreError.duplicateRefundRequest(car.id)) { try store.requestRefund(car.id) }
    let refunded = try store.approveRefundRequest(request.id, reason: .developerIssue).value
    #expect(refunded == car.id)
    #expect(store.refundRequests().isEmpty)
    #expect(store.customer()?.transaction(car.id)?.revocationReason == .developerIssue)
    #expect(store.lastNotification?.name == "REFUND")
    #expect(throws: StoreError.noRefundRequest(request.id)) { try store.approveRefundRequest(request.id) }
  }

  // consumption-request-for-consumables-and-subscriptions
  @Test func refundRequestSendsConsumptionRequestForConsumablesAndSubscriptionsOnly() throws {
    var store = Fixtures.store()
    let fuel = try store.buyProduct("fuel")
    let car = try store.buyProduct("car")
    let pass = try store.buyProduct("pass")
    let sub = try store.buyProduct("pro")
    let before = store.notifications.count
    try store.requestRefund(car.id)
    try store.requestRefund(pass.id)
    #expect(store.notifications.count == before)
    try store.requestRefund(fuel.id, reason: .unintendedPurchase)
    #expect(store.lastNotification?.name == "CONSUMPTION_REQUEST")
    #expect(store.notifications.last?.consumptionRequestReason == .unintendedPurchase)
    #expect(store.notifications.last?.renewalInfo == nil)
    try store.requestRefund(sub.id, reason: .fulfillmentIssue)
    #expect(
      store.notifications.suffix(2).map(\.name) == [
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "CONSUMPTION_REQUEST",
      ])
    #expect(store.notifications.last?.status == .subscribed)
    #expect(store.notifications.last?.renewalInfo?.willAutoRenew == false)
  }

  // refund-request-turns-auto-renew-off
  @Test func refundRequestForASubscriptionTurnsAutoRenewOff() throws {
    var store = Fixtures.store()
    let sub = try store.buyProduct("pro")
    try store.requestRefund(sub.id)
    #expect(store.status()?.renewalInfo.willAutoRenew == false)
    #expect(store.status()?.state == .subscribed)
  }

  // refund-decline
  @Test func declinedRefundRequestSendsRefundDeclinedAndChangesNothingElse() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    let request = try store.requestRefund(car.id).value
    let transactions = store.customer()?.transactions
    try store.declineRefundRequest(request.id)
    #expect(store.lastNotification?.name == "REFUND_DECLINED")
    #expect(store.refundRequests().isEmpty)
    #expect(store.customer()?.transactions == transactions)
    #expect(store.currentEntitlements().map(\.id) == [car.id])
  }

  // refund-reversal-restores-access
  @Test func reversedRefundRestoresAccessAndKeepsTheRenewalDate() throws {
    var store = Fixtures.store()
    let sub = try store.buyProduct("pro")
    try store.refund(sub.id)
    #expect(store.status()?.state == .revoked)
    try store.reverseRefund(sub.id)
    #expect(store.lastNotification?.name == "REFUND_REVERSED")
    let t = try #require(store.customer()?.transaction(sub.id))
    #expect(t.revocationDate == nil && t.revocationReason == nil)
    #expect(store.status()?.state == .subscribed)
    #expect(store.status()?.renewalInfo.renewalDate == sub.expirationDate)
    #expect(store.currentEntitlements().map(\.id) == [sub.id])
    #expect(throws: StoreError.notRefunded(sub.id)) { try store.reverseRefund(sub.id) }
  }

  // price-increase-changes-the-renewal-price
  @Test func priceIncreaseShowsTheNewRenewalPriceAndChargesItAfterConsent() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("pro")
    try store.requestPriceIncreaseConsent(productID: "pro", price: Decimal(string: "19.99")!)
    #expect(store.status()?.renewalInfo.renewalPrice == Decimal(string: "19.99")!)
    #expect(store.status()?.renewalInfo.priceIncreaseStatus == .pending)
    try store.consentToPriceIncrease(productID: "pro")
    _ = try store.advanceToNextEvent()
    #expect(store.latestTransaction(for: "pro")?.price == Decimal(string: "19.99")!)
    _ = try store.advanceToNextEvent()
    #expect(store.latestTransaction(for: "pro")?.price == Decimal(string: "19.99")!)
    #expect(throws: StoreError.invalidPrice(0)) { try store.requestPriceIncreaseConsent(productID: "pro", price: 0) }
  }

  // price-increase-without-consent-is-accepted-at-once
  @Test func priceIncreaseWithoutConsentIsAcceptedAtOnce() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("pro")
    try store.requestPriceIncreaseConsent(productID: "pro", price: Decimal(string: "15.99")!, needsConsent: false)
    #expect(store.lastNotification?.name == "PRICE_INCREASE/ACCEPTED")
    #expect(store.status()?.renewalInfo.priceIncreaseStatus == .agreed)
    _ = try store.advanceToNextEvent()
    #expect(store.latestTransaction(for: "pro")?.price == Decimal(string: "15.99")!)
  }

  // price-increase-changes-the-renewal-price (ignored consent still expires with expirationIntent 3)
  @Test func ignoredPriceIncreaseWithANewPriceExpiresWithIntent3() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("pro")
    try store.requestPriceIncreaseConsent(productID: "pro", price: Decimal(string: "19.99")!)
    _ = try store.advanceToNextEvent()
    #expect(store.status()?.state == .expired)
    #expect(store.status()?.renewalInfo.expirationReason == .didNotConsentToPriceIncrease)
  }

  // renewals-keep-the-anniversary
  @Test(.tags(.inferred)) func monthlyRenewalKeepsTheAnniversaryDay() throws {
    var store = Self.store(period: "P1M")
    _ = try store.buyProduct("plan")
    #expect(
      try Self.expiries(&store, renewals: 4) == [
        "2026-02-28T12:00:00Z", "2026-03-31T12:00:00Z", "2026-04-30T12:00:00Z", "2026-05-31T12:00:00Z",
      ])
  }

  // renewals-keep-the-anniversary
  @Test(
    .tags(.inferred),
    arguments: [
      // P2M from 2025-12-31
      ("P2M", 1_767_182_400.0, ["2026-02-28T12:00:00Z", "2026-04-30T12:00:00Z", "2026-06-30T12:00:00Z"]),
      // P3M from 2025-11-30
      ("P3M", 1_764_504_000.0, ["2026-02-28T12:00:00Z", "2026-05-30T12:00:00Z", "2026-08-30T12:00:00Z"]),
      // P6M from 2025-08-31
      ("P6M", 1_756_641_600.0, ["2026-02-28T12:00:00Z", "2026-08-31T12:00:00Z", "2027-02-28T12:00:00Z"]),
    ])
  func multiMonthRenewalKeepsTheAnniversaryDay(_ period: String, _ start: TimeInterval, _ expected: [String]) throws {
    var store = Self.store(period: period, start: Date(timeIntervalSince1970: start))
    _ = try store.buyProduct("plan")
    #expect(try Self.expiries(&store, renewals: 3) == expected)
  }

  // renewals-keep-the-anniversary
  @Test(.tags(.inferred)) func quarterlyRenewalBoughtOnAugust31KeepsTheAnniversaryAfterFebruary() throws {
    var store = Self.store(period: "P3M", start: Date(timeIntervalSince1970: 1_788_177_600))  // 2026-08-31T12:00:00Z
    _ = try store.buyProduct("plan")
    #expect(
      try Self.expiries(&store, renewals: 3) == [
        "2026-11-30T12:00:00Z", "2027-02-28T12:00:00Z", "2027-05-31T12:00:00Z",
      ])
  }

  // renewals-keep-the-anniversary
  @Test(.tags(.inferred)) func yearlyRenewalBoughtOnFebruary29KeepsTheAnniversary() throws {
    var store = Self.store(period: "P1Y", start: Date(timeIntervalSince1970: 1_709_208_000))  // 2024-02-29T12:00:00Z
    _ = try store.buyProduct("plan")
    #expect(
      try Self.expiries(&store, renewals: 5) == [
        "2025-02-28T12:00:00Z", "2026-02-28T12:00:00Z", "2027-02-28T12:00:00Z", "2028-02-29T12:00:00Z",
        "2029-02-28T12:00:00Z",
      ])
  }

  // renewals-keep-the-anniversary (a recovery after grace starts a new anniversary)
  @Test(.tags(.inferred)) func recoveryAfterGraceStartsANewAnniversaryAtTheRecoveryDate() throws {
    var store = Self.store(period: "P1M", start: Date(timeIntervalSince1970: 1_767_960_000))  // 2026-01-09T12:00:00Z
    store.settings.shouldEnterBillingRetryOnRenewal = true
    store.settings.billingGracePeriodIsEnabled = true
    _ = try store.buyProduct("plan")
    try store.advance(to: Date(timeIntervalSince1970: 1_770_638_400))  // 2026-02-09: renewal fails
    #expect(store.status()?.state == .inGracePeriod)
    try store.advance(to: Self.jan31.addingTimeInterval(59 * 86_400))  // 2026-03-31: grace is over
    #expect(store.status()?.state == .inBillingRetryPeriod)
    store.settings.shouldEnterBillingRetryOnRenewal = false
    try store.resolveIssue(productID: "plan")
    #expect(
      try Self.expiries(&store, renewals: 3) == [
        "2026-04-30T12:00:00Z", "2026-05-31T12:00:00Z", "2026-06-30T12:00:00Z",
      ])
  }

  // buying-in-the-group-re-enables-auto-renew
  @Test(.tags(.inferred)) func downgradeBoughtAfterCancellingHappensAtTheRenewal() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("pro")
    try store.disableAutoRenew(productID: "pro")
    _ = try store.buyProduct("basic")
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")
    #expect(store.status()?.renewalInfo.willAutoRenew == true)
    #expect(store.status()?.renewalInfo.autoRenewProductID == "basic")
    _ = try store.advanceToNextEvent()
    #expect(store.status()?.state == .subscribed)
    #expect(store.latestTransaction(for: "basic")?.reason == .renewal)
  }
}
