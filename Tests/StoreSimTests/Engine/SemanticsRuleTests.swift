import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer

/// One test per rule of `docs/rules.md` from the original edge-case list; the comment above each
/// test names its rule.
/// Tests of rules tagged [inf] in `docs/rules.md` carry the `.inferred` tag, so they can be found
/// and corrected when someone verifies them on real StoreKit.
extension Tag {
  /// The rule rests on an inference ([inf] in `docs/rules.md`).
  @Tag static var inferred: Self
}

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

  // 21: rule same-device-purchase-is-not-repeated-on-updates
  @Test func rule21_sameDeviceSuccessfulPurchaseIsNotDeliveredThroughUpdates() throws {
    var store = Fixtures.store()
    let outcome = try store.purchase("car")
    let deliveries = outcome.events.compactMap { e -> StoreEvent.Delivery? in
      if case .transactionCreated(_, _, let d) = e.kind { return d }
      return nil
    }
    #expect(deliveries == [.purchaseResult])
  }

  // 22: rule ask-to-buy-is-pending-until-approved
  @Test(.tags(.inferred)) func rule22_askToBuyIsPendingThenApprovedViaUpdatesOrDeclinedToNothing() throws {
    var store = Fixtures.store { $0.askToBuyEnabled = true }
    let outcome = try store.purchase("car")
    guard case .pending(let id) = outcome.value else { Issue.record("expected pending"); return }
    #expect(store.allTransactions().isEmpty)
    #expect(store.pendingRequests().count == 1)
    try store.advance(by: 3600)
    let approved = try store.approveAskToBuyTransaction(identifier: id)
    let (t, events) = (approved.value, approved.events)
    #expect(t.purchaseDate == store.now)
    #expect(
      events.contains {
        if case .transactionCreated(_, _, .updates) = $0.kind { return true }; return false
      })
    #expect(store.lastNotification?.name == "ONE_TIME_CHARGE")

    let declined = try store.purchase("fuel")
    #expect(declined.value.name == "pending")
    let before = store.notifications.count
    try store.declineAskToBuyTransaction()
    #expect(store.allTransactions().map(\.productID) == ["car"])
    #expect(store.notifications.count == before)
    #expect(throws: StoreError.noPendingRequest(nil)) { try store.declineAskToBuyTransaction() }
  }

  // 23: rule buying-what-you-own-returns-the-existing-transaction
  @Test(.tags(.inferred)) func rule23_repurchaseOfOwnedNonConsumableOrActiveSubscriptionReturnsExistingTransaction()
    throws
  {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    let sub = try store.buyProduct("basic")
    let count = store.notifications.count
    #expect(try store.buyProduct("car").id == car.id)
    #expect(try store.buyProduct("basic").id == sub.id)
    #expect(store.notifications.count == count)
    #expect(store.allTransactions().count == 2)
  }

  // 24: rule consumables-never-entitle-non-renewing-always-do
  @Test func rule24_consumablesNeverInEntitlementsNonRenewingAlwaysLatestWithoutExpiration() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("fuel")
    let first = try store.buyProduct("pass")
    try store.finish(first.id)
    try store.advance(by: Fixtures.days(400))
    let second = try store.buyProduct("pass")
    let ents = store.currentEntitlements()
    #expect(ents.map(\.id) == [second.id])
    #expect(ents.first?.expirationDate == nil)
  }

  // 25: rule quantity-only-for-consumables-and-non-renewing
  @Test(.tags(.inferred)) func rule25_quantityAboveOneOnlyForConsumablesAndNonRenewingWithTotalPrice() throws {
    var store = Fixtures.store()
    let fuel = try store.buyProduct("fuel", options: PurchaseOptions(quantity: 3))
    #expect(fuel.purchasedQuantity == 3)
    #expect(fuel.price == Decimal(string: "2.97")!)
    let pass = try store.buyProduct("pass", options: PurchaseOptions(quantity: 2))
    #expect(pass.purchasedQuantity == 2)
    let car = try store.buyProduct("car", options: PurchaseOptions(quantity: 4))
    #expect(car.purchasedQuantity == 1)
    #expect(car.price == Decimal(string: "1.99")!)
    #expect(
      try store.purchase("fuel", options: PurchaseOptions(quantity: 11)).value == .failed(.invalidQuantity))
  }

  // 26: rule price-is-units-in-storekit-and-milliunits-on-the-server
  @Test func rule26_transactionPriceIsUnitsAndServerPriceIsMilliunits() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    #expect(car.price == Decimal(string: "1.99")!)
    let payload = TransactionPayload(car, bundleID: "b", environment: .xcode, signedDate: store.now).json
    #expect(payload["price"] == .int(1990))
    #expect(payload["currency"] == .string("USD"))
  }

  // 27: rule transaction-payload-is-apple-shape
  @Test func rule27_serverJSONOmitsFalseIsUpgradedAndNilsWithMillisecondDatesAndStringIDs() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    let payload = TransactionPayload(car, bundleID: "b", environment: .xcode, signedDate: store.now).json
    #expect(payload["isUpgraded"] == nil)
    #expect(payload["expiresDate"] == nil)
    #expect(payload["revocationDate"] == nil)
    #expect(payload["transactionId"] == .string(String(car.id)))
    #expect(payload["purchaseDate"] == .int(Fixtures.start.epochMilliseconds))
    let old = try store.buyProduct("basic")
    _ = try store.buyProduct("pro")
    let upgraded = try #require(store.customer()?.transaction(old.id))
    #expect(
      TransactionPayload(upgraded, bundleID: "b", environment: .xcode, signedDate: store.now).json["isUpgraded"]
        == .bool(true))
  }

  // 28: rule family-shared-copies-are-the-members-own
  @Test func rule28_familySharedCopiesHaveOwnIDsAndAreRevokedWithRevoke() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let car = try store.buyProduct("car")
    let copy = try #require(store.allTransactions(customer: "kid").first)
    #expect(copy.id != car.id)
    #expect(copy.ownershipType == .familyShared)
    #expect(store.currentEntitlements(customer: "kid").map(\.id) == [copy.id])
    try store.refund(car.id)
    #expect(store.currentEntitlements(customer: "kid").isEmpty)
    #expect(store.customer("kid")?.transaction(copy.id)?.isFamilyRevocation == true)
    #expect(store.lastNotification?.name == "REVOKE")
    #expect(throws: StoreError.cannotRefundFamilyShared(copy.id)) { try store.refund(copy.id, customer: "kid") }
  }

  // 29: rule several-statuses-entitle-if-any-does
  @Test func rule29_multipleStatusesEntitledIfAnyIsActive() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    _ = try store.buyProduct("pro")
    _ = try store.buyProduct("basic", customer: "kid")
    try store.expireSubscription(productID: "basic", customer: "kid")
    let statuses = store.statuses(forGroup: Fixtures.group, customer: "kid")
    #expect(statuses.count == 2)
    #expect(Set(statuses.map(\.state)) == [.expired, .subscribed])
    #expect(store.currentEntitlements(customer: "kid").map(\.productID) == ["pro"])
  }

  // 30: rule resubscribing-keeps-the-original-id
  @Test(.tags(.inferred)) func rule30_resubscribingAfterExpiryKeepsOriginalIDAndSendsResubscribe() throws {
    var store = Fixtures.store()
    let first = try store.buyProduct("basic")
    try store.expireSubscription(productID: "basic")
    try store.advance(by: Fixtures.days(10))
    let again = try store.buyProduct("pro")
    #expect(again.originalID == first.originalID)
    #expect(again.reason == .purchase)
    #expect(store.lastNotification?.name == "SUBSCRIBED/RESUBSCRIBE")
    #expect(store.status()?.renewalInfo.recentSubscriptionStartDate == first.purchaseDate)
  }

  // 31: rule win-back-offers-only-for-churned-subscriptions
  @Test func rule31_winBackOffersOnlyForChurnedSubscriptionsNeverInRetry() throws {
    var store = Fixtures.store { $0.shouldEnterBillingRetryOnRenewal = true }
    let t = try store.buyProduct("monthly")  // its product carries the win-back offer
    #expect(
      try store.purchase("monthly", options: PurchaseOptions(offer: .winBack("wb.free"))).value
        == .failed(.ineligibleForOffer))
    try store.advance(to: t.expirationDate!)
    #expect(store.status()?.state == .inBillingRetryPeriod)
    #expect(store.status()?.renewalInfo.eligibleWinBackOfferIDs == [])
    #expect(
      try store.purchase("monthly", options: PurchaseOptions(offer: .winBack("wb.free"))).value
        == .failed(.ineligibleForOffer))
    try store.disableAutoRenew(productID: "monthly")  // cancelling during retry ends it
    #expect(store.status()?.state == .expired)
    #expect(store.status()?.renewalInfo.eligibleWinBackOfferIDs == ["wb.free"])
    let back = try store.buyProduct("monthly", options: PurchaseOptions(offer: .winBack("wb.free")))
    #expect(back.offer?.type == .winBack)
    #expect(back.offer?.id == "wb.free")
    #expect(store.lastNotification?.name == "SUBSCRIBED/RESUBSCRIBE")
  }

  // 32: rule promotional-offer-follows-the-plan-change-timing
  @Test func rule32_promoOfferOnDowngradeStartsAtRenewalOnUpgradeNow() throws {
    var store = Fixtures.store()
    let pro = try store.buyProduct("pro")
    _ = try store.buyProduct("monthly", options: PurchaseOptions(offer: .promotional("promo.half")))
    #expect(store.status()?.transaction.id == pro.id)
    #expect(store.status()?.renewalInfo.offer?.id == "promo.half")
    #expect(store.lastNotification?.name == "OFFER_REDEEMED/DOWNGRADE")
    try store.advance(to: pro.expirationDate!)
    let renewal = try #require(store.status()?.transaction)
    #expect(renewal.productID == "monthly")
    #expect(renewal.offer?.type == .promotional)
    #expect(renewal.price == Decimal(string: "4.99")!)

    var up = Fixtures.store()
    _ = try up.buyProduct("weekly")
    let now = try up.buyProduct("monthly", options: PurchaseOptions(offer: .promotional("promo.half")))
    #expect(now.offer?.id == "promo.half")
    #expect(now.purchaseDate == up.now)
    #expect(up.lastNotification?.name == "OFFER_REDEEMED/UPGRADE")
  }

  // 33: rule offer-code-for-a-subscriber-starts-at-the-next-renewal
  @Test(.tags(.inferred)) func rule33_offerCodeForActiveSubscriberShowsInRenewalInfoFirstThenOnNextRenewal() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")
    _ = try store.buyProduct("monthly")  // upgrade now, no intro
    let current = try #require(store.status()?.transaction)
    #expect(current.offer == nil)
    _ = try store.buyProduct("monthly", options: PurchaseOptions(offer: .code("FREEMONTH")))
    #expect(store.status()?.renewalInfo.offer?.type == .code)
    #expect(store.status()?.transaction.offer == nil)
    #expect(store.lastNotification?.name == "OFFER_REDEEMED")
    try store.advance(to: current.expirationDate!)
    #expect(store.status()?.transaction.offer?.type == .code)
    #expect(store.status()?.transaction.offer?.id == "FREEMONTH")
  }

  // 34: rule price-increase-consent-decides-the-renewal
  @Test func rule34_ignoredPriceConsentExpiresWithDidNotConsentDeclinedExpiresVoluntarily() throws {
    var ignored = Fixtures.store()
    let t = try ignored.buyProduct("basic")
    try ignored.requestPriceIncreaseConsent(productID: "basic")
    #expect(ignored.lastNotification?.name == "PRICE_INCREASE/PENDING")
    try ignored.advance(to: t.expirationDate!)
    #expect(ignored.status()?.state == .expired)
    #expect(ignored.status()?.renewalInfo.expirationReason == .didNotConsentToPriceIncrease)
    #expect(ignored.lastNotification?.name == "EXPIRED/PRICE_INCREASE")

    var declined = Fixtures.store()
    let u = try declined.buyProduct("basic")
    try declined.requestPriceIncreaseConsent(productID: "basic")
    try declined.declinePriceIncrease(productID: "basic")
    #expect(declined.lastNotification?.name == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
    try declined.advance(to: u.expirationDate!)
    #expect(declined.status()?.renewalInfo.expirationReason == .autoRenewDisabled)
    #expect(declined.lastNotification?.name == "EXPIRED/VOLUNTARY")

    var agreed = Fixtures.store()
    let v = try agreed.buyProduct("basic")
    try agreed.requestPriceIncreaseConsent(productID: "basic")
    try agreed.consentToPriceIncrease(productID: "basic")
    #expect(agreed.lastNotification?.name == "PRICE_INCREASE/ACCEPTED")
    try agreed.advance(to: v.expirationDate!)
    #expect(agreed.lastNotification?.name == "DID_RENEW")
  }

  // 35: rule deleting-an-original-purchase-deletes-its-renewals
  @Test func rule35_deletingOriginalSubscriptionPurchaseDeletesRenewalsAndRestoresIntroEligibility() throws {
    var store = Fixtures.store()
    let first = try store.buyProduct("monthly")
    try store.advance(by: Fixtures.days(70))
    #expect(store.allTransactions().count > 2)
    try store.deleteTransaction(first.id)
    #expect(store.allTransactions().isEmpty)
    #expect(store.statuses(forGroup: Fixtures.group).isEmpty)
    #expect(store.isEligibleForIntroOffer(group: Fixtures.group))
    #expect(try store.buyProduct("monthly").offer?.type == .introductory)
  }

  // 36: rule time-rate-change-applies-to-future-periods
  @Test(.tags(.inferred)) func rule36_timeRateChangesApplyToFutureSchedulingAndWeeklyComesFromTheTable() throws {
    var store = Fixtures.store { $0.timeRate = .monthlyRenewalEveryHour }
    let weekly = try store.buyProduct("weekly")
    #expect(weekly.expirationDate == store.now.addingTimeInterval(15 * 60))  // table, not 1h/4.3
    store.settings.timeRate = .monthlyRenewalEveryThirtySeconds
    #expect(store.status()?.transaction.expirationDate == weekly.expirationDate)  // unchanged
    try store.advance(to: weekly.expirationDate!)
    let next = try #require(store.status()?.transaction)
    #expect(next.expirationDate == next.purchaseDate.addingTimeInterval(10))
  }

  // 37: rule grace-and-retry-lengths-follow-the-time-rate
  @Test(.tags(.inferred)) func rule37_graceAndRetryLengthsScaleWithTimeRate() throws {
    var store = Fixtures.store {
      $0.timeRate = .oneRenewalEveryTwoSeconds
      $0.shouldEnterBillingRetryOnRenewal = true
      $0.billingGracePeriodIsEnabled = true
    }
    let t = try store.buyProduct("basic")
    #expect(t.expirationDate == store.now.addingTimeInterval(2))
    try store.advance(by: 2)
    #expect(store.status()?.renewalInfo.gracePeriodExpirationDate == t.expirationDate!.addingTimeInterval(2))
    try store.advance(by: 2)
    #expect(store.status()?.state == .inBillingRetryPeriod)
    try store.advance(by: 2)
    #expect(store.status()?.state == .expired)  // retry = 4 s
    #expect(
      TimeRules.gracePeriod(for: SubscriptionPeriod(value: 1, unit: .week), rate: .monthlyRenewalEveryHour) == 771)
    #expect(
      TimeRules.gracePeriod(for: SubscriptionPeriod(value: 1, unit: .week), rate: .monthlyRenewalEveryThirtySeconds)
        == 9)
    #expect(
      TimeRules.billingRetryPeriod(
        for: SubscriptionPeriod(value: 1, unit: .month), rate: .monthlyRenewalEveryFiveMinutes) == 600)
  }

  // 38: rule backdated-purchase-fills-in-renewals
  @Test func rule38_backdatedPurchaseBackfillsEveryRenewalAndFutureDatesAreRejected() throws {
    var store = Fixtures.store()
    try store.advance(by: Fixtures.days(100))
    let outcome = try store.purchase("basic", at: Fixtures.start)
    #expect(outcome.transaction?.purchaseDate == Fixtures.start)
    let all = store.allTransactions()
    #expect(all.count == 4)  // Jan 1, Feb 1, Mar 1, Apr 1
    #expect(all.dropFirst().allSatisfy { $0.reason == .renewal })
    #expect(store.now == Fixtures.start.addingTimeInterval(Fixtures.days(100)))
    let future = store.now.addingTimeInterval(60)
    #expect(throws: StoreError.purchaseDateInFuture(future)) { try store.purchase("car", at: future) }
  }

  // 39: rule sandbox-stops-after-twelve-renewals
  @Test(.tags(.inferred)) func rule39_sandboxStopsRenewingAfterTwelveRenewalsXcodeDoesNot() throws {
    var sandbox = Fixtures.store(environment: .sandbox)
    _ = try sandbox.buyProduct("basic")
    try sandbox.advance(by: Fixtures.days(365 * 2))
    #expect(sandbox.allTransactions().count == 13)
    #expect(sandbox.status()?.state == .expired)
    var xcode = Fixtures.store()
    _ = try xcode.buyProduct("basic")
    try xcode.advance(by: Fixtures.days(365 * 2))
    #expect(xcode.allTransactions().count == 25)
    #expect(xcode.status()?.state == .subscribed)
  }

  // 40: rule signed-date-is-the-signing-time
  @Test func rule40_signedDateIsEmissionTimeAndStatusIsFreshlySigned() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")
    let first = try #require(store.status()?.renewalInfo.signedDate)
    try store.advance(by: 3600)
    #expect(store.status()?.renewalInfo.signedDate == first.addingTimeInterval(3600))
    #expect(store.notifications.first?.signedDate == Fixtures.start)
  }

  // 41: rule simulated-errors-last-until-cleared
  @Test(.tags(.inferred)) func rule41_simulatedErrorPersistsUntilClearedWithNil() throws {
    var store = Fixtures.store()
    store.settings.setSimulatedError(SimulatedError(family: .generic, name: "networkError"), forAPI: .purchase)
    #expect(
      try store.purchase("car").value == .failed(.simulated(SimulatedError(family: .generic, name: "networkError"))))
    try store.advance(by: 60)
    #expect(
      try store.purchase("fuel").value == .failed(.simulated(SimulatedError(family: .generic, name: "networkError"))))
    store.settings.setSimulatedError(nil, forAPI: .purchase)
    #expect(try store.purchase("car").value.name == "purchased")
  }

  // 42: rule environment-defaults-to-xcode
  @Test func rule42_transactionEnvironmentIsXcodeInTheTestEnvironment() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    let payload = TransactionPayload(
      car, bundleID: store.state.bundleID, environment: store.state.environment, signedDate: store.now
    ).json
    #expect(payload["environment"] == .string("Xcode"))
  }
}
