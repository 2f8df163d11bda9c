import Foundation

/// Something that happened in the store, in emission order.
public struct StoreEvent: Sendable, Hashable, Codable {
  /// How a new transaction reaches the app.
  public enum Delivery: String, Sendable, Hashable, Codable {
    /// Returned by `purchase()` as `.success` (not also on `Transaction.updates`, rule
    /// same-device-purchase-is-not-repeated-on-updates).
    case purchaseResult
    /// Delivered through `Transaction.updates` (renewals, approvals, family, recovery).
    case updates
  }

  /// What happened.
  public enum Kind: Sendable, Hashable, Codable {
    /// A transaction was created.
    case transactionCreated(TransactionID, ProductID, delivery: Delivery)
    /// A transaction was refunded or its family access revoked (re-emitted on `updates`).
    case transactionRevoked(TransactionID, ProductID)
    /// A transaction was superseded by an upgrade (`isUpgraded`, re-emitted on `updates`).
    case transactionUpgraded(TransactionID, ProductID)
    /// A subscription renewed.
    case subscriptionRenewed(SubscriptionGroupID, TransactionID, ProductID)
    /// A renewal failed; the subscription is in grace (with a date) or billing retry.
    case renewalFailed(SubscriptionGroupID, ProductID, gracePeriodExpirationDate: Date?)
    /// Grace ended; billing retry continues without access.
    case gracePeriodExpired(SubscriptionGroupID, ProductID)
    /// A subscription expired.
    case subscriptionExpired(SubscriptionGroupID, ProductID, reason: ExpirationReason)
    /// The product that will renew changed.
    case renewalPreferenceChanged(SubscriptionGroupID, ProductID)
    /// Auto-renew was turned on or off.
    case autoRenewStatusChanged(SubscriptionGroupID, ProductID, willAutoRenew: Bool)
    /// The price increase status changed.
    case priceIncreaseStatusChanged(SubscriptionGroupID, ProductID, PriceIncreaseStatus)
    /// An offer was redeemed for the next renewal.
    case offerRedeemed(SubscriptionGroupID, ProductID, offerType: OfferType, offerID: String?)
    /// A purchase waits for a parent's approval.
    case askToBuyRequested(requestID: String, ProductID)
    /// A parent declined; nothing is delivered.
    case askToBuyDeclined(requestID: String, ProductID)
    /// A purchase was interrupted and waits for `resolve`.
    case purchaseInterrupted(requestID: String, ProductID)
    /// The customer asked for a refund; the request waits for an answer.
    case refundRequested(requestID: String, TransactionID, ProductID)
    /// The App Store declined a refund request.
    case refundDeclined(requestID: String, TransactionID, ProductID)
    /// The App Store reversed a refund: the transaction is no longer revoked (re-emitted on `updates`).
    case refundReversed(TransactionID, ProductID)
    /// A server notification was recorded (index into the outbox).
    case notificationSent(index: Int, type: NotificationTypeV2, subtype: Subtype?)
    /// The clock moved.
    case clockAdvanced(to: Date)
  }

  /// When it happened (virtual time).
  public var date: Date
  /// The customer it concerns; nil for store-wide events (the clock moving).
  public var customer: CustomerID?
  /// What happened.
  public var kind: Kind
}

/// The outcome of a purchase, as `Product.PurchaseResult` plus thrown purchase errors.
public enum PurchaseResult: Sendable, Hashable {
  /// A transaction exists (new, or the existing one for an owned product).
  case success(Transaction, verificationError: String?)
  /// Waiting for Ask to Buy approval or an interrupted purchase's resolution.
  case pending(requestID: String)
  /// The customer dismissed the sheet.
  case userCancelled
  /// The purchase threw this error (`family.name`, e.g. `purchase.ineligibleForOffer`).
  case failed(String)

  /// `purchased`, `pending`, `userCancelled`, `failed`.
  public var name: String {
    switch self {
    case .success: return "purchased"
    case .pending: return "pending"
    case .userCancelled: return "userCancelled"
    case .failed: return "failed"
    }
  }
}
