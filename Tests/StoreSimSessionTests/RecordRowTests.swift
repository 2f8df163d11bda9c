import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// A subscription's state and a renewal info are declared once (`visitRow`), like a
/// transaction: the session row's writer and reader and the renewal info's wire payload are
/// visitors of that declaration. A field declared but not written, or written but not read
/// back, fails here.
@Suite struct RecordRowTests {
  /// Records the model names a visit passes, in order.
  struct Names: RecordFieldListVisitor {
    var names: [String] = []
    mutating func visit(_ f: RecordField, kind: RecordField.Kind) { names.append(f.name) }
  }

  /// The stored fields by the name of the property they hold: a `@Rare` field's storage
  /// `_offer` is `offer`, and a renewal info's out-of-line `_rareOffer` is its `offer`.
  static func stored(_ value: Any) -> [(String, String)] {
    Mirror(reflecting: value).children.map { (fieldName($0.label ?? ""), String(describing: $0.value)) }
  }

  static func fieldName(_ label: String) -> String {
    guard label.hasPrefix("_") else { return label }
    let name = label.dropFirst()
    guard name.hasPrefix("rare"), let first = name.dropFirst(4).first else { return String(name) }
    return first.lowercased() + name.dropFirst(5)
  }

  static func visited<R: DeclaredRecord>(_ record: R) -> [String] {
    var record = record
    var v = Names()
    record.visitRow(&v)
    return v.names
  }

  static let date = Date(timeIntervalSince1970: 1_800_000_000)
  static let token = UUID(uuidString: "6F1E1C38-8B0A-4A8E-9C39-2B2A1E0C9D11")

