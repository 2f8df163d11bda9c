import Foundation

/// The App Store environment a session signs its data for (`AppStore.Environment`).
public enum StoreEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
  /// StoreKit Testing in Xcode (the default).
  case xcode = "Xcode"
  /// Apple's library's local-testing environment.
  case localTesting = "LocalTesting"
  /// The sandbox (renewals stop after 12, rule sandbox-stops-after-twelve-renewals).
  case sandbox = "Sandbox"
  /// The live App Store.
  case production = "Production"
}

/// The renewal state of a subscription, as `Product.SubscriptionInfo.RenewalState`.
public enum RenewalState: String, Sendable, Hashable, Codable, CaseIterable {
  /// Active.
  case subscribed
  /// Ended.
  case expired
  /// Renewal failed; retrying, no access.
  case inBillingRetryPeriod
  /// Renewal failed; retrying with access.
  case inGracePeriod
  /// Refunded or revoked.
  case revoked

  /// The App Store Server API `status` number (1–5).
  public var serverStatus: Int {
    switch self {
    case .subscribed: return 1
    case .expired: return 2
    case .inBillingRetryPeriod: return 3
    case .inGracePeriod: return 4
    case .revoked: return 5
    }
  }

  /// Whether the state gives access.
  public var isEntitled: Bool { self == .subscribed || self == .inGracePeriod }
}

/// Why a subscription expired, as `RenewalInfo.ExpirationReason` (raw values: `expirationIntent`).
public enum ExpirationReason: Int, Sendable, Hashable, Codable {
  /// The customer turned auto-renew off.
  case autoRenewDisabled = 1
  /// Billing failed.
  case billingError = 2
  /// The customer did not consent to a price increase.
  case didNotConsentToPriceIncrease = 3
  /// The product was not available.
  case productUnavailable = 4
  /// Unknown.
  case unknown = 5

  /// The StoreKit 2 case name.
  public var storeKitName: String { String(describing: self) }
}

/// Price increase consent state, as `RenewalInfo.PriceIncreaseStatus`.
public enum PriceIncreaseStatus: String, Sendable, Hashable, Codable {
  /// No increase pending (server key absent).
  case noIncreasePending
  /// The customer has not answered yet (server `0`).
  case pending
  /// The customer agreed (server `1`).
  case agreed
}

