import Foundation

/// Renewal information of a subscription, as `Product.SubscriptionInfo.RenewalInfo`.
public struct RenewalInfo: Sendable, Hashable, Codable {
  /// The group's original transaction id.
  public package(set) var originalTransactionID: TransactionID
  /// The product of the current period.
  public package(set) var currentProductID: ProductID
  /// The product that renews next (server `autoRenewProductId`, present even when off).
  public package(set) var autoRenewProductID: ProductID
  /// Whether auto-renew is on.
  public package(set) var willAutoRenew: Bool
  /// Why it expired or is failing.
  public package(set) var expirationReason: ExpirationReason?
  /// Whether a failed renewal is being retried.
  public package(set) var isInBillingRetry: Bool
  /// When grace ends, while in grace.
  public package(set) var gracePeriodExpirationDate: Date?
  /// Price increase consent.
  public package(set) var priceIncreaseStatus: PriceIncreaseStatus
  /// The offer of the next renewal.
  public package(set) var offer: TransactionOffer? {
    get { rareOffer }
    set { rareOffer = newValue }
  }
  // `offer` and `commitment` are kept out of line: few renewal infos have them, and every
  // notification of a subscription holds a renewal info.
  @Rare private var rareOffer: TransactionOffer? = nil
  /// Expiration of the most recent paid period.
  public package(set) var renewalDate: Date
  /// Start of the current run of periods.
  public package(set) var recentSubscriptionStartDate: Date
  /// Price of the next period, offer included.
  public package(set) var renewalPrice: Decimal
  /// Currency of `renewalPrice`.
  public package(set) var currency: String
  /// Win-back offers the customer may redeem now, best first.
  public package(set) var eligibleWinBackOfferIDs: [String]
  /// The app account token.
  public package(set) var appAccountToken: UUID?
  /// When this value was produced (`signedDate`).
  public package(set) var signedDate: Date
  /// The commitment, while the subscription is inside one (`commitmentInfo`).
  public package(set) var commitment: RenewalCommitment? {
    get { rareCommitment }
    set { rareCommitment = newValue }
  }
  @Rare private var rareCommitment: RenewalCommitment? = nil

  enum CodingKeys: String, CodingKey {
    case originalTransactionID, currentProductID, autoRenewProductID, willAutoRenew, expirationReason
    case isInBillingRetry, gracePeriodExpirationDate, priceIncreaseStatus
    case rareOffer = "offer"
    case renewalDate, recentSubscriptionStartDate, renewalPrice, currency, eligibleWinBackOfferIDs, appAccountToken
    case signedDate
    case rareCommitment = "commitment"
  }

  /// The billing plan of the next billing period (`renewalBillingPlanType`).
  public var renewalBillingPlanType: BillingPlanType { commitment == nil ? .billedUpfront : .monthly }

  /// StoreKit's `autoRenewPreference`: nil when the subscription will not renew [doc].
  public var autoRenewPreference: ProductID? { willAutoRenew ? autoRenewProductID : nil }

  /// Every stored field, in declaration order (for the session codec).
  package init(
    originalTransactionID: TransactionID, currentProductID: ProductID, autoRenewProductID: ProductID,
    willAutoRenew: Bool, expirationReason: ExpirationReason?, isInBillingRetry: Bool, gracePeriodExpirationDate: Date?,
    priceIncreaseStatus: PriceIncreaseStatus, offer: TransactionOffer?, renewalDate: Date,
    recentSubscriptionStartDate: Date, renewalPrice: Decimal, currency: String, eligibleWinBackOfferIDs: [String],
    appAccountToken: UUID?, signedDate: Date, commitment: RenewalCommitment? = nil
  ) {
    self.rareCommitment = commitment
    self.originalTransactionID = originalTransactionID
    self.currentProductID = currentProductID
    self.autoRenewProductID = autoRenewProductID
    self.willAutoRenew = willAutoRenew
    self.expirationReason = expirationReason
    self.isInBillingRetry = isInBillingRetry
    self.gracePeriodExpirationDate = gracePeriodExpirationDate
    self.priceIncreaseStatus = priceIncreaseStatus
    self.rareOffer = offer
    self.renewalDate = renewalDate
    self.recentSubscriptionStartDate = recentSubscriptionStartDate
    self.renewalPrice = renewalPrice
    self.currency = currency
    self.eligibleWinBackOfferIDs = eligibleWinBackOfferIDs
    self.appAccountToken = appAccountToken
    self.signedDate = signedDate
  }
}

