import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Commitment plans (issue 35 part 1): a one-year subscription billed monthly in a 12-month
/// commitment.
@Suite struct CommitmentPlanTests {
  static let start = Date(timeIntervalSince1970: 1_768_435_200)  // 2026-01-15T00:00:00Z

  static func store(_ configure: (inout StoreKitSettings) -> Void = { _ in }) throws -> Store {
    var store = try Fixtures.store(configurationNamed: "CommitmentPlan.storekit", start: start)
    configure(&store.settings)
    return store
  }

  static let pro = "com.example.studio.pro.yearly"
  static let monthly = PurchaseOptions(billingPlanType: .monthly)

  // commitment-plan-bills-monthly-inside-twelve-months
  @Test func monthlyPlanBillsTwelveMonthlyPeriodsEachItsOwnTransactionAndDidRenew() throws {
    var store = try Self.store()
    let first = try store.buyProduct(Self.pro, options: Self.monthly)
    #expect(first.billingPlanType == .monthly)
    #expect(first.price == Decimal(string: "9.99"))
    #expect(first.expirationDate == UTCCalendar.adding(months: 1, to: Self.start))
    let c = try #require(first.commitmentInfo)
    #expect(c.billingPeriodNumber == 1 && c.totalBillingPeriods == 12)
    #expect(c.expirationDate == UTCCalendar.adding(months: 12, to: Self.start))
    #expect(c.price == Decimal(string: "119.88"))
    let payload = store.payload(first)
    #expect(payload["billingPlanType"] == .string("MONTHLY"))
    #expect(payload["commitmentInfo"]?["commitmentPrice"] == .int(119_880))
    for k in 2...12 {
      _ = try store.advanceToNextEvent()
      #expect(store.lastNotification?.name == "DID_RENEW")
      #expect(store.latestTransaction(for: Self.pro)?.commitmentInfo?.billingPeriodNumber == k)
    }
    #expect(store.allTransactions().count == 12)
    // The commitment renews (its renewal was left on): period 1 of a new commitment.
    _ = try store.advanceToNextEvent()
    #expect(store.lastNotification?.name == "DID_RENEW")
    let renewed = try #require(store.latestTransaction(for: Self.pro)?.commitmentInfo)
    #expect(renewed.billingPeriodNumber == 1)
    #expect(renewed.expirationDate == UTCCalendar.adding(months: 24, to: Self.start))
  }

  // commitment-plan-bills-monthly-inside-twelve-months
  @Test func upfrontSubscriptionsSayBilledUpfrontAndCarryNoCommitment() throws {
    var store = try Self.store()
    let t = try store.buyProduct(Self.pro)
    #expect(t.billingPlanType == .billedUpfront && t.commitmentInfo == nil)
    #expect(store.payload(t)["billingPlanType"] == .string("BILLED_UPFRONT"))
    let info = try #require(store.commitmentStatus()?.renewalInfo)
    #expect(info.renewalBillingPlanType == .billedUpfront && info.commitment == nil)
  }

  // cancelling-a-commitment-stops-only-its-renewal
  @Test func cancelInMonthTwoKeepsBillingAndExpiresAfterPeriodTwelve() throws {
    var store = try Self.store()
    _ = try store.buyProduct(Self.pro, options: Self.monthly)
    _ = try store.advanceToNextEvent()
    try store.disableAutoRenew(productID: Self.pro)
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
    let info = try #require(store.commitmentStatus()?.renewalInfo)
    #expect(info.willAutoRenew)
    #expect(info.commitment?.willAutoRenew == false)
    #expect(store.payload(info)["commitmentInfo"]?["commitmentAutoRenewStatus"] == .int(0))
    for _ in 3...12 { _ = try store.advanceToNextEvent() }
    #expect(store.lastNotification?.name == "DID_RENEW")
    #expect(!store.currentEntitlements().isEmpty)
    _ = try store.advanceToNextEvent()
    #expect(store.lastNotification?.name == "EXPIRED/VOLUNTARY")
    #expect(store.currentEntitlements().isEmpty)
    #expect(store.commitmentStatus()?.renewalInfo.commitment == nil)
    // Turning it back on before the end sends AUTO_RENEW_ENABLED (checked on a fresh store).
    var again = try Self.store()
    _ = try again.buyProduct(Self.pro, options: Self.monthly)
    try again.disableAutoRenew(productID: Self.pro)
    try again.enableAutoRenew(productID: Self.pro)
    #expect(again.lastNotification?.name == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED")
    #expect(again.commitmentStatus()?.renewalInfo.commitment?.willAutoRenew == true)
  }

