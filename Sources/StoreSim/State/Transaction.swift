import Foundation

/// A transaction identifier (`Transaction.id`, `transactionId` on the wire).
public typealias TransactionID = UInt64

/// Why a transaction exists, as `Transaction.Reason` (raw values are the wire strings).
public enum TransactionReason: String, Sendable, Hashable, Codable {
  /// Bought by the customer (also Ask to Buy approvals, upgrades, resubscribing).
  case purchase = "PURCHASE"
  /// A system-initiated renewal (including billing recovery).
  case renewal = "RENEWAL"
}

/// Who owns a transaction, as `Transaction.OwnershipType` (raw values are the wire strings).
public enum OwnershipType: String, Sendable, Hashable, Codable {
  /// Bought by this customer.
  case purchased = "PURCHASED"
  /// Shared by a family member.
  case familyShared = "FAMILY_SHARED"
}

/// Why a transaction was revoked, as `Transaction.RevocationReason` (raw values are the wire ints).
public enum RevocationReason: Int, Sendable, Hashable, Codable {
  /// Refunded for another reason.
  case other = 0
  /// Refunded because of a problem with the app.
  case developerIssue = 1
}

/// How a transaction was revoked, as the App Store Server API's `revocationType` (the name and
/// raw values of Apple's `RevocationType`).
public enum RevocationType: String, Sendable, Hashable, Codable, CaseIterable {
  /// The whole purchase was refunded.
  case refundFull = "REFUND_FULL"
  /// Part of the purchase was refunded (`refund TXN --percent P`).
  case refundProrated = "REFUND_PRORATED"
  /// Family Sharing access ended.
  case familyRevoke = "FAMILY_REVOKE"
}

/// The offer a transaction's period was bought with (`Transaction.Offer`).
public struct TransactionOffer: Sendable, Hashable, Codable {
  /// Which kind.
  public package(set) var type: OfferType
  /// Promotional or win-back offer id, or offer-code reference name; nil for introductory.
  public package(set) var id: String?
  /// How it is paid.
  public package(set) var paymentMode: PaymentMode
  /// The offer's length (`offerPeriod`).
  public package(set) var period: SubscriptionPeriod

  /// Creates an offer record.
  public init(type: OfferType, id: String?, paymentMode: PaymentMode, period: SubscriptionPeriod) {
    self.type = type
    self.id = id
    self.paymentMode = paymentMode
    self.period = period
  }

  /// The record of a configured offer: its whole length is the offer period (rule
  /// offer-period-is-the-whole-offer).
  public init(_ offer: SubscriptionOffer) {
    self.init(type: offer.type, id: offer.id, paymentMode: offer.paymentMode, period: offer.totalPeriod)
  }
}

/// A StoreKit 2 `Transaction` as the simulator records it.
///
/// A value with copy-on-write storage: copying one (into a notification, a query result or an
/// event) shares its fields instead of duplicating them, and changing a copy never changes the
/// others. A notification therefore keeps the transaction exactly as it was when it was sent.
public struct Transaction: Sendable, Hashable, Codable, Identifiable {
  private var storage: CopyOnWrite<Fields>

  /// A transaction of these fields.
  package init(fields: Fields) { storage = CopyOnWrite(fields) }

  /// The stored fields (`visitRow` walks them).
  package var fields: Fields {
    _read { yield storage.fields }
    _modify { yield &storage.fields }
  }