/// Billing health of a subscription whose renewal failed.
public enum BillingState: Sendable, Hashable, Codable {
  /// Renewals succeed.
  case healthy
  /// Renewal failed; access continues until the grace date, retry until the retry date.
  case gracePeriod(gracePeriodExpirationDate: Date, retryEndDate: Date)
  /// Renewal failed; no access; retrying until the date.
  case billingRetry(retryEndDate: Date)
}

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
  }

  private var storage: CopyOnWrite<Fields>

  /// The `originalPurchaseDate` of the subscription's transactions, once a renewal looked it
  /// up: derived, so neither compared, encoded nor saved.
  var cachedOriginalPurchaseDate: Date?

  /// Creates a record.
  init(
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
    increasedPrice: Decimal? = nil
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
        increasedPrice: increasedPrice))
  }

  /// The group.
  public var groupID: SubscriptionGroupID {
    _read { yield storage.fields.groupID }
    _modify { yield &storage.fields.groupID }
  }
  /// The group's original transaction id for this customer.
  public var originalID: TransactionID {
    _read { yield storage.fields.originalID }
    _modify { yield &storage.fields.originalID }
  }
  /// The product of the current period.
  public var currentProductID: ProductID {
    _read { yield storage.fields.currentProductID }
    _modify { yield &storage.fields.currentProductID }
  }
  /// The product that will renew (`autoRenewProductId`).
  public var autoRenewProductID: ProductID {
    _read { yield storage.fields.autoRenewProductID }
    _modify { yield &storage.fields.autoRenewProductID }
  }
  /// Whether auto-renew is on.
  public var willAutoRenew: Bool {
    _read { yield storage.fields.willAutoRenew }
    _modify { yield &storage.fields.willAutoRenew }
  }
  /// End of the current (or last) paid period.
  public var expirationDate: Date {
    _read { yield storage.fields.expirationDate }
    _modify { yield &storage.fields.expirationDate }
  }
  /// The latest transaction of the group.
  public var latestTransactionID: TransactionID {
    _read { yield storage.fields.latestTransactionID }
    _modify { yield &storage.fields.latestTransactionID }
  }
  /// Billing health.
  public var billing: BillingState {
    _read { yield storage.fields.billing }
    _modify { yield &storage.fields.billing }
  }
  /// Why it expired (or why renewal is failing).
  public var expirationReason: ExpirationReason? {
    _read { yield storage.fields.expirationReason }
    _modify { yield &storage.fields.expirationReason }
  }
  /// Whether it has ended.
  public var isExpired: Bool {
    _read { yield storage.fields.isExpired }
    _modify { yield &storage.fields.isExpired }
  }
  /// Whether the current period was refunded.
  public var isRevoked: Bool {
    _read { yield storage.fields.isRevoked }
    _modify { yield &storage.fields.isRevoked }
  }
  /// Price increase consent.
  public var priceIncreaseStatus: PriceIncreaseStatus {
    _read { yield storage.fields.priceIncreaseStatus }
    _modify { yield &storage.fields.priceIncreaseStatus }
  }
  /// an active subscriber, or with a deferred plan change).
  public var pendingOffer: SubscriptionOffer? {
    get { storage.fields.pendingOffer?.fields }
    set {
      storage.fields.pendingOffer = newValue.map(CopyOnWrite.init)
    }
  }

  /// Whether an offer is pending or running (cheaper than reading either).
  var hasOffer: Bool { storage.fields.pendingOffer != nil || storage.fields.runningOffer != nil }

  /// An offer still running over several periods (pay as you go), and how many periods remain.
  public var runningOffer: SubscriptionOffer? {
    get { storage.fields.runningOffer?.fields }
    set {
      storage.fields.runningOffer = newValue.map(CopyOnWrite.init)
    }
  }

  /// Periods left of `runningOffer` after the current one.
  public var runningOfferPeriodsLeft: Int {
    _read { yield storage.fields.runningOfferPeriodsLeft }
    _modify { yield &storage.fields.runningOfferPeriodsLeft }
  }
  /// Start of the current run of periods, bridging gaps shorter than 60 days.
  public var recentSubscriptionStartDate: Date {
    _read { yield storage.fields.recentSubscriptionStartDate }
    _modify { yield &storage.fields.recentSubscriptionStartDate }
  }
  /// Successful renewals so far (the sandbox stops after 12).
  public var renewalCount: Int {
    _read { yield storage.fields.renewalCount }
    _modify { yield &storage.fields.renewalCount }
  }
  /// The app account token of the purchase.
  public var appAccountToken: UUID? {
    _read { yield storage.fields.appAccountToken }
    _modify { yield &storage.fields.appAccountToken }
  }

  /// The start of the run of periods whose anniversary renewals keep (rule
  /// renewals-keep-the-anniversary); nil in sessions written before it existed.
  public var anniversaryDate: Date? {
    _read { yield storage.fields.anniversaryDate }
    _modify { yield &storage.fields.anniversaryDate }
  }
  /// The price the customer agreed to (or was told of) in a price increase: shown as
  /// `renewalPrice` from the request on and charged from the next renewal after consent (rule
  /// price-increase-changes-the-renewal-price).
  public var increasedPrice: Decimal? {
    _read { yield storage.fields.increasedPrice }
    _modify { yield &storage.fields.increasedPrice }
  }

  // Compared and hashed by the fields only: the cached date is derived.
  public static func == (a: SubscriptionState, b: SubscriptionState) -> Bool { a.storage == b.storage }

  public func hash(into hasher: inout Hasher) { storage.hash(into: &hasher) }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// The offer that applies from the next renewal (offer code or promotional offer redeemed by

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

/// One Apple Account of the session.
public struct Customer: Sendable, Hashable, Codable, Identifiable {
  /// The customer's name (`--customer`).
  public var id: CustomerID
  /// Every transaction of this customer, in creation order (deleted ones removed).
  public var transactions: [Transaction]
  /// Own subscriptions, one per group ever subscribed.
  public var subscriptions: [SubscriptionState]
  /// Groups whose introductory offer this customer has used.
  public var introductoryOfferUsedGroups: Set<SubscriptionGroupID>
  /// The family this customer belongs to, if any.
  public var familyID: String?
  /// The app transaction id of this customer.
  public var appTransactionID: String

