import Foundation

/// One customer's subscription in one group: the state its status, renewal info and entitlement
/// are derived from (rule renewal-state-maps-to-server-status).
///
/// Copy-on-write: reading one costs a reference count; the engine changes it in place.
public struct SubscriptionState: Sendable, Hashable, Codable {
  /// The stored fields: the one declaration of what a subscription's state holds (`visitRow`).
  ///
  /// A field with a `///` comment is also a public property of `SubscriptionState` with that
  /// comment (`public package(set)`), forwarded in SubscriptionState+Forwarding.swift, which
  /// Scripts/generate-forwarding.sh writes from this declaration; a field with a `//` comment is
  /// reached only through the accessor written for it here.
  package struct Fields: Sendable, Hashable, Codable {
    /// The group.
    var groupID: SubscriptionGroupID
    /// The group's original transaction id for this customer.
    var originalID: TransactionID
    /// The product of the current period.
    var currentProductID: ProductID
    /// The product that will renew (`autoRenewProductId`).
    var autoRenewProductID: ProductID
    /// Whether auto-renew is on.
    var willAutoRenew: Bool
    /// End of the current (or last) paid period.
    var expirationDate: Date
    /// The latest transaction of the group.
    var latestTransactionID: TransactionID
    /// Billing health.
    var billing: BillingState
    /// Why it expired (or why renewal is failing).
    var expirationReason: ExpirationReason?
    /// Whether it has ended.
    var isExpired: Bool
    /// Whether the current period was refunded.
    var isRevoked: Bool
    /// Price increase consent.
    var priceIncreaseStatus: PriceIncreaseStatus
    // Offers are rare and large: held by reference, so checking for none is a pointer test.
    // See `pendingOffer` and `runningOffer`.
    var pendingOffer: CopyOnWrite<SubscriptionOffer>?
    var runningOffer: CopyOnWrite<SubscriptionOffer>?
    /// Periods left of `runningOffer` after the current one.
    var runningOfferPeriodsLeft: Int
    /// Start of the current run of periods, bridging gaps shorter than 60 days.
    var recentSubscriptionStartDate: Date
    /// Successful renewals so far (the sandbox stops after 12).
    var renewalCount: Int
    /// The app account token of the purchase.
    var appAccountToken: UUID?
    /// The start of the run of periods whose anniversary renewals keep (rule
    /// renewals-keep-the-anniversary); nil in sessions written before it existed.
    var anniversaryDate: Date?
    /// The price the customer agreed to (or was told of) in a price increase: shown as
    /// `renewalPrice` from the request on and charged from the next renewal after consent (rule
    /// price-increase-changes-the-renewal-price).
    var increasedPrice: Decimal?
    /// The commitment plan running, if any (rule commitment-plan-bills-monthly-inside-twelve-months).
    var commitment: SubscriptionCommitment? = nil
  }

  /// The fields, shared by copies.
  var storage: CopyOnWrite<Fields>

  /// A record of these fields.
  package init(fields: Fields) { storage = CopyOnWrite(fields) }

  /// Reads each cache line of the fields (`Store.warm`).
  func warmth() -> UInt { storage.warmth() }

  /// The stored fields (`visitRow` walks them).
  package var fields: Fields {
    _read { yield storage.fields }
    _modify { yield &storage.fields }
  }

  /// The `originalPurchaseDate` of the subscription's transactions, once a renewal looked it
  /// up: derived, so neither compared, encoded nor saved.
  var cachedOriginalPurchaseDate: Date?

  /// Creates a record.
  package init(
    groupID: SubscriptionGroupID,
    originalID: TransactionID,
    currentProductID: ProductID,
    autoRenewProductID: ProductID,
    willAutoRenew: Bool,
    expirationDate: Date,
    latestTransactionID: TransactionID,
    billing: BillingState,
    expirationReason: ExpirationReason?,
    isExpired: Bool,
    isRevoked: Bool,
    priceIncreaseStatus: PriceIncreaseStatus,
    pendingOffer: SubscriptionOffer?,
    runningOffer: SubscriptionOffer?,
    runningOfferPeriodsLeft: Int,
    recentSubscriptionStartDate: Date,
    renewalCount: Int,
    appAccountToken: UUID?,
    anniversaryDate: Date? = nil,
    increasedPrice: Decimal? = nil,
    commitment: SubscriptionCommitment? = nil
  ) {
    storage = CopyOnWrite(
      Fields(
        groupID: groupID,
        originalID: originalID,
        currentProductID: currentProductID,
        autoRenewProductID: autoRenewProductID,
        willAutoRenew: willAutoRenew,
        expirationDate: expirationDate,
        latestTransactionID: latestTransactionID,
        billing: billing,
        expirationReason: expirationReason,
        isExpired: isExpired,
        isRevoked: isRevoked,
        priceIncreaseStatus: priceIncreaseStatus,
        pendingOffer: pendingOffer.map(CopyOnWrite.init),
        runningOffer: runningOffer.map(CopyOnWrite.init),
        runningOfferPeriodsLeft: runningOfferPeriodsLeft,
        recentSubscriptionStartDate: recentSubscriptionStartDate,
        renewalCount: renewalCount,
        appAccountToken: appAccountToken,
        anniversaryDate: anniversaryDate,
        increasedPrice: increasedPrice, commitment: commitment))
  }

