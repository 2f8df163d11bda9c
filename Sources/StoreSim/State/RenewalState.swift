import Foundation

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
