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

/// An error a purchase throws, as StoreKit's: `Product.PurchaseError` for a refused offer or
/// quantity, the error a test made the purchase API throw, or the legacy `SKError` of failing
/// transactions. The description is the text storesim prints (`purchase.ineligibleForOffer`,
/// `generic.networkError`, `SKError.unknown`).
public enum PurchaseFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// `Product.PurchaseError.invalidQuantity`: a quantity outside 1...10.
  case invalidQuantity
  /// `Product.PurchaseError.invalidOfferIdentifier`: no such offer for the product.
  case invalidOfferIdentifier
  /// `Product.PurchaseError.ineligibleForOffer`: the customer may not redeem the offer.
  case ineligibleForOffer
  /// `Product.PurchaseError.invalidOfferSignature`: the developer's signature is refused, and why.
  case invalidOfferSignature(String)
  /// The error `setSimulatedError(_:forAPI: .purchase)` made the purchase throw.
  case simulated(SimulatedError)
  /// The legacy `SKError` every purchase fails with while failing transactions is on.
  case skError(SKErrorCode)

  public var description: String {
    switch self {
    case .invalidQuantity: return SimulatedError(family: .purchase, name: "invalidQuantity").description
    case .invalidOfferIdentifier: return SimulatedError(family: .purchase, name: "invalidOfferIdentifier").description
    case .ineligibleForOffer: return SimulatedError(family: .purchase, name: "ineligibleForOffer").description
    case .invalidOfferSignature(let reason):
      return SimulatedError(family: .purchase, name: "invalidOfferSignature").description + " (\(reason))"
    case .simulated(let error): return error.description
    case .skError(let code): return "SKError.\(code.rawValue)"
    }
  }
}

/// The outcome of a purchase, as `Product.PurchaseResult` plus thrown purchase errors.
public enum PurchaseResult: Sendable, Hashable {
  /// A transaction exists (new, or the existing one for an owned product).
  case success(Transaction, verificationError: SimulatedError?)
  /// Waiting for Ask to Buy approval or an interrupted purchase's resolution.
  case pending(requestID: String)
  /// The customer dismissed the sheet.
  case userCancelled
  /// The purchase threw this error.
  case failed(PurchaseFailure)

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
