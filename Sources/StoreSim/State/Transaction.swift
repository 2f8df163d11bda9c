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
  /// Part of the purchase was refunded (storesim refunds in full).
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
  /// The stored fields, in wire order.
  struct Fields: Sendable, Hashable, Codable {
    var id: TransactionID
    var originalID: TransactionID
    var webOrderLineItemID: UInt64?
    var productID: ProductID
    var productType: ProductType
    var subscriptionGroupID: SubscriptionGroupID?
    var purchaseDate: Date
    var originalPurchaseDate: Date
    var expirationDate: Date?
    var purchasedQuantity: Int
    var appAccountToken: UUID?
    var ownershipType: OwnershipType
    var revocationDate: Date?
    var revocationReason: RevocationReason?
    var isFamilyRevocation: Bool
    var isUpgraded: Bool
    var offer: TransactionOffer?
    var reason: TransactionReason
    var price: Decimal
    var currency: String
    var storefront: String
    var storefrontID: String
    var isFinished: Bool
    var sharedFrom: CustomerID?
    var sharedTransactionID: TransactionID?
  }

  private var storage: CopyOnWrite<Fields>

  init(fields: Fields) { storage = CopyOnWrite(fields) }

  /// Creates a transaction record.
  package init(
    id: TransactionID,
    originalID: TransactionID,
    webOrderLineItemID: UInt64?,
    productID: ProductID,
    productType: ProductType,
    subscriptionGroupID: SubscriptionGroupID?,
    purchaseDate: Date,
    originalPurchaseDate: Date,
    expirationDate: Date?,
    purchasedQuantity: Int,
    appAccountToken: UUID?,
    ownershipType: OwnershipType,
    revocationDate: Date?,
    revocationReason: RevocationReason?,
    isFamilyRevocation: Bool,
    isUpgraded: Bool,
    offer: TransactionOffer?,
    reason: TransactionReason,
    price: Decimal,
    currency: String,
    storefront: String,
    storefrontID: String,
    isFinished: Bool,
    sharedFrom: CustomerID?,
    sharedTransactionID: TransactionID?
  ) {
    storage = CopyOnWrite(
      Fields(
        id: id,
        originalID: originalID,
        webOrderLineItemID: webOrderLineItemID,
        productID: productID,
        productType: productType,
        subscriptionGroupID: subscriptionGroupID,
        purchaseDate: purchaseDate,
        originalPurchaseDate: originalPurchaseDate,
        expirationDate: expirationDate,
        purchasedQuantity: purchasedQuantity,
        appAccountToken: appAccountToken,
        ownershipType: ownershipType,
        revocationDate: revocationDate,
        revocationReason: revocationReason,
        isFamilyRevocation: isFamilyRevocation,
        isUpgraded: isUpgraded,
        offer: offer,
        reason: reason,
        price: price,
        currency: currency,
        storefront: storefront,
        storefrontID: storefrontID,
        isFinished: isFinished,
        sharedFrom: sharedFrom,
        sharedTransactionID: sharedTransactionID))
  }

  /// Unique id.
  public package(set) var id: TransactionID {
    _read { yield storage.fields.id }
    _modify { yield &storage.fields.id }
  }
  /// The id of the first purchase this transaction descends from (`originalID`).
  public package(set) var originalID: TransactionID {
    _read { yield storage.fields.originalID }
    _modify { yield &storage.fields.originalID }
  }
  /// One value per paid subscription period; auto-renewables only.
  public package(set) var webOrderLineItemID: UInt64? {
    _read { yield storage.fields.webOrderLineItemID }
    _modify { yield &storage.fields.webOrderLineItemID }
  }
  /// The product.
  public package(set) var productID: ProductID {
    _read { yield storage.fields.productID }
    _modify { yield &storage.fields.productID }
  }
  /// The product's type.
  public package(set) var productType: ProductType {
    _read { yield storage.fields.productType }
    _modify { yield &storage.fields.productType }
  }
  /// The subscription group, auto-renewables only.
  public package(set) var subscriptionGroupID: SubscriptionGroupID? {
    _read { yield storage.fields.subscriptionGroupID }
    _modify { yield &storage.fields.subscriptionGroupID }
  }
  /// When the account was charged (or the renewal period began).
  public package(set) var purchaseDate: Date {
    _read { yield storage.fields.purchaseDate }
    _modify { yield &storage.fields.purchaseDate }
  }
  /// The `purchaseDate` of the original transaction.
  public package(set) var originalPurchaseDate: Date {
    _read { yield storage.fields.originalPurchaseDate }
    _modify { yield &storage.fields.originalPurchaseDate }
  }
  /// End of the period this transaction pays for; auto-renewables only.
  public package(set) var expirationDate: Date? {
    _read { yield storage.fields.expirationDate }
    _modify { yield &storage.fields.expirationDate }
  }
  /// Quantity bought.
  public package(set) var purchasedQuantity: Int {
    _read { yield storage.fields.purchasedQuantity }
    _modify { yield &storage.fields.purchasedQuantity }
  }
  /// The app's account token from the purchase options.
  public package(set) var appAccountToken: UUID? {
    _read { yield storage.fields.appAccountToken }
    _modify { yield &storage.fields.appAccountToken }
  }
  /// Bought or family shared.
  public package(set) var ownershipType: OwnershipType {
    _read { yield storage.fields.ownershipType }
    _modify { yield &storage.fields.ownershipType }
  }
  /// When refunded or revoked.
  public package(set) var revocationDate: Date? {
    _read { yield storage.fields.revocationDate }
    _modify { yield &storage.fields.revocationDate }
  }
  /// Why refunded or revoked.
  public package(set) var revocationReason: RevocationReason? {
    _read { yield storage.fields.revocationReason }
    _modify { yield &storage.fields.revocationReason }
  }
  /// Whether family access was revoked (server `revocationType` `FAMILY_REVOKE`) rather than refunded.
  public package(set) var isFamilyRevocation: Bool {
    _read { yield storage.fields.isFamilyRevocation }
    _modify { yield &storage.fields.isFamilyRevocation }
  }
  /// Superseded by an immediate upgrade or crossgrade.
  public package(set) var isUpgraded: Bool {
    _read { yield storage.fields.isUpgraded }
    _modify { yield &storage.fields.isUpgraded }
  }
  /// The offer of this period.
  public package(set) var offer: TransactionOffer? {
    _read { yield storage.fields.offer }
    _modify { yield &storage.fields.offer }
  }
  /// Purchase or renewal.
  public package(set) var reason: TransactionReason {
    _read { yield storage.fields.reason }
    _modify { yield &storage.fields.reason }
  }
  /// Total price in currency units (after offer, times quantity).
  public package(set) var price: Decimal {
    _read { yield storage.fields.price }
    _modify { yield &storage.fields.price }
  }
  /// ISO 4217 currency.
  public package(set) var currency: String {
    _read { yield storage.fields.currency }
    _modify { yield &storage.fields.currency }
  }
  /// Storefront country code at purchase time.
  public package(set) var storefront: String {
    _read { yield storage.fields.storefront }
    _modify { yield &storage.fields.storefront }
  }
  /// Apple's storefront id.
  public package(set) var storefrontID: String {
    _read { yield storage.fields.storefrontID }
    _modify { yield &storage.fields.storefrontID }
  }
  /// Whether the app has called `finish()`.
  public package(set) var isFinished: Bool {
    _read { yield storage.fields.isFinished }
    _modify { yield &storage.fields.isFinished }
  }
  /// The customer whose purchase was shared into this one (family copies only).
  public package(set) var sharedFrom: CustomerID? {
    _read { yield storage.fields.sharedFrom }
    _modify { yield &storage.fields.sharedFrom }
  }
  /// The purchaser's transaction this family copy mirrors.
  public package(set) var sharedTransactionID: TransactionID? {
    _read { yield storage.fields.sharedTransactionID }
    _modify { yield &storage.fields.sharedTransactionID }
  }

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// Whether refunded or revoked.
  public var isRevoked: Bool { revocationDate != nil }

  /// How it was revoked (`revocationType` on the wire), nil while it is not: a refund is always
  /// full; family access ends with `.familyRevoke`.
  public var revocationType: RevocationType? {
    guard isRevoked else { return nil }
    return isFamilyRevocation ? .familyRevoke : .refundFull
  }

  /// This transaction with the fields that can change after it was created taken from `other`.
  package func withMutableFields(of other: Transaction) -> Transaction {
    var t = self
    t.isFinished = other.isFinished
    t.isUpgraded = other.isUpgraded
    t.revocationDate = other.revocationDate
    t.revocationReason = other.revocationReason
    t.isFamilyRevocation = other.isFamilyRevocation
    t.expirationDate = other.expirationDate
    return t
  }
}
