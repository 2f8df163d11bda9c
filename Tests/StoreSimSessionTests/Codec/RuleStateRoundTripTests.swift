import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// The state an engine rule leaves survives the session file's codec (`StateCodec`) unchanged:
/// the rules themselves are tested in the core's tests (`StoreSimCoreTests/Engine`), their
/// round trips here.
@Suite struct RuleStateRoundTripTests {
  /// Configurations/CommitmentPlan.storekit's yearly plan, billed monthly, from 2026-01-15.
  static let commitmentStart = Date(timeIntervalSince1970: 1_768_435_200)
  static let commitmentPro = "com.example.studio.pro.yearly"
  static let billedMonthly = PurchaseOptions(billingPlanType: .monthly)

  // refund-carries-revocation-percentage
  @Test func proratedShareSurvivesTheSessionFile() throws {
    var store = Fixtures.store()
    let car = try store.buyProduct("car")
    _ = try store.buyProduct("fuel")
    try store.refund(car.id, percentage: 40_000)
    let decoded = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(decoded == store.state)
    let t = try #require(decoded.customers.first?.transactions.first { $0.id == car.id })
    #expect(t.revocationPercentage == 40_000)
    // The notification's copy keeps it too.
    #expect(decoded.notifications.last?.transaction?.revocationPercentage == 40_000)
  }

  // rescind-consent-carries-app-data
  @Test func rescindConsentSurvivesTheSessionFile() throws {
    var store = Fixtures.store()
    try store.revokeConsent()
    let decoded = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(decoded == store.state)
    #expect(decoded.notifications.last?.notificationType == .rescindConsent)
  }

  // commitment-plan-bills-monthly-inside-twelve-months
  @Test func commitmentSurvivesTheSessionFile() throws {
    var store = try Fixtures.store(configurationNamed: "CommitmentPlan.storekit", start: Self.commitmentStart)
    _ = try store.buyProduct(Self.commitmentPro, options: Self.billedMonthly)
    _ = try store.advanceToNextEvent()
    try store.disableAutoRenew(productID: Self.commitmentPro)
    let decoded = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(decoded == store.state)
    #expect(decoded.customers.first?.subscriptions.first?.commitment?.willAutoRenew == false)
    #expect(decoded.notifications.last?.renewalInfo?.commitment?.willAutoRenew == false)
  }

  // Session files keep the new state, and files written before it still load.
  @Test func sessionKeepsRefundRequestsAnniversaryAndPriceIncreaseAndOldFilesStillLoad() throws {
    var store = Fixtures.planStore(period: "P1M")
    let t = try store.buyProduct("plan")
    try store.requestRefund(t.id, reason: .legal)
    try store.enableAutoRenew(productID: "plan")
    try store.requestPriceIncreaseConsent(productID: "plan", price: Decimal(string: "12.49")!)
    let decoded = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(decoded == store.state)
    #expect(decoded.customers[0].subscriptions[0].anniversaryDate == Fixtures.jan31)
    #expect(decoded.notifications.contains { $0.consumptionRequestReason == .legal })
    var old = store.state
    old.refundRequests = nil
    old.customers[0].subscriptions[0].anniversaryDate = nil
    old.customers[0].subscriptions[0].increasedPrice = nil
    old.notifications = old.notifications.map { n in
      var n = n
      n.consumptionRequestReason = nil
      return n
    }
    let bytes = try StateCodec.encode(old)
    #expect(!String(decoding: bytes, as: UTF8.self).contains("refundRequests"))
    #expect(try StateCodec.decode(bytes) == old)
  }

  // The order of changes and a mass extension's summary (issue 27's engine).
  @Test func theOrderAndTheSummaryRequestSurviveTheSessionFile() throws {
    var store = try Fixtures.store(configurationNamed: "Premium.storekit")
    try store.purchase("com.example.premium.monthly")
    _ = try store.advance(by: 8 * 86_400)
    store.massExtendRenewalDate(
      productID: "com.example.premium.monthly", days: 2, reason: 0, requestIdentifier: "m", storefronts: ["USA"])
    _ = try store.refund(store.allTransactions()[0].id)
    let decoded = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(decoded == store.state)
    let summary = try #require(decoded.notifications.first { $0.subtype == .summary })
    #expect(summary.massExtensionRequestIdentifier == "m")
    let payload = store.payload(summary).rendered(pretty: false)
    #expect(payload.contains(#""summary":{"#) && !payload.contains(#""data":"#))
    #expect(payload.contains(#""succeededCount":1"#) && payload.contains(#""storefrontCountryCodes":["USA"]"#))
  }

  // a-key-given-to-the-session-verifies-offers (the key and strict eligibility are kept)
  @Test func aSessionWithATeamKeyAndStrictEligibilityReadsBackTheSame() throws {
    var store = try OfferFixtures.usedIntro()
    store.strictIntroductoryOfferEligibility = true
    let read = try StateCodec.decode(try StateCodec.encode(store.state))
    #expect(read == store.state)
    #expect(read.teamKey?.issuer == "issuer-5678")
    #expect(read.strictIntroductoryOfferEligibility == true)
  }

  // offer-signatures-are-checked-as-the-app-store-checks-them (spent nonces are kept)
  @Test func aSessionWithAnOfferKeyAndSpentNoncesReadsBackTheSame() throws {
    var store = OfferFixtures.offerStore()
    _ = try OfferFixtures.buy(&store, OfferFixtures.separated(timestamp: Fixtures.start.epochMilliseconds))
    store.useSigning(SigningIdentity(randomBytes: [3], environment: .sandbox), appAppleID: 42)
    #expect(store.state.usedOfferNonces?.count == 1)
    #expect(try StateCodec.decode(try StateCodec.encode(store.state)) == store.state)
  }
}