  /// A subscription with every field set to something other than `blank`'s.
  static func everySubscriptionField() -> SubscriptionState.Fields {
    var f = SubscriptionState.Fields.blank
    f.groupID = "G1"
    f.originalID = 11
    f.currentProductID = "monthly"
    f.autoRenewProductID = "yearly"
    f.willAutoRenew = true
    f.expirationDate = date
    f.latestTransactionID = 12
    f.billing = .gracePeriod(gracePeriodExpirationDate: date + 60, retryEndDate: date + 120)
    f.expirationReason = .billingError
    f.isExpired = true
    f.isRevoked = true
    f.priceIncreaseStatus = .agreed
    f.pendingOffer = CopyOnWrite(
      SubscriptionOffer(
        type: .code, id: "FREEMONTH", paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .month),
        eligibility: [.new, .expired], isEligible: false))
    f.runningOffer = CopyOnWrite(
      SubscriptionOffer(
        type: .promotional, id: "promo", paymentMode: .payAsYouGo, period: SubscriptionPeriod(value: 1, unit: .month),
        periodCount: 3, price: Decimal(string: "4.99")!))
    f.runningOfferPeriodsLeft = 2
    f.recentSubscriptionStartDate = date - 600
    f.renewalCount = 3
    f.appAccountToken = token
    f.anniversaryDate = date - 300
    f.increasedPrice = Decimal(string: "12.99")!
    f.commitment = SubscriptionCommitment(
      billingPeriodNumber: 4, expirationDate: date + 900, willAutoRenew: true, autoRenewProductID: "yearly",
      monthlyPrice: Decimal(string: "9.99")!, price: Decimal(string: "119.88")!)
    return f
  }

  /// A renewal info with every field set to something other than `blank`'s.
  static func everyRenewalInfoField() -> RenewalInfo {
    var r = RenewalInfo.blank
    r.originalTransactionID = 11
    r.currentProductID = "monthly"
    r.autoRenewProductID = "yearly"
    r.willAutoRenew = true
    r.expirationReason = .didNotConsentToPriceIncrease
    r.isInBillingRetry = true
    r.gracePeriodExpirationDate = date + 60
    r.priceIncreaseStatus = .pending
    r.offer = TransactionOffer(
      type: .winBack, id: "back", paymentMode: .payUpFront, period: SubscriptionPeriod(value: 2, unit: .month))
    r.renewalDate = date
    r.recentSubscriptionStartDate = date - 600
    r.renewalPrice = Decimal(string: "5.49")!
    r.currency = "EUR"
    r.eligibleWinBackOfferIDs = ["back", "back2"]
    r.appAccountToken = token
    r.signedDate = date - 1
    r.commitment = RenewalCommitment(
      autoRenewProductID: "yearly", willAutoRenew: true, renewalBillingPlanType: .monthly, renewalDate: date + 900,
      renewalPrice: Decimal(string: "9.99")!)
    return r
  }

  /// A session holding `subscription` and a notification carrying `renewalInfo`.
  static func state(_ subscription: SubscriptionState.Fields, _ renewalInfo: RenewalInfo?) throws -> StoreState {
    var state = Fixtures.store().state
    state.customers = [
      Customer(
        id: "c", transactions: [], subscriptions: [SubscriptionState(fields: subscription)],
        introductoryOfferUsedGroups: [], familyID: nil, appTransactionID: "a")
    ]
    state.notifications = [
      ServerNotification(
        notificationType: .didRenew, subtype: nil, sequence: 0, signedDate: date, customer: "c", transaction: nil,
        renewalInfo: renewalInfo, status: .subscribed)
    ]
    return state
  }

  /// Decodes what `state` encodes to and checks it is `state`, and that encoding it again
  /// writes the same bytes.
  static func roundTrip(_ state: StoreState) throws -> String {
    let bytes = try StateCodec.encode(state)
    let decoded = try StateCodec.decode(bytes)
    #expect(decoded == state)
    #expect(try StateCodec.encode(decoded) == bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func theDeclarationsVisitEveryStoredFieldOnce() {
    let records: [(names: [String], stored: [(String, String)])] = [
      (Self.visited(SubscriptionState.Fields.blank), Self.stored(SubscriptionState.Fields.blank)),
      (Self.visited(RenewalInfo.blank), Self.stored(RenewalInfo.blank)),
      (Self.visited(SubscriptionCommitment.blank), Self.stored(SubscriptionCommitment.blank)),
      (Self.visited(RenewalCommitment.blank), Self.stored(RenewalCommitment.blank)),
    ]
    for (names, stored) in records {
      #expect(names == stored.map(\.0))
    }
  }

  @Test func everyFieldOfASubscriptionAndARenewalInfoSurvivesTheSessionFile() throws {
    let subscription = Self.everySubscriptionField()
    let info = Self.everyRenewalInfoField()
    // Every field differs from the blank a reader starts from, so one not read back shows.
    for (set, blank) in [
      (Self.stored(subscription), Self.stored(SubscriptionState.Fields.blank)),
      (Self.stored(info), Self.stored(RenewalInfo.blank)),
      (Self.stored(subscription.commitment!), Self.stored(SubscriptionCommitment.blank)),
      (Self.stored(info.commitment!), Self.stored(RenewalCommitment.blank)),
    ] {
      for (field, original) in zip(set, blank) { #expect(field.1 != original.1, "\(field.0) is as blank") }
    }
    _ = try Self.roundTrip(try Self.state(subscription, info))
  }

  @Test func trailingFieldsAreWrittenAsGroupsOnlyWhenOneIsSet() throws {
    var none = Self.everySubscriptionField()
    (none.anniversaryDate, none.increasedPrice, none.commitment) = (nil, nil, nil)
    var info = Self.everyRenewalInfoField()
    info.commitment = nil
    let token = #""6F1E1C38-8B0A-4A8E-9C39-2B2A1E0C9D11""#
    // Rows written before the trailing fields existed end with the token (or signed date).
    #expect(try Self.roundTrip(try Self.state(none, info)).contains(token + "]]]"))
    #expect(try Self.roundTrip(try Self.state(none, info)).contains(token + ",1799999999000]"))
    var price = none
    price.increasedPrice = Decimal(string: "12.99")!
    #expect(try Self.roundTrip(try Self.state(price, info)).contains(token + #",null,"12.99"]"#))
    var anniversary = none
    anniversary.anniversaryDate = Self.date
    #expect(try Self.roundTrip(try Self.state(anniversary, info)).contains(token + ",1800000000000,null]"))
    var commitment = none
    commitment.commitment = Self.everySubscriptionField().commitment
    #expect(
      try Self.roundTrip(try Self.state(commitment, nil)).contains(
        token + #",null,null,[4,1800000900000,true,"yearly","9.99","119.88"]]"#))
  }

  @Test func theRenewalInfoPayloadHoldsEveryWireNameOfItsDeclaration() {
    let json = RenewalInfoPayload(Self.everyRenewalInfoField(), environment: .xcode, appTransactionID: "a").json
    guard case .object(let object) = json else { Issue.record("not an object"); return }
    #expect(
      Set(object.keys) == [
        "originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "expirationIntent",
        "isInBillingRetryPeriod", "gracePeriodExpiresDate", "priceIncreaseStatus", "offerType", "offerIdentifier",
        "offerDiscountType", "offerPeriod", "renewalDate", "recentSubscriptionStartDate", "renewalPrice", "currency",
        "eligibleWinBackOfferIds", "appAccountToken", "signedDate", "commitmentInfo", "environment",
        "appTransactionId", "renewalBillingPlanType",
      ])
    #expect(object["autoRenewStatus"] == .int(1))
    #expect(object["isInBillingRetryPeriod"] == .bool(true))
    #expect(object["priceIncreaseStatus"] == .int(0))
    #expect(object["renewalPrice"] == .int(5490))
    #expect(object["expirationIntent"] == .int(3))
    guard case .object(let commitment)? = object["commitmentInfo"] else { Issue.record("no commitmentInfo"); return }
    #expect(commitment["commitmentAutoRenewStatus"] == .int(1))
    #expect(commitment["commitmentRenewalPrice"] == .int(9990))
    #expect(commitment["commitmentRenewalBillingPlanType"] == .string("MONTHLY"))
  }
}
