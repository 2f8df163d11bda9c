import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Flow 4: the auto-renewable lifecycle on Premium.storekit, seen by the app through
/// StoreSimKit, with the server notification of every step.
@Suite("Flow 4: the auto-renewable lifecycle", .isolatedTestSession)
@MainActor
struct Flow4LifecycleTests {
  static let ids = [
    "com.example.premium.monthly", "com.example.premium.quarterly", "com.example.premium.yearly",
    "com.example.premium.lifetime",
  ]

  func product(_ store: SampleStore, _ id: String) -> Product { store.subscriptions.first { $0.id == id }! }

  func status(_ store: SampleStore) async throws -> Product.SubscriptionInfo.Status {
    try #require(try await store.subscriptions[0].subscription?.status.first)
  }

  @Test func freeTrialThenPaidRenewalsAndIntroEligibilityOncePerGroup() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let monthly = product(store, "com.example.premium.monthly")
      #expect(monthly.subscription?.introductoryOffer?.paymentMode == .freeTrial)
      #expect(await monthly.subscription!.isEligibleForIntroOffer)
      let trial = try #require(try await store.purchase(monthly))
      #expect(trial.offer?.type == .introductory)
      #expect(trial.offer?.paymentMode == .freeTrial)
      #expect(trial.price == 0)
      #expect(trial.expirationDate == Kit.start.addingTimeInterval(7 * Kit.day))
      #expect(session.notificationNames().last == "SUBSCRIBED/INITIAL_BUY")
      #expect(!(await monthly.subscription!.isEligibleForIntroOffer))
      #expect(!(await Product.SubscriptionInfo.isEligibleForIntroOffer(for: monthly.subscription!.subscriptionGroupID)))

      session.advance(byDays: 7)
      await session.waitForTransactionUpdates()
      let paid = try #require(await Transaction.latest(for: monthly.id)).unsafePayloadValue
      #expect(paid.reason == .renewal)
      #expect(paid.offer == nil)
      #expect(paid.price == Decimal(string: "9.99"))
      #expect(session.notificationNames().last == "DID_RENEW")
      #expect(store.updatesHandled == 1)
      #expect(store.purchasedSubscriptions == [monthly])

