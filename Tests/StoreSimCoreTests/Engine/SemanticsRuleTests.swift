import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// One test per rule of `docs/rules.md` from the original edge-case list; the comment above each
/// test names its rule.
/// Tests of rules tagged [inf] in `docs/rules.md` carry the `.inferred` tag (StoreSimTestSupport).

@Suite struct SemanticsRuleTests {
  // 1: rule intro-offer-eligibility-is-per-group
  @Test func rule01_introOfferEligibilityIsPerGroup() throws {
    var store = Fixtures.store()
    let first = try store.buyProduct("monthly")
    #expect(first.offer?.type == .introductory)
    try store.expireSubscription(productID: "monthly")
    let second = try store.buyProduct("yearly")
    #expect(second.offer == nil)
    #expect(!store.isEligibleForIntroOffer(group: Fixtures.group))
    let explicit = try store.purchase("yearly", options: PurchaseOptions(offer: .introductory))
    #expect(explicit.value == .failed(.ineligibleForOffer) || explicit.transaction?.offer == nil)
  }

  // 2: rule plan-changes-never-get-an-intro-offer
  @Test func rule02_planChangesNeverGetAnIntroOffer() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")  // basic has no intro, so the group's intro is unused
    #expect(store.isEligibleForIntroOffer(group: Fixtures.group))
    let upgraded = try store.buyProduct("monthly")
    #expect(upgraded.offer == nil)
    #expect(upgraded.price == Decimal(string: "9.99")!)
  }

  // 3: rule upgrade-is-immediate-and-marks-the-old-transaction-upgraded
  @Test func rule03_upgradeIsImmediateAndMarksOldTransactionUpgradedWithoutRevocation() throws {
    var store = Fixtures.store()
    let old = try store.buyProduct("basic")
    try store.advance(by: Fixtures.days(10))
    let new = try store.buyProduct("pro")
    #expect(new.id != old.id)
    #expect(new.originalID == old.originalID)
    #expect(new.purchaseDate == store.now)
    #expect(new.reason == .purchase)
    let oldNow = try #require(store.customer()?.transaction(old.id))
    #expect(oldNow.isUpgraded)
    #expect(oldNow.revocationDate == nil)
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF/UPGRADE")
    #expect(store.currentEntitlements().map(\.productID) == ["pro"])
  }

  // 4: rule same-duration-crossgrade-is-an-upgrade
  @Test func rule04_sameLevelSameDurationCrossgradeBehavesLikeUpgrade() throws {
    var store = Fixtures.store()
    let old = try store.buyProduct("monthly")
    let new = try store.buyProduct("monthly.alt")
    #expect(new.productID == "monthly.alt")
    #expect(store.customer()?.transaction(old.id)?.isUpgraded == true)
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF/UPGRADE")
  }

  // 5: rule downgrade-waits-for-the-renewal
  @Test func rule05_downgradeAndDifferentDurationCrossgradeCreateNoTransaction() throws {
    var store = Fixtures.store()
    let current = try store.buyProduct("pro")
    let count = store.allTransactions().count
    let result = try store.buyProduct("basic")
    #expect(result.id == current.id)
    #expect(store.allTransactions().count == count)
    #expect(store.status()?.renewalInfo.autoRenewProductID == "basic")
    #expect(store.status()?.renewalInfo.currentProductID == "pro")
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")
    var cross = Fixtures.store()
    _ = try cross.buyProduct("basic")  // no intro
    _ = try cross.buyProduct("pro")
    let before = cross.allTransactions().count
    _ = try cross.buyProduct("monthly.alt")  // level 2 from level 1: downgrade
    _ = try cross.buyProduct("yearly")  // same level as the pending one? current is pro (1) -> downgrade
    #expect(cross.allTransactions().count == before)
    var crossgrade = Fixtures.store()
    _ = try crossgrade.buyProduct("monthly.alt")
    let n = crossgrade.allTransactions().count
    _ = try crossgrade.buyProduct("yearly")  // same level, different duration
    #expect(crossgrade.allTransactions().count == n)
    #expect(crossgrade.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")
  }

  // 6: rule buying-the-current-plan-cancels-a-pending-downgrade
  @Test func rule06_buyingCurrentPlanWhileDowngradePendingCancelsTheDowngrade() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("pro")
    _ = try store.buyProduct("basic")
    _ = try store.buyProduct("pro")
    #expect(store.status()?.renewalInfo.autoRenewProductID == "pro")
    #expect(store.lastNotification?.name == "DID_CHANGE_RENEWAL_PREF")
  }

  // 7: rule renewal-is-a-new-transaction-with-the-same-original-id
  @Test func rule07_renewalKeepsOriginalIDWithNewIDWebOrderAndReasonRenewal() throws {
    var store = Fixtures.store()
    let first = try store.buyProduct("basic")
    try store.advance(by: Fixtures.days(31))
    let renewal = try #require(store.latestTransaction(for: "basic"))
    #expect(renewal.id != first.id)
    #expect(renewal.originalID == first.id)
    #expect(renewal.webOrderLineItemID != nil && renewal.webOrderLineItemID != first.webOrderLineItemID)
    #expect(renewal.reason == .renewal)
    #expect(renewal.purchaseDate == first.expirationDate)
    #expect(store.lastNotification?.name == "DID_RENEW")
  }

  // 8: rule renewal-uses-the-auto-renew-preference
  @Test(.tags(.inferred)) func rule08_renewalProductIsTheAutoRenewPreference() throws {
    var store = Fixtures.store()
    let pro = try store.buyProduct("pro")
    _ = try store.buyProduct("basic")
    try store.advance(to: pro.expirationDate!)
    let renewal = try #require(store.status()?.transaction)
    #expect(renewal.productID == "basic")
    #expect(renewal.reason == .renewal)
  }

  // 9: rule offer-payment-mode-shapes-the-transactions
  @Test(.tags(.inferred)) func rule09_freeTrialConversionIsARenewal() throws {
    var store = Fixtures.store()
    let trial = try store.buyProduct("monthly")
    #expect(trial.price == 0)
    #expect(trial.offer?.paymentMode == .freeTrial)
    try store.advance(to: trial.expirationDate!)
    let paid = try #require(store.status()?.transaction)
    #expect(paid.reason == .renewal)
    #expect(paid.offer == nil)
    #expect(paid.price == Decimal(string: "9.99")!)
  }

  // 10: rule auto-renew-off-keeps-access-until-expiry
  @Test func rule10_autoRenewOffKeepsSubscribedUntilExpiration() throws {
    var store = Fixtures.store()
    let t = try store.buyProduct("basic")
    try store.disableAutoRenew(productID: "basic")
    #expect(store.status()?.state == .subscribed)
    #expect(store.status()?.renewalInfo.willAutoRenew == false)
    #expect(store.status()?.renewalInfo.autoRenewPreference == nil)
    try store.advance(to: t.expirationDate!.addingTimeInterval(-1))
    #expect(store.status()?.state == .subscribed)
    try store.advance(by: 1)
    #expect(store.status()?.state == .expired)
    #expect(store.status()?.renewalInfo.expirationReason == .autoRenewDisabled)
    #expect(store.lastNotification?.name == "EXPIRED/VOLUNTARY")
  }

  // 11: rule expire-subscription-ends-the-period-now, rule force-renewal-leaves-billing-retry-alone
  @Test(.tags(.inferred)) func rule11_expireSubscriptionEndsNowAndForceRenewalTurnsAutoRenewOnKeepingBillingRetry()
    throws
  {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")
    try store.advance(by: Fixtures.days(5))
    try store.expireSubscription(productID: "basic")
    #expect(store.status()?.state == .expired)
    #expect(store.status()?.renewalInfo.willAutoRenew == false)
    #expect(store.status()?.transaction.expirationDate == store.now)

    var other = Fixtures.store()
    _ = try other.buyProduct("basic")
    try other.disableAutoRenew(productID: "basic")
    try other.requestPriceIncreaseConsent(productID: "basic")
    try other.forceRenewal(productID: "basic")
    #expect(other.status()?.renewalInfo.willAutoRenew == true)
    #expect(other.status()?.renewalInfo.priceIncreaseStatus == .noIncreasePending)
    #expect(other.status()?.transaction.reason == .renewal)
    #expect(other.status()?.transaction.purchaseDate == other.now)

    var failing = Fixtures.store { $0.shouldEnterBillingRetryOnRenewal = true }
    let t = try failing.buyProduct("basic")
    try failing.advance(to: t.expirationDate!)
    #expect(failing.status()?.state == .inBillingRetryPeriod)
    let count = failing.allTransactions().count
    try failing.forceRenewal(productID: "basic")
    #expect(failing.status()?.state == .inBillingRetryPeriod)
    #expect(failing.allTransactions().count == count)
  }

  // 12: rule grace-period-keeps-access-and-ends-in-billing-retry
  @Test func rule12_billingFailureWithGraceStaysEntitledInRetryWithGraceDate() throws {
    var store = Fixtures.store {
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    let t = try store.buyProduct("basic")
    try store.advance(to: t.expirationDate!)
    let status = try #require(store.status())
    #expect(status.state == .inGracePeriod)
    #expect(status.renewalInfo.isInBillingRetry)
    #expect(status.renewalInfo.expirationReason == .billingError)
    #expect(status.renewalInfo.gracePeriodExpirationDate == t.expirationDate!.addingTimeInterval(Fixtures.days(16)))
    #expect(store.currentEntitlements().map(\.id) == [t.id])
    #expect(store.lastNotification?.name == "DID_FAIL_TO_RENEW/GRACE_PERIOD")
  }

  // 13: rule grace-period-keeps-access-and-ends-in-billing-retry
  @Test func rule13_graceEndingMovesToBillingRetryAndStopsEntitlement() throws {
    var store = Fixtures.store {
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    let t = try store.buyProduct("basic")
    try store.advance(to: t.expirationDate!.addingTimeInterval(Fixtures.days(16)))
    #expect(store.status()?.state == .inBillingRetryPeriod)
    #expect(store.status()?.renewalInfo.gracePeriodExpirationDate == nil)
    #expect(store.currentEntitlements().isEmpty)
    #expect(store.lastNotification?.name == "GRACE_PERIOD_EXPIRED")
  }

  // 14: rule billing-retry-ends-in-expiry-with-billing-error
  @Test func rule14_retryWindowEndingExpiresWithBillingErrorAndNoRetry() throws {
    var store = Fixtures.store { $0.shouldEnterBillingRetryOnRenewal = true }
    let t = try store.buyProduct("basic")
    try store.advance(to: t.expirationDate!)
    #expect(store.lastNotification?.name == "DID_FAIL_TO_RENEW")
    try store.advance(to: t.expirationDate!.addingTimeInterval(Fixtures.days(60)))
    let status = try #require(store.status())
    #expect(status.state == .expired)
    #expect(!status.renewalInfo.isInBillingRetry)
    #expect(status.renewalInfo.expirationReason == .billingError)
    #expect(store.lastNotification?.name == "EXPIRED/BILLING_RETRY")
  }

  // 15: rule recovery-inside-grace-keeps-the-billing-date
  @Test func rule15_recoveryInsideGraceKeepsAnchorAfterGraceStartsNewAnchor() throws {
    var inGrace = Fixtures.store {
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    let t = try inGrace.buyProduct("basic")
    try inGrace.advance(to: t.expirationDate!.addingTimeInterval(Fixtures.days(3)))
    inGrace.settings.shouldEnterBillingRetryOnRenewal = false
    try inGrace.resolveIssue(productID: "basic")
    let recovered = try #require(inGrace.status()?.transaction)
    #expect(recovered.purchaseDate == t.expirationDate)
    #expect(inGrace.status()?.state == .subscribed)
    #expect(inGrace.lastNotification?.name == "DID_RENEW/BILLING_RECOVERY")

    var afterGrace = Fixtures.store {
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    let u = try afterGrace.buyProduct("basic")
    try afterGrace.advance(to: u.expirationDate!.addingTimeInterval(Fixtures.days(20)))
    afterGrace.settings.shouldEnterBillingRetryOnRenewal = false
    try afterGrace.resolveIssue(productID: "basic")
    let late = try #require(afterGrace.status()?.transaction)
    #expect(late.purchaseDate == afterGrace.now)
    #expect(late.reason == .renewal)
    #expect(afterGrace.lastNotification?.name == "DID_RENEW/BILLING_RECOVERY")
  }

  // 16: rule billing-failure-creates-no-transaction
  @Test func rule16_duringBillingFailureNoNewTransactionAndLatestHasPastExpiration() throws {
    var store = Fixtures.store { $0.shouldEnterBillingRetryOnRenewal = true }
    let t = try store.buyProduct("basic")
    try store.advance(to: t.expirationDate!.addingTimeInterval(Fixtures.days(2)))
    #expect(store.allTransactions().map(\.id) == [t.id])
    let latest = try #require(store.status()?.transaction)
    #expect(latest.expirationDate! < store.now)
  }

  // 17: rule refund-of-the-current-period-revokes-the-subscription
  @Test(.tags(.inferred)) func rule17_refundOfCurrentPeriodRevokesButRefundOfOldRenewalKeepsAccess() throws {
    var store = Fixtures.store()
    let first = try store.buyProduct("basic")
    try store.advance(by: Fixtures.days(40))
    try store.refund(first.id)
    #expect(store.status()?.state == .subscribed)
    #expect(store.currentEntitlements().count == 1)
    let current = try #require(store.status()?.transaction)
    try store.refund(current.id, reason: .developerIssue)
    #expect(store.status()?.state == .revoked)
    #expect(store.currentEntitlements().isEmpty)
    #expect(store.lastNotification?.name == "REFUND")
    #expect(store.notifications.last?.status == .revoked)
  }

  // 18: rule refunded-transactions-leave-entitlements-but-stay-in-history
  @Test func rule18_refundedTransactionsLeaveEntitlementsButStayInAllAndLatest() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    try store.refund(car.id, reason: .developerIssue)
    #expect(store.currentEntitlements().isEmpty)
    let all = store.allTransactions()
    #expect(all.map(\.id) == [car.id])
    #expect(all.first?.revocationDate == store.now)
    #expect(all.first?.revocationReason == .developerIssue)
    #expect(store.latestTransaction(for: "car")?.revocationDate != nil)
  }

  // 19: rule finished-consumables-leave-history-until-refunded
  @Test func rule19_finishedConsumablesDisappearAndComeBackWhenRefunded() throws {
    var store = Fixtures.store()
    let fuel = try store.buyProduct("fuel")
    try store.finish(fuel.id)
    #expect(store.allTransactions().isEmpty)
    #expect(store.latestTransaction(for: "fuel") == nil)
    try store.refund(fuel.id)
    #expect(store.allTransactions().map(\.id) == [fuel.id])
    #expect(store.latestTransaction(for: "fuel")?.id == fuel.id)
  }

  // 20: rule unfinished-transactions-stay-until-finished
  @Test func rule20_unfinishedTransactionsStayUnfinishedUntilFinished() throws {
    var store = Fixtures.store()
    let fuel = try store.buyProduct("fuel")
    let car = try store.buyProduct("car")
    #expect(store.unfinishedTransactions().map(\.id) == [fuel.id, car.id])
    try store.finish(car.id)
    try store.finish(car.id)  // idempotent
    #expect(store.unfinishedTransactions().map(\.id) == [fuel.id])
  }
}
