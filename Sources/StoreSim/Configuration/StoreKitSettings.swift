/// A StoreKit API that can be made to fail, as StoreKitTest's `FailableStoreKitAPI` (rule
/// simulated-errors-last-until-cleared).
///
/// Raw values are the `name` strings of `_storeKitErrors` entries in `.storekit` files.
public enum StoreKitAPI: String, Sendable, Hashable, Codable, CaseIterable {
  /// `Product.products(for:)`.
  case loadProducts = "Load Products"
  /// `Product.purchase(options:)`.
  case purchase = "Purchase"
  /// Verification of signed transactions.
  case verification = "Verification"
  /// `AppStore.sync()`.
  case appStoreSync = "App Store Sync"
  /// `Product.SubscriptionInfo.status(for:)`.
  case subscriptionStatus = "Subscription Status"
  /// `AppTransaction.shared`.
  case appTransaction = "App Transaction"
  /// The manage-subscriptions sheet.
  case manageSubscriptions = "Manage Subscriptions Sheet"
  /// The refund request sheet.
  case refundRequest = "Refund Request Sheet"
  /// The offer code redemption sheet.
  case offerCodeRedeem = "Offer Code Redeem Sheet"

  /// The StoreKitTest static member name (`loadProducts`, `purchase`, …).
  public var name: String { String(describing: self) }

  /// Error families this API accepts (`generic` is `StoreKitError`).
  public var families: [SimulatedError.Family] {
    switch self {
    case .purchase: return [.generic, .purchase]
    case .verification: return [.verification]
    case .refundRequest: return [.generic, .refundRequest]
    default: return [.generic]
    }
  }

  /// Reads a member name (`loadProducts`), a file name (`Load Products`) or a kebab form, in any
  /// case: `_storeKitErrors` names and what people type.
  package init?(anyName: String) {
    let key = anyName.lowercased().filter { $0.isLetter }
    if let api = StoreKitAPI.allCases.first(where: {
      $0.name.lowercased() == key || $0.rawValue.lowercased().filter(\.isLetter) == key
    }) {
      self = api
    } else if key == "offercoderedeem" || key == "manage" {
      self = key == "manage" ? .manageSubscriptions : .offerCodeRedeem
    } else {
      return nil
    }
  }
}

extension StoreKitAPI: CodingKeyRepresentable {
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// A dictionary keyed by API is written keyed by `name` (`loadProducts`).
  public var codingKey: any CodingKey { Key(stringValue: name) }

  public init?<T: CodingKey>(codingKey: T) {
    guard let api = Self.allCases.first(where: { $0.name == codingKey.stringValue }) else { return nil }
    self = api
  }
}

/// The legacy `SKError.Code` purchases fail with while failing transactions is on
/// (`_storeKitError` in `.storekit` files). Raw values are the case names; `code` is Apple's
/// number.
public enum SKErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
  /// `SKError.Code.unknown` (0).
  case unknown
  /// `SKError.Code.invalidOfferIdentifier` (11).
  case invalidOfferIdentifier
  /// `SKError.Code.invalidSignature` (12).
  case invalidSignature
  /// `SKError.Code.missingOfferParams` (13).
  case missingOfferParams
  /// `SKError.Code.invalidOfferPrice` (14).
  case invalidOfferPrice

  /// Apple's `SKError.Code` number, as `_storeKitError` writes it.
  public var code: Int {
    switch self {
    case .unknown: return 0
    case .invalidOfferIdentifier: return 11
    case .invalidSignature: return 12
    case .missingOfferParams: return 13
    case .invalidOfferPrice: return 14
    }
  }

  /// The case with Apple's number, or nil when storesim does not simulate it.
  public init?(code: Int) {
    guard let c = Self.allCases.first(where: { $0.code == code }) else { return nil }
    self = c
  }
}

