import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Rules 21–42 of docs/rules.md (rules 1–20 are in SemanticsRuleTests.swift).
@Suite struct SemanticsRuleTests2 {
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
