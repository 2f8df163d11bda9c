import Foundation

extension Product.PurchaseOption {
  /// The value of a `custom(key:value:)` option, of any type StoreKit takes.
  enum CustomValue: Hashable, Sendable {
    case string(String)
    case bool(Bool)
    case double(Double)
    case data(Data)
    case uuid(UUID)
  }

  /// A custom key and value; no effect.
  public static func custom(key: String, value: Bool) -> Product.PurchaseOption {
    .init(kind: .custom(key, .bool(value)))
  }

  /// A custom key and value; no effect.
  public static func custom(key: String, value: Double) -> Product.PurchaseOption {
    .init(kind: .custom(key, .double(value)))
  }

  /// A custom key and value; no effect.
  public static func custom(key: String, value: Data) -> Product.PurchaseOption {
    .init(kind: .custom(key, .data(value)))
  }

  /// A custom key and value; no effect.
  public static func custom(key: String, value: UUID) -> Product.PurchaseOption {
    .init(kind: .custom(key, .uuid(value)))
  }
}

extension Product.PurchaseError: LocalizedError {
  /// What went wrong, in words, as StoreKit's `LocalizedError` conformance gives.
  public var errorDescription: String? {
    switch self {
    case .invalidQuantity: return "The quantity is not valid for this product."
    case .productUnavailable: return "The product is not available."
    case .purchaseNotAllowed: return "The customer is not allowed to make purchases."
    case .ineligibleForOffer: return "The customer is not eligible for the offer."
    case .invalidOfferIdentifier: return "The offer identifier is not valid."
    case .invalidOfferPrice: return "The offer price is not valid."
    case .invalidOfferSignature: return "The offer signature is not valid."
    case .missingOfferParameters: return "The offer parameters are missing."
    }
  }
}

extension Transaction.RefundRequestError: LocalizedError {
  /// What went wrong, in words, as StoreKit's `LocalizedError` conformance gives.
  public var errorDescription: String? {
    switch self {
    case .duplicateRequest: return "A refund request for this transaction is already open."
    case .failed: return "The refund request failed."
    }
  }
}

extension Product {
  /// `purchase(options:)` from a scene or view controller (iOS 17 and later); the scene, where
  /// the sheet would show, is not used.
  public func purchase<Scene>(
    confirmIn scene: Scene, options: Set<PurchaseOption> = []
  ) async throws
    -> PurchaseResult
  {
    try await purchase(options: options)
  }
}