/// An error a StoreKit API is made to throw (`SKTestFailures`).
public struct SimulatedError: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The error type family.
  public enum Family: String, Sendable, Hashable, Codable, CaseIterable {
    /// `StoreKitError`.
    case generic
    /// `Product.PurchaseError`.
    case purchase
    /// `VerificationResult.VerificationError`.
    case verification
    /// `Transaction.RefundRequestError`.
    case refundRequest

    /// The cases of the family, in the order Xcode's editor lists them.
    ///
    /// - Note: rule storekit-file-error-index-is-xcodes-list-position: the `index` in
    ///   `_storeKitErrors[].current` is a
    ///   position in this list [inf]; Apple does not document the encoding.
    public var cases: [String] {
      switch self {
      case .generic:
        return [
          "unknown", "networkError", "systemError", "notAvailableInStorefront", "notEntitled",
          "userCancelled", "unsupported",
        ]
      case .purchase:
        return [
          "invalidOfferIdentifier", "invalidOfferPrice", "invalidOfferSignature",
          "invalidQuantity", "missingOfferParameters", "productUnavailable",
          "purchaseNotAllowed", "ineligibleForOffer",
        ]
      case .verification:
        return [
          "revokedCertificate", "invalidCertificateChain", "invalidDeviceVerification",
          "invalidEncoding", "invalidSignature", "missingRequiredProperties",
        ]
      case .refundRequest:
        return ["duplicateRequest", "failed"]
      }
    }

    /// The `type` string `.storekit` files use for this family.
    var fileName: String {
      switch self {
      case .refundRequest: return "refund request"
      default: return rawValue
      }
    }
  }

  /// Which family.
  public var family: Family
  /// The case name inside the family (`networkError`, `ineligibleForOffer`).
  public var name: String

  /// Creates an error value.
  public init(family: Family, name: String) {
    self.family = family
    self.name = name
  }

  /// `family.name`, e.g. `generic.networkError`.
  public var description: String { "\(family.rawValue).\(name)" }
}

/// The test-environment settings of a session, as `SKTestSession`'s properties (rule
/// reset-restores-the-configuration-settings).
///
/// Initial values come from the configuration's `settings` block; `resetToDefaultState()`
/// restores them.
public struct StoreKitSettings: Sendable, Hashable, Codable {
  /// ISO 3166-1 alpha-3 storefront (`_storefront`).
  public var storefront: String = "USA"
  /// Locale used to pick localizations (`_locale`).
  public var locale: String = "en_US"
  /// Subscription clock speed (`_timeRate`).
  public var timeRate: TimeRate = .realTime
  /// Every purchase needs a parent's approval (`_askToBuyEnabled`).
  public var askToBuyEnabled = false
  /// Every purchase is interrupted until resolved (`_billingIssuesEnabled`) [inf mapping].
  public var interruptedPurchasesEnabled = false
  /// Every renewal fails into billing retry (`_renewalBillingIssuesEnabled`).
  public var shouldEnterBillingRetryOnRenewal = false
  /// Failing renewals enter a grace period first (`_billingGracePeriodEnabled`).
  public var billingGracePeriodIsEnabled = false
  /// System sheets are suppressed (`_disableDialogs`).
  public var disableDialogs = false
  /// Legacy: every purchase fails (`_failTransactionsEnabled`).
  public var failTransactionsEnabled = false
  /// Legacy: the `SKError` purchases fail with while `failTransactionsEnabled`.
  public var failureError: SKErrorCode = .unknown
  /// Simulated errors per API (written keyed by `StoreKitAPI.name`).
  public var simulatedErrors: [StoreKitAPI: SimulatedError] = [:]

  /// The defaults of `SKTestSession`.
  public init() {}

  /// The simulated error for an API, if any.
  public func simulatedError(forAPI api: StoreKitAPI) -> SimulatedError? {
    simulatedErrors.isEmpty ? nil : simulatedErrors[api]
  }

  /// Sets or clears (nil) the simulated error for an API, as `setSimulatedError(_:forAPI:)`.
  public mutating func setSimulatedError(_ error: SimulatedError?, forAPI api: StoreKitAPI) {
    simulatedErrors[api] = error
  }
}