  /// Unique id.
  public package(set) var id: TransactionID {
    _read { yield storage.fields.purchase.id }
    _modify { yield &storage.fields.purchase.id }
  }
  /// The id of the first purchase this transaction descends from (`originalID`).
  public package(set) var originalID: TransactionID {
    _read { yield storage.fields.purchase.originalID }
    _modify { yield &storage.fields.purchase.originalID }
  }
  /// One value per paid subscription period; auto-renewables only.
  public package(set) var webOrderLineItemID: UInt64? {
    _read { yield storage.fields.purchase.webOrderLineItemID }
    _modify { yield &storage.fields.purchase.webOrderLineItemID }
  }
  /// The product.
  public package(set) var productID: ProductID {
    _read { yield storage.fields.purchase.productID }
    _modify { yield &storage.fields.purchase.productID }
  }
  /// The product's type.
  public package(set) var productType: ProductType {
    _read { yield storage.fields.purchase.productType }
    _modify { yield &storage.fields.purchase.productType }
  }
  /// The subscription group, auto-renewables only.
  public package(set) var subscriptionGroupID: SubscriptionGroupID? {
    _read { yield storage.fields.purchase.subscriptionGroupID }
    _modify { yield &storage.fields.purchase.subscriptionGroupID }
  }
  /// When the account was charged (or the renewal period began).
  public package(set) var purchaseDate: Date {
    _read { yield storage.fields.purchase.purchaseDate }
    _modify { yield &storage.fields.purchase.purchaseDate }
  }
  /// The `purchaseDate` of the original transaction.
  public package(set) var originalPurchaseDate: Date {
    _read { yield storage.fields.purchase.originalPurchaseDate }
    _modify { yield &storage.fields.purchase.originalPurchaseDate }
  }
  /// End of the period this transaction pays for; auto-renewables only.
  public package(set) var expirationDate: Date? {
    _read { yield storage.fields.status.expirationDate }
    _modify { yield &storage.fields.status.expirationDate }
  }
  /// Quantity bought.
  public package(set) var purchasedQuantity: Int {
    _read { yield storage.fields.purchase.purchasedQuantity }
    _modify { yield &storage.fields.purchase.purchasedQuantity }
  }
  /// The app's account token from the purchase options.
  public package(set) var appAccountToken: UUID? {
    _read { yield storage.fields.purchase.appAccountToken }
    _modify { yield &storage.fields.purchase.appAccountToken }
  }
  /// Bought or family shared.
  public package(set) var ownershipType: OwnershipType {
    _read { yield storage.fields.purchase.ownershipType }
    _modify { yield &storage.fields.purchase.ownershipType }
  }
  /// When refunded or revoked.
  public package(set) var revocationDate: Date? {
    _read { yield storage.fields.status.revocationDate }
    _modify { yield &storage.fields.status.revocationDate }
  }
  /// Why refunded or revoked.
  public package(set) var revocationReason: RevocationReason? {
    _read { yield storage.fields.status.revocationReason }
    _modify { yield &storage.fields.status.revocationReason }
  }
  /// Whether family access was revoked (server `revocationType` `FAMILY_REVOKE`) rather than refunded.
  public package(set) var isFamilyRevocation: Bool {
    _read { yield storage.fields.status.isFamilyRevocation }
    _modify { yield &storage.fields.status.isFamilyRevocation }
  }
  /// Superseded by an immediate upgrade or crossgrade.
  public package(set) var isUpgraded: Bool {
    _read { yield storage.fields.status.isUpgraded }
    _modify { yield &storage.fields.status.isUpgraded }
  }
  /// The offer of this period.
  public package(set) var offer: TransactionOffer? {
    _read { yield storage.fields.purchase.offer }
    _modify { yield &storage.fields.purchase.offer }
  }
  /// Purchase or renewal.
  public package(set) var reason: TransactionReason {
    _read { yield storage.fields.purchase.reason }
    _modify { yield &storage.fields.purchase.reason }
  }
  /// Total price in currency units (after offer, times quantity).
  public package(set) var price: Decimal {
    _read { yield storage.fields.purchase.price }
    _modify { yield &storage.fields.purchase.price }
  }
  /// ISO 4217 currency.
  public package(set) var currency: String {
    _read { yield storage.fields.purchase.currency }
    _modify { yield &storage.fields.purchase.currency }
  }
  /// Storefront country code at purchase time.
  public package(set) var storefront: String {
    _read { yield storage.fields.purchase.storefront }
    _modify { yield &storage.fields.purchase.storefront }
  }
  /// Apple's storefront id.
  public package(set) var storefrontID: String {
    _read { yield storage.fields.purchase.storefrontID }
    _modify { yield &storage.fields.purchase.storefrontID }
  }
  /// Whether the app has called `finish()`.
  public package(set) var isFinished: Bool {
    _read { yield storage.fields.status.isFinished }
    _modify { yield &storage.fields.status.isFinished }
  }
  /// The customer whose purchase was shared into this one (family copies only).
  public package(set) var sharedFrom: CustomerID? {
    _read { yield storage.fields.purchase.sharedFrom }
    _modify { yield &storage.fields.purchase.sharedFrom }
  }
  /// The purchaser's transaction this family copy mirrors.
  public package(set) var sharedTransactionID: TransactionID? {
    _read { yield storage.fields.purchase.sharedTransactionID }
    _modify { yield &storage.fields.purchase.sharedTransactionID }
  }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// Whether refunded or revoked.
  public var isRevoked: Bool { revocationDate != nil }

