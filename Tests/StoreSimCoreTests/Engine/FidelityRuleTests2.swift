import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Issue 14's rules, continued (`FidelityRuleTests` holds the first half and the helpers).
extension FidelityRuleTests {
  // offer-period-is-the-whole-offer
  @Test func payAsYouGoOfferPeriodIsTheWholeOffer() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")
    // 3 × P1M pay as you go, an upgrade.
    _ = try store.buyProduct("monthly", options: PurchaseOptions(offer: .promotional("promo.half")))
    let t = try #require(store.latestTransaction(for: "monthly"))
    #expect(t.offer?.period.iso8601 == "P3M")
    #expect(store.payload(t)["offerPeriod"] == .string("P3M"))
    #expect(store.status()?.renewalInfo.offer?.period.iso8601 == "P3M")
    #expect(t.expirationDate == UTCCalendar.adding(months: 1, to: t.purchaseDate))
  }

  // family-revoke-only-on-lost-access
  @Test func refundOfAnOldRenewalRevokesTheMembersOldCopyWithoutRevoke() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let first = try store.buyProduct("pro")
    _ = try store.advanceToNextEvent()
    let kidFirst = try #require(store.customer("kid")?.transactions.first { $0.sharedTransactionID == first.id })
    let before = store.notifications.count
    try store.refund(first.id)
    #expect(store.customer("kid")?.transaction(kidFirst.id)?.isFamilyRevocation == true)
    #expect(!store.notifications[before...].contains { $0.customer == "kid" })
    #expect(store.currentEntitlements(customer: "kid").map(\.productID) == ["pro"])
  }

  // family-revoke-only-on-lost-access (REVOKE of an auto-renewable carries renewal info and status)
  @Test func revokeOfASharedSubscriptionCarriesRenewalInfoAndStatus() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let sub = try store.buyProduct("pro")
    try store.refund(sub.id)
    let revoke = try #require(store.notifications.last { $0.customer == "kid" })
    #expect(revoke.notificationType == .revoke)
    #expect(revoke.status == .revoked)
    #expect(revoke.renewalInfo?.currentProductID == "pro")
    #expect(store.currentEntitlements(customer: "kid").isEmpty)
  }

  // family-members-get-status-changes
  @Test(.tags(.inferred)) func familyMembersGetRenewalStatusExpiryGraceAndRetryNotifications() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    _ = try store.buyProduct("pro")
    func kid(since i: Int) -> [String] {
      store.notifications[i...].filter { $0.customer == "kid" }.map {
        $0.notificationType.rawValue + ($0.subtype.map { "/" + $0.rawValue } ?? "")
      }
    }
    var mark = store.notifications.count
    try store.disableAutoRenew(productID: "pro")
    try store.enableAutoRenew(productID: "pro")
    #expect(
      kid(since: mark) == [
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
      ])
    store.settings.shouldEnterBillingRetryOnRenewal = true
    store.settings.billingGracePeriodIsEnabled = true
    mark = store.notifications.count
    _ = try store.advanceToNextEvent()
    _ = try store.advanceToNextEvent()
    _ = try store.advanceToNextEvent()
    #expect(kid(since: mark) == ["DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY"])
    let expired = try #require(store.notifications.last { $0.customer == "kid" })
    #expect(expired.transaction?.ownershipType == .familyShared)
    #expect(expired.status == .expired)
    #expect(expired.renewalInfo != nil)
    // A recovery reaches the member as a recovery.
    _ = try store.buyProduct("pro")
    store.settings.billingGracePeriodIsEnabled = false
    _ = try store.advanceToNextEvent()
    store.settings.shouldEnterBillingRetryOnRenewal = false
    mark = store.notifications.count
    try store.resolveIssue(productID: "pro")
    #expect(kid(since: mark) == ["DID_RENEW/BILLING_RECOVERY"])
  }

  // win-back-offers-of-the-last-subscription
  @Test func eligibleWinBackOffersAreThoseOfTheLastSubscribedProduct() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("basic")
    try store.expireSubscription(productID: "basic")
    #expect(store.status()?.renewalInfo.eligibleWinBackOfferIDs == [])
    _ = try store.buyProduct("monthly")
    try store.expireSubscription(productID: "monthly")
    #expect(store.status()?.renewalInfo.eligibleWinBackOfferIDs == ["wb.free"])
  }

  // ask-to-buy-requests-are-consolidated
  @Test(.tags(.inferred)) func secondAskToBuyRequestForTheSameProductReturnsThePendingOne() throws {
    var store = Fixtures.store { $0.askToBuyEnabled = true }
    let first = try store.purchase("car").value
    try store.advance(by: 3600)
    let second = try store.purchase("car").value
    #expect(first == second)
    #expect(store.pendingRequests().count == 1)
    #expect(store.pendingRequests().first?.date == store.now)
    _ = try store.purchase("fuel")
    #expect(store.pendingRequests().count == 2)
    try store.approveAskToBuyTransaction(identifier: store.pendingRequests().first?.id)
    #expect(store.allTransactions().filter { $0.productID == "car" }.count == 1)
    #expect(store.pendingRequests().map(\.productID) == ["fuel"])
  }

  // refund-carries-revocation-percentage
  @Test func fullRefundCarriesRevocationPercentage100000() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let car = try store.buyProduct("car")
    #expect(store.payload(car)["revocationPercentage"] == nil)
    try store.refund(car.id)
    let refunded = store.payload(try #require(store.customer()?.transaction(car.id)))
    #expect(refunded["revocationType"] == .string("REFUND_FULL"))
    #expect(refunded["revocationPercentage"] == .int(100_000))
    let copy = try #require(store.customer("kid")?.transactions.first)
    #expect(store.payload(copy, customer: "kid")["revocationType"] == .string("FAMILY_REVOKE"))
  }

  // receipt-cancellation-only-for-non-consumables-and-subscriptions
  @Test func refundedConsumableHasNoCancellationDateInTheReceipt() throws {
    var store = Fixtures.store()
    let fuel = try store.buyProduct("fuel")
    let car = try store.buyProduct("car")
    try store.refund(fuel.id)
    try store.refund(car.id)
    guard case .array(let items)? = store.receipt()["receipt"]?["in_app"] else { Issue.record("no in_app"); return }
    let byProduct = Dictionary(
      uniqueKeysWithValues: items.compactMap { item -> (String, JSONOutput)? in
        if case .string(let p)? = item["product_id"] { return (p, item) }
        return nil
      })
    #expect(byProduct["fuel"]?["cancellation_date_ms"] == nil)
    #expect(byProduct["fuel"]?["cancellation_reason"] == nil)
    #expect(byProduct["car"]?["cancellation_date_ms"] != nil)
  }
}