  enum CodingKeys: String, CodingKey {
    case id = "name"
    case transactions, subscriptions, introductoryOfferUsedGroups, familyID, appTransactionID
  }

  /// The own subscription state for a group.
  public func subscription(_ group: SubscriptionGroupID) -> SubscriptionState? {
    subscriptions.first { $0.groupID == group }
  }

  /// The transaction with an id.
  public func transaction(_ id: TransactionID) -> Transaction? {
    transactions.last { $0.id == id }
  }
}

/// A recorded App Store Server Notification V2, with the data it carried when emitted.
///
/// Copy-on-write: the outbox holds one reference per notification, and the record (with its
/// renewal info) is a single allocation.
public struct ServerNotification: Sendable, Hashable, Codable {
  /// The stored fields.
  struct Fields: Sendable, Hashable, Codable {
    var notificationType: NotificationTypeV2
    var subtype: Subtype?
    var sequence: Int
    var signedDate: Date
    var customer: CustomerID
    var transaction: Transaction?
    var renewalInfo: RenewalInfo?
    var status: RenewalState?
    var consumptionRequestReason: ConsumptionRequestReason?
  }

  private var storage: CopyOnWrite<Fields>

  /// Creates a record.
  init(
    notificationType: NotificationTypeV2, subtype: Subtype?, sequence: Int, signedDate: Date, customer: CustomerID,
    transaction: Transaction?, renewalInfo: RenewalInfo?, status: RenewalState?,
    consumptionRequestReason: ConsumptionRequestReason? = nil
  ) {
    storage = CopyOnWrite(
      Fields(
        notificationType: notificationType, subtype: subtype, sequence: sequence, signedDate: signedDate,
        customer: customer, transaction: transaction, renewalInfo: renewalInfo, status: status,
        consumptionRequestReason: consumptionRequestReason))
  }

  /// `notificationType`.
  public var notificationType: NotificationTypeV2 {
    _read { yield storage.fields.notificationType }
    _modify { yield &storage.fields.notificationType }
  }
  /// `subtype`.
  public var subtype: Subtype? {
    _read { yield storage.fields.subtype }
    _modify { yield &storage.fields.subtype }
  }
  /// Position in the outbox (0-based); the `notificationUUID` is derived from it.
  public var sequence: Int {
    _read { yield storage.fields.sequence }
    _modify { yield &storage.fields.sequence }
  }
  /// `signedDate`: the emission time.
  public var signedDate: Date {
    _read { yield storage.fields.signedDate }
    _modify { yield &storage.fields.signedDate }
  }
  /// The customer it is about.
  public var customer: CustomerID {
    _read { yield storage.fields.customer }
    _modify { yield &storage.fields.customer }
  }
  /// The transaction it carries, as it was then.
  public var transaction: Transaction? {
    _read { yield storage.fields.transaction }
    _modify { yield &storage.fields.transaction }
  }
  /// The renewal info it carries, as it was then (auto-renewables only).
  public var renewalInfo: RenewalInfo? {
    _read { yield storage.fields.renewalInfo }
    _modify { yield &storage.fields.renewalInfo }
  }
  /// The subscription status then (auto-renewables only).
  public var status: RenewalState? {
    _read { yield storage.fields.status }
    _modify { yield &storage.fields.status }
  }