      // The yearly plan's intro offer is refused: the group's intro was used.
      let yearly = product(store, "com.example.premium.yearly")
      #expect(!(await yearly.subscription!.isEligibleForIntroOffer))
    }
  }

  @Test func gracePeriodThenBillingRetryThenRecovery() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let monthly = product(store, "com.example.premium.monthly")
      let first = try #require(try await store.purchase(monthly))
      session.shouldEnterBillingRetryOnRenewal = true
      session.billingGracePeriodIsEnabled = true
      session.advance(byDays: 7)
      await store.updateCustomerProductStatus()
      var s = try await status(store)
      #expect(s.state == .inGracePeriod)
      #expect(try s.renewalInfo.payloadValue.isInBillingRetry)
      #expect(try s.renewalInfo.payloadValue.gracePeriodExpirationDate == Kit.start.addingTimeInterval(23 * Kit.day))
      #expect(store.serviceEntitlement == .premium)  // still entitled in grace (level 2)
      #expect(session.notificationNames().last == "DID_FAIL_TO_RENEW/GRACE_PERIOD")

      session.advance(byDays: 16)
      await store.updateCustomerProductStatus()
      s = try await status(store)
      #expect(s.state == .inBillingRetryPeriod)
      #expect(store.purchasedSubscriptions.isEmpty)
      #expect(store.serviceEntitlement == .notEntitled)
      #expect(session.notificationNames().last == "GRACE_PERIOD_EXPIRED")

      // The customer fixes the payment method: recovered, the new transaction on updates.
      session.shouldEnterBillingRetryOnRenewal = false
      try session.resolveIssueForTransaction(identifier: UInt(first.id))
      await session.waitForTransactionUpdates()
      s = try await status(store)
      #expect(s.state == .subscribed)
      #expect(session.notificationNames().last == "DID_RENEW/BILLING_RECOVERY")
      #expect(store.purchasedSubscriptions == [monthly])
      #expect(store.updatesHandled == 1)
    }
  }

  @Test func billingRetryRunsOutAfterSixtyDaysThenWinBack() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let monthly = product(store, "com.example.premium.monthly")
      _ = try #require(try await store.purchase(monthly))
      session.shouldEnterBillingRetryOnRenewal = true
      session.advance(byDays: 7)
      #expect(try await status(store).state == .inBillingRetryPeriod)
      #expect(session.notificationNames().last == "DID_FAIL_TO_RENEW")
      session.advance(byDays: 60)
      let s = try await status(store)
      #expect(s.state == .expired)
      let info = try s.renewalInfo.payloadValue
      #expect(info.expirationReason == .billingError)
      #expect(!info.isInBillingRetry)
      #expect(session.notificationNames().last == "EXPIRED/BILLING_RETRY")
      session.shouldEnterBillingRetryOnRenewal = false

      // Win-back for the churned subscriber.
      #expect(info.eligibleWinBackOfferIDs == ["premium.monthly.winback"])
      let offer = try #require(monthly.subscription?.winBackOffers.first)
      let t = try #require(try await store.purchase(monthly, options: [.winBackOffer(offer)]))
      #expect(t.offer?.type == .winBack)
      #expect(session.notificationNames().last == "SUBSCRIBED/RESUBSCRIBE")
      #expect(store.purchasedSubscriptions == [monthly])
    }
  }

  @Test func cancelExpiresAtPeriodEndAndARefundRevokesAtOnce() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let quarterly = product(store, "com.example.premium.quarterly")
      let t = try #require(try await store.purchase(quarterly))
      try session.disableAutoRenewForTransaction(identifier: UInt(t.id))
      #expect(session.notificationNames().last == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
      var s = try await status(store)
      #expect(s.state == .subscribed)
      #expect(try !s.renewalInfo.payloadValue.willAutoRenew)
      session.advance(byDays: 7)
      await store.updateCustomerProductStatus()
      s = try await status(store)
      #expect(s.state == .expired)
      #expect(try s.renewalInfo.payloadValue.expirationReason == .autoRenewDisabled)
      #expect(session.notificationNames().last == "EXPIRED/VOLUNTARY")
      #expect(store.purchasedSubscriptions.isEmpty)

      // Resubscribe, then a refund: access ends at once, and the app hears it on updates.
      let again = try #require(try await store.purchase(quarterly))
      #expect(store.purchasedSubscriptions == [quarterly])
      try session.refundTransaction(identifier: UInt(again.id))
      #expect(try await status(store).state == .revoked)
      #expect(await collect(Transaction.currentEntitlements).isEmpty)
      await session.waitForTransactionUpdates()
      #expect(store.updatesHandled == 1)
      #expect(store.purchasedSubscriptions.isEmpty)
      let revoked = try #require(await Transaction.latest(for: quarterly.id)).unsafePayloadValue
      #expect(revoked.revocationDate == session.now)
      #expect(revoked.revocationReason == .other)
      #expect(session.notificationNames().last == "REFUND")
    }
  }

  @Test func upgradeDowngradeAndCrossgrade() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let monthly = product(store, "com.example.premium.monthly")
      let quarterly = product(store, "com.example.premium.quarterly")
      let yearly = product(store, "com.example.premium.yearly")
      let m = try #require(try await store.purchase(monthly))
      // Upgrade (level 2 → 1): at once; the old transaction is marked upgraded.
      _ = try #require(try await store.purchase(yearly))
      #expect(session.notificationNames().last == "DID_CHANGE_RENEWAL_PREF/UPGRADE")
      #expect(try #require(await Transaction.latest(for: m.productID)).unsafePayloadValue.isUpgraded)
      #expect(store.purchasedSubscriptions == [yearly])
      // Downgrade (level 1 → 2): from the next renewal.
      _ = try await store.purchase(quarterly)
      #expect(session.notificationNames().last == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")
      var info = try await status(store).renewalInfo.payloadValue
      #expect(info.currentProductID == yearly.id)
      #expect(info.autoRenewPreference == quarterly.id)
      // Back to the yearly plan: the renewal preference changes back.
      _ = try await store.purchase(yearly)
      info = try await status(store).renewalInfo.payloadValue
      #expect(info.autoRenewPreference == yearly.id)
      #expect(session.notificationNames().last == "DID_CHANGE_RENEWAL_PREF")
      // Crossgrade within level 2 (monthly ↔ quarterly) from yearly's downgrade: renews into quarterly.
      _ = try await store.purchase(quarterly)
      try session.forceRenewalOfSubscription(productIdentifier: yearly.id)
      await session.waitForTransactionUpdates()
      #expect(try await status(store).renewalInfo.payloadValue.currentProductID == quarterly.id)
      #expect(store.purchasedSubscriptions == [quarterly])
    }
  }

  @Test func promotionalOfferCodeAndPriceIncreaseConsent() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let monthly = product(store, "com.example.premium.monthly")
      let yearly = product(store, "com.example.premium.yearly")
      // A promotional offer needs an existing or past subscriber.
      await #expect(throws: Product.PurchaseError.ineligibleForOffer) {
        try await yearly.purchase(options: [.promotionalOffer(id: "premium.yearly.loyalty")])
      }
      await #expect(throws: Product.PurchaseError.invalidOfferIdentifier) {
        try await yearly.purchase(options: [.promotionalOffer(id: "no.such.offer")])
      }
      let t = try #require(try await store.purchase(yearly))
      // A signature the configuration's key did not make is refused (this file has no key).
      await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
        try await yearly.purchase(options: [
          .promotionalOffer(
            offerID: "premium.yearly.loyalty", keyID: "KEY", nonce: UUID(), signature: Data(), timestamp: 0)
        ])
      }
      _ = try await yearly.purchase(options: [.promotionalOffer(id: "premium.yearly.loyalty")])
      #expect(session.notificationNames().last == "OFFER_REDEEMED")
      #expect(try await status(store).renewalInfo.payloadValue.offerID == "premium.yearly.loyalty")

      // An offer code on the monthly plan (the customer moves to it).
      _ = try await monthly.purchase(options: [.codeOffer(referenceName: "FREEMONTH")])
      #expect(session.notificationNames().contains("OFFER_REDEEMED"))

      // Price increase: consent requested, then given.
      try session.requestPriceIncreaseConsentForTransaction(identifier: UInt(t.id))
      #expect(session.notificationNames().last == "PRICE_INCREASE/PENDING")
      #expect(try await status(store).renewalInfo.payloadValue.priceIncreaseStatus == .pending)
      try session.consentToPriceIncreaseForTransaction(identifier: UInt(t.id))
      #expect(session.notificationNames().last == "PRICE_INCREASE/ACCEPTED")
      #expect(try await status(store).renewalInfo.payloadValue.priceIncreaseStatus == .agreed)
    }
  }

  @Test func declinedPriceIncreaseTurnsAutoRenewOff() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session, productIDs: Self.ids)
      let t = try #require(try await store.purchase(product(store, "com.example.premium.monthly")))
      try session.requestPriceIncreaseConsentForTransaction(identifier: UInt(t.id))
      try session.declinePriceIncreaseForTransaction(identifier: UInt(t.id))
      let info = try await status(store).renewalInfo.payloadValue
      #expect(!info.willAutoRenew)
      #expect(info.priceIncreaseStatus == .noIncreasePending)
      try session.expireSubscription(productIdentifier: t.productID)
      await store.updateCustomerProductStatus()
      #expect(try await status(store).state == .expired)
      #expect(store.serviceEntitlement == .notEntitled)
    }
  }
}
