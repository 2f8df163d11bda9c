import Foundation

/// One customer's subscription in one group: the state its status, renewal info and entitlement
/// are derived from (rule renewal-state-maps-to-server-status).
///
/// Copy-on-write: reading one costs a reference count; the engine changes it in place.
public struct SubscriptionState: Sendable, Hashable, Codable {
  /// The stored fields.
  struct Fields: Sendable, Hashable, Codable {
    var groupID: SubscriptionGroupID
    var originalID: TransactionID
    var currentProductID: ProductID
    var autoRenewProductID: ProductID
    var willAutoRenew: Bool
    var expirationDate: Date
    var latestTransactionID: TransactionID
    var billing: BillingState
    var expirationReason: ExpirationReason?
    var isExpired: Bool
    var isRevoked: Bool
    var priceIncreaseStatus: PriceIncreaseStatus
    // Offers are rare and large: held by reference, so checking for none is a pointer test.
    var pendingOffer: CopyOnWrite<SubscriptionOffer>?
    var runningOffer: CopyOnWrite<SubscriptionOffer>?
    var runningOfferPeriodsLeft: Int
    var recentSubscriptionStartDate: Date
    var renewalCount: Int
    var appAccountToken: UUID?
    // Absent in sessions written before they existed (decoded as nil).
    var anniversaryDate: Date?
    var increasedPrice: Decimal?
    var commitment: SubscriptionCommitment? = nil
  }

  private var storage: CopyOnWrite<Fields>

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

  /// The commitment plan running, if any (rule commitment-plan-bills-monthly-inside-twelve-months).
  public package(set) var commitment: SubscriptionCommitment? {
    _read { yield storage.fields.commitment }
    _modify { yield &storage.fields.commitment }
  }

  /// The group.
  public package(set) var groupID: SubscriptionGroupID {
    _read { yield storage.fields.groupID }
    _modify { yield &storage.fields.groupID }
  }
  /// The group's original transaction id for this customer.
  public package(set) var originalID: TransactionID {
    _read { yield storage.fields.originalID }
    _modify { yield &storage.fields.originalID }
  }
  /// The product of the current period.
  public package(set) var currentProductID: ProductID {
    _read { yield storage.fields.currentProductID }
    _modify { yield &storage.fields.currentProductID }
  }
  /// The product that will renew (`autoRenewProductId`).
  public package(set) var autoRenewProductID: ProductID {
    _read { yield storage.fields.autoRenewProductID }
    _modify { yield &storage.fields.autoRenewProductID }
  }
  /// Whether auto-renew is on.
  public package(set) var willAutoRenew: Bool {
    _read { yield storage.fields.willAutoRenew }
    _modify { yield &storage.fields.willAutoRenew }
  }
  /// End of the current (or last) paid period.
  public package(set) var expirationDate: Date {
    _read { yield storage.fields.expirationDate }
    _modify { yield &storage.fields.expirationDate }
  }
  /// The latest transaction of the group.
  public package(set) var latestTransactionID: TransactionID {
    _read { yield storage.fields.latestTransactionID }
    _modify { yield &storage.fields.latestTransactionID }
  }
  /// Billing health.
  public package(set) var billing: BillingState {
    _read { yield storage.fields.billing }
    _modify { yield &storage.fields.billing }
  }
  /// Why it expired (or why renewal is failing).
  public package(set) var expirationReason: ExpirationReason? {
    _read { yield storage.fields.expirationReason }
    _modify { yield &storage.fields.expirationReason }
  }
  /// Whether it has ended.
  public package(set) var isExpired: Bool {
    _read { yield storage.fields.isExpired }
    _modify { yield &storage.fields.isExpired }
  }
  /// Whether the current period was refunded.
  public package(set) var isRevoked: Bool {
    _read { yield storage.fields.isRevoked }
    _modify { yield &storage.fields.isRevoked }
  }
  /// Price increase consent.
  public package(set) var priceIncreaseStatus: PriceIncreaseStatus {
    _read { yield storage.fields.priceIncreaseStatus }
    _modify { yield &storage.fields.priceIncreaseStatus }
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

  /// Periods left of `runningOffer` after the current one.
  public package(set) var runningOfferPeriodsLeft: Int {
    _read { yield storage.fields.runningOfferPeriodsLeft }
    _modify { yield &storage.fields.runningOfferPeriodsLeft }
  }
  /// Start of the current run of periods, bridging gaps shorter than 60 days.
  public package(set) var recentSubscriptionStartDate: Date {
    _read { yield storage.fields.recentSubscriptionStartDate }
    _modify { yield &storage.fields.recentSubscriptionStartDate }
  }
  /// Successful renewals so far (the sandbox stops after 12).
  public package(set) var renewalCount: Int {
    _read { yield storage.fields.renewalCount }
    _modify { yield &storage.fields.renewalCount }
  }
  /// The app account token of the purchase.
  public package(set) var appAccountToken: UUID? {
    _read { yield storage.fields.appAccountToken }
    _modify { yield &storage.fields.appAccountToken }
  }

  /// The start of the run of periods whose anniversary renewals keep (rule
  /// renewals-keep-the-anniversary); nil in sessions written before it existed.
  public package(set) var anniversaryDate: Date? {
    _read { yield storage.fields.anniversaryDate }
    _modify { yield &storage.fields.anniversaryDate }
  }
  /// The price the customer agreed to (or was told of) in a price increase: shown as
  /// `renewalPrice` from the request on and charged from the next renewal after consent (rule
  /// price-increase-changes-the-renewal-price).
  public package(set) var increasedPrice: Decimal? {
    _read { yield storage.fields.increasedPrice }
    _modify { yield &storage.fields.increasedPrice }
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