  /// The offer that applies from the next renewal (offer code or promotional offer redeemed by
  /// an active subscriber, or with a deferred plan change).
  public package(set) var pendingOffer: SubscriptionOffer? {
    get { storage.fields.pendingOffer?.fields }
    set {
      storage.fields.pendingOffer = newValue.map(CopyOnWrite.init)
    }
  }

  /// Whether an offer is pending or running (cheaper than reading either).
  var hasOffer: Bool { storage.fields.pendingOffer != nil || storage.fields.runningOffer != nil }

  /// An offer still running over several periods (pay as you go), and how many periods remain.
  public package(set) var runningOffer: SubscriptionOffer? {
    get { storage.fields.runningOffer?.fields }
    set {
      storage.fields.runningOffer = newValue.map(CopyOnWrite.init)
    }
  }

  // Compared and hashed by the fields only: the cached date is derived.
  public static func == (a: SubscriptionState, b: SubscriptionState) -> Bool { a.storage == b.storage }

  public func hash(into hasher: inout Hasher) { storage.hash(into: &hasher) }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// The renewal state.
  public var state: RenewalState {
    if isRevoked { return .revoked }
    if isExpired { return .expired }
    switch billing {
    case .healthy: return .subscribed
    case .gracePeriod: return .inGracePeriod
    case .billingRetry: return .inBillingRetryPeriod
    }
  }

  /// Whether a renewal failure is being retried.
  public var isInBillingRetry: Bool {
    if case .healthy = billing { return false }
    return !isExpired && !isRevoked
  }

  /// When grace ends, while in grace.
  public var gracePeriodExpirationDate: Date? {
    if case .gracePeriod(let date, _) = billing, !isExpired, !isRevoked { return date }
    return nil
  }
}

extension SubscriptionState.Fields: DeclaredRecord {
  /// A record with every field empty, for a reader to fill.
  package static let blank = SubscriptionState.Fields(
    groupID: "", originalID: 0, currentProductID: "", autoRenewProductID: "", willAutoRenew: false,
    expirationDate: Date(timeIntervalSince1970: 0), latestTransactionID: 0, billing: .healthy, expirationReason: nil,
    isExpired: false, isRevoked: false, priceIncreaseStatus: .noIncreasePending, pendingOffer: nil, runningOffer: nil,
    runningOfferPeriodsLeft: 0, recentSubscriptionStartDate: Date(timeIntervalSince1970: 0), renewalCount: 0,
    appAccountToken: nil, anniversaryDate: nil, increasedPrice: nil)

  /// Every field, in the order of a session row (a subscription has no wire payload of its own:
  /// its status and renewal info are made from it).
  package mutating func visitRow<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure) {
    try v.visit(RecordField("groupID"), &groupID)
    try v.visit(RecordField("originalID"), &originalID)
    try v.visit(RecordField("currentProductID"), &currentProductID)
    try v.visit(RecordField("autoRenewProductID"), &autoRenewProductID)
    try v.visit(RecordField("willAutoRenew"), &willAutoRenew)
    try v.visit(RecordField("expirationDate"), &expirationDate)
    try v.visit(RecordField("latestTransactionID"), &latestTransactionID)
    try v.visit(RecordField("billing"), &billing)
    try v.visit(RecordField("expirationReason"), &expirationReason)
    try v.visit(RecordField("isExpired"), &isExpired)
    try v.visit(RecordField("isRevoked"), &isRevoked)
    try v.visit(RecordField("priceIncreaseStatus"), &priceIncreaseStatus)
    try Self.visitOffer(RecordField("pendingOffer"), &pendingOffer, &v)
    try Self.visitOffer(RecordField("runningOffer"), &runningOffer, &v)
    try v.visit(RecordField("runningOfferPeriodsLeft"), &runningOfferPeriodsLeft)
    try v.visit(RecordField("recentSubscriptionStartDate"), &recentSubscriptionStartDate)
    try v.visit(RecordField("renewalCount"), &renewalCount)
    try v.visit(RecordField("appAccountToken"), &appAccountToken)
    // Absent in sessions written before they existed.
    try v.visit(RecordField("anniversaryDate", trailing: .opensGroup), &anniversaryDate)
    try v.visit(RecordField("increasedPrice", trailing: .inGroup), &increasedPrice)
    try v.visit(RecordField("commitment", trailing: .opensGroup), &commitment)
  }

  /// An offer held by reference: visited as a value, put back only when the visit changed it.
  private static func visitOffer<V: RecordFieldVisitor>(
    _ field: RecordField, _ stored: inout CopyOnWrite<SubscriptionOffer>?, _ v: inout V
  ) throws(V.Failure) {
    var offer = stored?.fields
    try v.visit(field, &offer)
    if offer != stored?.fields { stored = offer.map(CopyOnWrite.init) }
  }
}
