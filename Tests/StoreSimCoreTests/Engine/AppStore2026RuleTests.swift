import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Issue 35's rules (prorated refunds, app data, receipt and app transaction details).
@Suite struct AppStore2026RuleTests {
  // refund-carries-revocation-percentage
  @Test func proratedRefundCarriesRefundProratedAndItsPercentageInMilliunits() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    try store.refund(car.id, percentage: 40_000)
    let refunded = try #require(store.customer()?.transaction(car.id))
    #expect(refunded.revocationType == .refundProrated)
    #expect(refunded.revocationPercentage == 40_000)
    let payload = store.payload(refunded)
    #expect(payload["revocationType"] == .string("REFUND_PRORATED"))
    #expect(payload["revocationPercentage"] == .int(40_000))
    #expect(store.lastNotification?.name == "REFUND")
    #expect(!store.currentEntitlements().contains { $0.id == car.id })
  }

  // refund-carries-revocation-percentage
  @Test func proratedRefundOfAPurchaseSharedWithTheFamilyRevokesTheCopyWithoutPercentage() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let car = try store.buyProduct("car")
    try store.refund(car.id, percentage: 67_932)
    let copy = try #require(store.customer("kid")?.transactions.first)
    #expect(copy.revocationType == .familyRevoke)
    #expect(store.payload(copy, customer: "kid")["revocationPercentage"] == nil)
    #expect(store.payload(try #require(store.customer()?.transaction(car.id)))["revocationPercentage"] == .int(67_932))
  }

  // refund-reversal-restores-access
  @Test func reversalDropsRevocationTypeAndPercentage() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    try store.refund(car.id, percentage: 15)
    try store.reverseRefund(car.id)
    let t = try #require(store.customer()?.transaction(car.id))
    #expect(t.revocationType == nil && t.revocationPercentage == nil)
    let payload = store.payload(t)
    #expect(payload["revocationType"] == nil && payload["revocationPercentage"] == nil)
    // A later full refund is full again (the old share is gone).
    try store.refund(car.id)
    #expect(store.customer()?.transaction(car.id)?.revocationPercentage == 100_000)
  }

  // refund-carries-revocation-percentage
  @Test func refundPercentageOutsideOneToBelowOneHundredIsRefusedAndChangesNothing() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    let before = store.state
    #expect(throws: StoreError.invalidRefundPercentage(0)) { try store.refund(car.id, percentage: 0) }
    #expect(throws: StoreError.invalidRefundPercentage(100_000)) { try store.refund(car.id, percentage: 100_000) }
    #expect(store.state == before)
  }

  // rescind-consent-carries-app-data
  @Test func consentRevocationSendsRescindConsentWithAppDataInsteadOfData() throws {
    var store = Fixtures.store(environment: .sandbox)
    try store.addFamilyMember("kid")
    _ = try store.buyProduct("car")
    try store.revokeConsent(customer: "kid")
    let n = try #require(store.notifications.last)
    #expect(n.name == "RESCIND_CONSENT")
    #expect(n.subtype == nil)
    let payload = store.payload(n)
    #expect(payload["data"] == nil)
    let appData = try #require(payload["appData"])
    #expect(appData["bundleId"] == .string(store.state.bundleID))
    #expect(appData["environment"] == .string("Sandbox"))
    #expect(appData["appAppleId"] == nil)
    guard case .string(let jws)? = appData["signedAppTransactionInfo"] else {
      Issue.record("no signedAppTransactionInfo"); return
    }
    #expect(JWS.payload(of: jws) != nil)
    #expect(store.decodedPayload(n)["data"] == nil)
    let app = try #require(store.decodedPayload(n)["appData"]?["appTransactionInfo"])
    #expect(app["appTransactionId"] == .string(store.customer("kid")!.appTransactionID))
    #expect(app["originalApplicationVersion"] == .string("1.0"))
    #expect(app["deviceVerification"] == nil)
    // Purchases do not change.
    #expect(store.currentEntitlements().count == 1)
    #expect(throws: StoreError.customerNotFound("nobody")) { try store.revokeConsent(customer: "nobody") }
  }

  // external-purchase-token-subtypes-are-known-names
  @Test func externalPurchaseTokenSubtypesCreatedAndActiveTokenReminderAreKnownNames() {
    #expect(Subtype(rawValue: "CREATED") == .created)
    #expect(Subtype(rawValue: "ACTIVE_TOKEN_REMINDER") == .activeTokenReminder)
    #expect(NotificationTypeV2(rawValue: "RESCIND_CONSENT") == .rescindConsent)
  }

  // sandbox-original-application-version-is-1-0
  @Test func sandboxOriginalApplicationVersionIs1Point0() throws {
    let sandbox = Fixtures.store(environment: .sandbox)
    #expect(sandbox.appTransactionPayload(customer: .default)?["originalApplicationVersion"] == .string("1.0"))
    let xcode = Fixtures.store()
    #expect(xcode.appTransactionPayload(customer: .default)?["originalApplicationVersion"] == .string("1"))
  }

  // app-apple-id-only-in-production: Get App Transaction Info and appData carry the app's Apple
  // id in Production (Apple's verifier checks it there), never in the sandbox.
  @Test func appTransactionAndAppDataCarryAppAppleIdOnlyInProduction() throws {
    var production = Fixtures.store(environment: .production)
    production.useSigning(nil, appAppleID: 1_234_567_890)
    #expect(production.appTransactionPayload(customer: .default)?["appAppleId"] == .int(1_234_567_890))
    var sandbox = Fixtures.store(environment: .sandbox)
    sandbox.useSigning(nil, appAppleID: 1_234_567_890)
    #expect(sandbox.appTransactionPayload(customer: .default)?["appAppleId"] == nil)
  }

  // receipt-pending-renewal-info-follows-renewal-info
  @Test func pendingRenewalInfoDuringBillingRetrySaysExpirationIntent2() throws {
    var store = Fixtures.store({ $0.shouldEnterBillingRetryOnRenewal = true }, environment: .sandbox)
    let t = try store.buyProduct("basic")
    try store.advance(to: t.expirationDate!)
    #expect(store.status()?.state == .inBillingRetryPeriod)
    let entry = try #require(pendingRenewalInfo(store).first)
    #expect(entry["expiration_intent"] == .string("2"))
    #expect(entry["is_in_billing_retry_period"] == .string("1"))
  }

  // receipt-pending-renewal-info-follows-renewal-info
  @Test func pendingRenewalInfoDropsGraceAndRetryFieldsAfterACancelDuringGrace() throws {
    var store = Fixtures.store(
      {
        $0.shouldEnterBillingRetryOnRenewal = true
        $0.billingGracePeriodIsEnabled = true
      }, environment: .sandbox)
    let t = try store.buyProduct("basic")
    try store.advance(to: t.expirationDate!)
    var entry = try #require(pendingRenewalInfo(store).first)
    #expect(entry["grace_period_expires_date_ms"] != nil)
    #expect(entry["expiration_intent"] == .string("2"))
    try store.disableAutoRenew(productID: "basic")
    entry = try #require(pendingRenewalInfo(store).first)
    #expect(entry["grace_period_expires_date"] == nil)
    #expect(entry["grace_period_expires_date_ms"] == nil)
    #expect(entry["is_in_billing_retry_period"] == nil)
    #expect(entry["expiration_intent"] == .string("1"))
  }

  private func pendingRenewalInfo(_ store: Store) -> [JSONOutput] {
    guard case .array(let list)? = store.receipt()["pending_renewal_info"] else { return [] }
    return list
  }
}