extension RenewalInfo: DeclaredRecord {
  /// A renewal info with every field empty, for a reader to fill.
  package static let blank = RenewalInfo(
    originalTransactionID: 0, currentProductID: "", autoRenewProductID: "", willAutoRenew: false,
    expirationReason: nil, isInBillingRetry: false, gracePeriodExpirationDate: nil,
    priceIncreaseStatus: .noIncreasePending, offer: nil, renewalDate: Date(timeIntervalSince1970: 0),
    recentSubscriptionStartDate: Date(timeIntervalSince1970: 0), renewalPrice: 0, currency: "",
    eligibleWinBackOfferIDs: [], appAccountToken: nil, signedDate: Date(timeIntervalSince1970: 0))

  /// Every field, in the order of a session row, with its `JWSRenewalInfoDecodedPayload` name
  /// (`RenewalInfoPayload` adds what is not a stored field, and `priceIncreaseStatus`, whose
  /// wire numbers are its own).
  package mutating func visitRow<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure) {
    try v.visit(RecordField("originalTransactionID", wire: "originalTransactionId"), &originalTransactionID)
    try v.visit(RecordField("currentProductID", wire: "productId"), &currentProductID)
    try v.visit(RecordField("autoRenewProductID", wire: "autoRenewProductId"), &autoRenewProductID)
    try v.visit(RecordField("willAutoRenew", wire: "autoRenewStatus", flag: .number), &willAutoRenew)
    try v.visit(RecordField("expirationReason", wire: "expirationIntent"), &expirationReason)
    try v.visit(RecordField("isInBillingRetry", wire: "isInBillingRetryPeriod", flag: .boolean), &isInBillingRetry)
    try v.visit(RecordField("gracePeriodExpirationDate", wire: "gracePeriodExpiresDate"), &gracePeriodExpirationDate)
    try v.visit(RecordField("priceIncreaseStatus"), &priceIncreaseStatus)
    try v.visit(RecordField("offer"), &offer)
    try v.visit(RecordField("renewalDate", wire: "renewalDate"), &renewalDate)
    try v.visit(
      RecordField("recentSubscriptionStartDate", wire: "recentSubscriptionStartDate"), &recentSubscriptionStartDate)
    try v.visit(RecordField("renewalPrice", wire: "renewalPrice"), &renewalPrice)
    try v.visit(RecordField("currency", wire: "currency"), &currency)
    try v.visit(RecordField("eligibleWinBackOfferIDs", wire: "eligibleWinBackOfferIds"), &eligibleWinBackOfferIDs)
    try v.visit(RecordField("appAccountToken", wire: "appAccountToken"), &appAccountToken)
    try v.visit(RecordField("signedDate", wire: "signedDate"), &signedDate)
    // Absent in sessions written before it existed.
    try v.visit(RecordField("commitment", wire: "commitmentInfo", trailing: .opensGroup), &commitment)
  }
}

/// One subscription status of a group, as `Product.SubscriptionInfo.Status`.
public struct SubscriptionStatus: Sendable, Hashable, Codable {
  /// The group.
  public package(set) var groupID: SubscriptionGroupID
  /// The renewal state.
  public package(set) var state: RenewalState
  /// Renewal info.
  public package(set) var renewalInfo: RenewalInfo
  /// The group's latest transaction for this customer.
  public package(set) var transaction: Transaction
  /// Whether this status comes from a family member's subscription.
  public package(set) var isFamilyShared: Bool
}