  // commitment-billing-retry-has-no-grace-and-lasts-90-days
  @Test func billingFailureHasNoGraceAndRecoveryShiftsTheCommitmentEnd() throws {
    var store = try Self.store {
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    let first = try store.buyProduct(Self.pro, options: Self.monthly)
    try store.advance(to: first.expirationDate!)
    #expect(store.lastNotification?.name == "DID_FAIL_TO_RENEW")
    #expect(store.commitmentStatus()?.state == .inBillingRetryPeriod)
    #expect(store.currentEntitlements().isEmpty)
    try store.advance(by: Fixtures.days(10))
    store.settings.shouldEnterBillingRetryOnRenewal = false
    try store.resolveIssue(productID: Self.pro)
    #expect(store.lastNotification?.name == "DID_RENEW/BILLING_RECOVERY")
    let c = try #require(store.latestTransaction(for: Self.pro)?.commitmentInfo)
    #expect(c.billingPeriodNumber == 2)
    #expect(c.expirationDate == UTCCalendar.adding(months: 12, to: Self.start).addingTimeInterval(Fixtures.days(10)))
  }

  // commitment-billing-retry-has-no-grace-and-lasts-90-days
  @Test func noRecoveryWithin90DaysEndsTheCommitmentWithBillingRetry() throws {
    var store = try Self.store { $0.shouldEnterBillingRetryOnRenewal = true }
    let first = try store.buyProduct(Self.pro, options: Self.monthly)
    try store.advance(to: first.expirationDate!.addingTimeInterval(Fixtures.days(89)))
    #expect(store.commitmentStatus()?.state == .inBillingRetryPeriod)
    try store.advance(by: Fixtures.days(1))
    #expect(store.lastNotification?.name == "EXPIRED/BILLING_RETRY")
    #expect(store.commitmentStatus()?.renewalInfo.isInBillingRetry == false)
  }

  // commitment-refund-of-the-current-period-ends-it
  @Test func refundOfAPastPeriodKeepsTheCommitmentAndOfTheCurrentOneEndsIt() throws {
    var store = try Self.store()
    let first = try store.buyProduct(Self.pro, options: Self.monthly)
    _ = try store.advanceToNextEvent()
    try store.refund(first.id)
    #expect(store.lastNotification?.name == "REFUND")
    #expect(store.commitmentStatus()?.state == .subscribed)
    #expect(store.commitmentStatus()?.renewalInfo.commitment != nil)
    let current = try #require(store.latestTransaction(for: Self.pro))
    try store.refund(current.id)
    #expect(store.commitmentStatus()?.state == .revoked)
    #expect(store.commitmentStatus()?.renewalInfo.commitment == nil)
    let before = store.notifications.count
    _ = try? store.advance(by: Fixtures.days(60))
    #expect(!store.notifications.dropFirst(before).contains { $0.notificationType == .didRenew })
  }

  // commitment-downgrade-waits-for-the-commitment-end
  @Test func downgradeWaitsForTheCommitmentEndAndUpgradeEndsItAtOnce() throws {
    var store = try Self.store()
    _ = try store.buyProduct(Self.pro, options: Self.monthly)
    _ = try store.buyProduct("com.example.studio.basic.yearly")
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")
    #expect(store.commitmentStatus()?.renewalInfo.commitment?.autoRenewProductID == "com.example.studio.basic.yearly")
    #expect(store.commitmentStatus()?.renewalInfo.autoRenewProductID == Self.pro)
    for _ in 2...12 { _ = try store.advanceToNextEvent() }
    #expect(store.latestTransaction(for: Self.pro)?.commitmentInfo?.billingPeriodNumber == 12)
    _ = try store.advanceToNextEvent()
    let basic = try #require(store.latestTransaction(for: "com.example.studio.basic.yearly"))
    #expect(basic.billingPlanType == .billedUpfront)
    #expect(basic.expirationDate == UTCCalendar.adding(months: 24, to: Self.start))

    var upgrading = try Self.store()
    _ = try upgrading.buyProduct(Self.pro, options: Self.monthly)
    let max = try upgrading.buyProduct("com.example.studio.max.yearly")
    #expect(max.billingPlanType == .billedUpfront)
    #expect(upgrading.commitmentStatus()?.renewalInfo.commitment == nil)
  }

  // commitment-plan-bills-monthly-inside-twelve-months
  @Test func monthlyPlanIsRefusedWithoutAnEnabledPlanOrWhileSubscribed() throws {
    var store = try Self.store()
    let before = store.state
    let refused = try store.purchase("com.example.studio.basic.yearly", options: Self.monthly)
    #expect(refused.transaction == nil)
    #expect(store.state.customers == before.customers)
    _ = try store.buyProduct(Self.pro)
    #expect(try store.purchase(Self.pro, options: Self.monthly).transaction == nil)
  }
}

extension Store {
  /// The customer's own status in the commitment example's group.
  fileprivate func commitmentStatus() -> SubscriptionStatus? {
    statuses(forGroup: "C0111111").first { !$0.isFamilyShared }
  }
}
