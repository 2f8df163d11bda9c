import Foundation

/// Renewal information of a subscription, as `Product.SubscriptionInfo.RenewalInfo`.
public struct RenewalInfo: Sendable, Hashable, Codable {
  /// The group's original transaction id.
  public var originalTransactionID: TransactionID
  /// The product of the current period.
  public var currentProductID: ProductID
  /// The product that renews next (server `autoRenewProductId`, present even when off).
  public var autoRenewProductID: ProductID
  /// Whether auto-renew is on.
  public var willAutoRenew: Bool
  /// Why it expired or is failing.
  public var expirationReason: ExpirationReason?
  /// Whether a failed renewal is being retried.
  public var isInBillingRetry: Bool
  /// When grace ends, while in grace.
  public var gracePeriodExpirationDate: Date?
  /// Price increase consent.
  public var priceIncreaseStatus: PriceIncreaseStatus
  /// The offer of the next renewal.
  public var offer: TransactionOffer?
  /// Expiration of the most recent paid period.
  public var renewalDate: Date
  /// Start of the current run of periods.
  public var recentSubscriptionStartDate: Date
  /// Price of the next period, offer included.
  public var renewalPrice: Decimal
  /// Currency of `renewalPrice`.
  public var currency: String
  /// Win-back offers the customer may redeem now, best first.
  public var eligibleWinBackOfferIDs: [String]
  /// The app account token.
  public var appAccountToken: UUID?
  /// When this value was produced (`signedDate`).
  public var signedDate: Date

  /// StoreKit's `autoRenewPreference`: nil when the subscription will not renew [doc].
  public var autoRenewPreference: ProductID? { willAutoRenew ? autoRenewProductID : nil }
}

/// One subscription status of a group, as `Product.SubscriptionInfo.Status`.
public struct SubscriptionStatus: Sendable, Hashable, Codable {
  /// The group.
  public var groupID: SubscriptionGroupID
  /// The renewal state.
  public var state: RenewalState
  /// Renewal info.
  public var renewalInfo: RenewalInfo
  /// The group's latest transaction for this customer.
  public var transaction: Transaction
  /// Whether this status comes from a family member's subscription.
  public var isFamilyShared: Bool
}
