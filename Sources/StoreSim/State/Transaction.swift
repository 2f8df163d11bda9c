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
  /// The fields, shared by copies (the public properties in Transaction+Forwarding.swift).
  var storage: CopyOnWrite<Fields>

  /// A transaction of these fields.
  package init(fields: Fields) { storage = CopyOnWrite(fields) }

  /// The stored fields (`visitRow` walks them).
  package var fields: Fields {
    _read { yield storage.fields }
    _modify { yield &storage.fields }
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