  /// How it was revoked (`revocationType` on the wire), nil while it is not: a refund with a
  /// percentage is prorated, one without is full; family access ends with `.familyRevoke`
  /// (rule refund-carries-revocation-percentage).
  public var revocationType: RevocationType? {
    guard isRevoked else { return nil }
    if isFamilyRevocation { return .familyRevoke }
    return storage.fields.status.revocationPercentage == nil ? .refundFull : .refundProrated
  }

  /// The refunded share in milliunits of a percent (`revocationPercentage` on the wire):
  /// 100000 for a full refund, the given share for a prorated one, nil for a family revocation
  /// and while not refunded (a reversal removes it).
  public var revocationPercentage: UInt64? {
    switch revocationType {
    case .refundFull: 100_000
    case .refundProrated: storage.fields.status.revocationPercentage
    case .familyRevoke, nil: nil
    }
  }

  /// The commitment of a commitment plan's billing period (`commitmentInfo`), nil otherwise.
  public var commitmentInfo: TransactionCommitment? {
    let p = storage.fields.purchase
    guard let n = p.billingPeriodNumber, let end = p.commitmentExpiresDate, let price = p.commitmentPrice else {
      return nil
    }
    return TransactionCommitment(
      billingPeriodNumber: Int(n), totalBillingPeriods: SubscriptionCommitment.totalBillingPeriods,
      expirationDate: Date(epochMilliseconds: Int64(end)), price: Decimal(price) / 1000)
  }

  /// How the period was billed (`billingPlanType`): monthly inside a commitment, else up front;
  /// nil for what is not an auto-renewable subscription.
  public var billingPlanType: BillingPlanType? {
    guard productType == .autoRenewable else { return nil }
    return storage.fields.purchase.billingPeriodNumber == nil ? .billedUpfront : .monthly
  }

  /// Records the commitment of this billing period.
  package mutating func setCommitment(_ c: TransactionCommitment?) {
    storage.fields.purchase.billingPeriodNumber = c.map { UInt64($0.billingPeriodNumber) }
    storage.fields.purchase.commitmentExpiresDate = c.map { UInt64(max($0.expirationDate.epochMilliseconds, 0)) }
    storage.fields.purchase.commitmentPrice = c.map {
      var value = $0.price * 1000
      var rounded = Decimal()
      NSDecimalRound(&rounded, &value, 0, .plain)
      return NSDecimalNumber(decimal: rounded).uint64Value
    }
  }

  /// Sets or clears the share a prorated refund returned.
  package mutating func setProratedPercentage(_ milliunits: UInt64?) {
    storage.fields.status.revocationPercentage = milliunits
  }

  /// The transaction's place in the store's order of changes to transactions: set when it is
  /// created and again whenever it changes (refunded, revoked, reinstated, upgraded, extended,
  /// given an app account token). The App Store Server API orders transaction history by it
  /// (Apple's "recently modified date"); 0 in sessions saved before it was recorded.
  package var modificationOrder: UInt64 {
    get { storage.fields.status.modificationOrder ?? 0 }
    set { storage.fields.status.modificationOrder = newValue == 0 ? nil : newValue }
  }

  /// This transaction with the fields that can change after it was created (`Fields.Status`)
  /// taken from `other`.
  package func withMutableFields(of other: Transaction) -> Transaction {
    var t = self
    t.storage.fields.status = other.storage.fields.status
    return t
  }
}