  /// `data.consumptionRequestReason` of a `CONSUMPTION_REQUEST`.
  public var consumptionRequestReason: ConsumptionRequestReason? {
    _read { yield storage.fields.consumptionRequestReason }
    _modify { yield &storage.fields.consumptionRequestReason }
  }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// `notificationUUID`: unique per notification, stable across reads and retries.
  public var notificationUUID: String {
    let hex = String(UInt64(sequence + 1), radix: 16)
    return "5e1a0000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }
}

/// The whole state of a session: a value that can be compared, saved and restored.
public struct StoreState: Sendable, Hashable, Codable {
  /// The catalogue.
  public var configuration: StoreConfiguration
  /// The settings in force.
  public var settings: StoreKitSettings
  /// The virtual clock.
  public var now: Date
  /// When the session started.
  public var startDate: Date
  /// The app's bundle id.
  public var bundleID: String
  /// The environment data is signed for.
  public var environment: StoreEnvironment
  /// Customers in creation order; the first is `default`.
  public var customers: [Customer]
  /// Open Ask to Buy requests and interrupted purchases.
  public var pendingRequests: [PendingRequest]
  /// Notifications emitted so far, in order.
  public var notifications: [ServerNotification]
  /// The next transaction id.
  public var nextTransactionID: TransactionID
  /// The next web order line item id.
  public var nextWebOrderLineItemID: UInt64
  /// The next request number.
  public var nextRequestNumber: Int
  /// Where notifications are POSTed as they happen (`settings deliver-url`), if anywhere.
  public var deliveryURL: String?
  /// Every delivery attempt of a notification, in order (absent in older session files).
  public var deliveryLog: [NotificationDelivery]?
  /// Refund requests the App Store has not answered yet (absent in older session files).
  public var refundRequests: [RefundRequest]?
  /// What the App Store Server API's writing endpoints recorded (absent until one is used).
  public var serverRecords: ServerRecords?
}

/// Why a customer asked for a refund, as `consumptionRequestReason` (raw values: the wire strings).
public enum ConsumptionRequestReason: String, Sendable, Hashable, Codable, CaseIterable {
  /// The customer didn't mean to buy.
  case unintendedPurchase = "UNINTENDED_PURCHASE"
  /// The purchase was not delivered or did not work.
  case fulfillmentIssue = "FULFILLMENT_ISSUE"
  /// The customer is not satisfied.
  case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE"
  /// A legal reason.
  case legal = "LEGAL"
  /// Another reason.
  case other = "OTHER"
}

/// A refund the customer asked for and the App Store has not answered yet (rule
/// refund-requests-wait-for-an-answer).
public struct RefundRequest: Sendable, Hashable, Codable, Identifiable {
  /// Request id (shares the numbering of Ask to Buy requests).
  public var id: String
  /// The customer who asked.
  public var customer: CustomerID
  /// The transaction to refund.
  public var transactionID: TransactionID
  /// Its product.
  public var productID: ProductID
  /// The customer's reason.
  public var reason: ConsumptionRequestReason
  /// When it was asked.
  public var date: Date
}

/// One attempt to POST a notification to a server.
public struct NotificationDelivery: Sendable, Hashable, Codable {
  /// Index of the notification in the outbox.
  public var index: Int
  /// The URL posted to.
  public var url: String
  /// The HTTP status, when the server answered.
  public var httpStatus: Int?
  /// Why it failed without an HTTP status (connection refused, timeout).
  public var error: String?
  /// Virtual date of the attempt.
  public var date: Date

  /// Creates a record.
  public init(index: Int, url: String, httpStatus: Int?, error: String?, date: Date) {
    self.index = index
    self.url = url
    self.httpStatus = httpStatus
    self.error = error
    self.date = date
  }

  /// HTTP 200-206: what the App Store counts as a successful post ("Responding to App Store
  /// Server Notifications"); every other status is retried.
  public var succeeded: Bool { httpStatus.map { (200...206).contains($0) } ?? false }
}

extension Store {
  /// Records a delivery attempt made by the front end.
  public mutating func recordDelivery(_ attempt: NotificationDelivery) {
    if state.deliveryLog == nil { state.deliveryLog = [] }
    state.deliveryLog!.append(attempt)
  }

  /// Sets or clears the URL notifications are delivered to as they happen.
  public mutating func setDeliveryURL(_ url: String?) {
    state.deliveryURL = url
  }

  /// Notification indexes never delivered successfully to `url`, split into never attempted
  /// and failed before.
  public func undelivered(to url: String) -> (new: [Int], failed: [Int]) {
    let log = (state.deliveryLog ?? []).filter { $0.url == url }
    let done = Set(log.filter(\.succeeded).map(\.index))
    let tried = Set(log.map(\.index))
    let open = state.notifications.indices.filter { !done.contains($0) }
    return (open.filter { !tried.contains($0) }, open.filter { tried.contains($0) })
  }
}
