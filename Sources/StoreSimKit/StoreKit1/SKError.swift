import Foundation
import StoreSim

/// The domain of StoreKit 1's errors (`SKError`), as StoreKit's `SKErrorDomain` (rule
/// sk-error-bridges-to-nserror-in-skerrordomain).
public let SKErrorDomain = "SKErrorDomain"

/// StoreKit 1's error, as StoreKit's `SKError` (domain `SKErrorDomain`): what a `failed`
/// `SKPaymentTransaction` carries in `error`, and what `request(_:didFailWithError:)` and
/// `restoreCompletedTransactionsFailedWithError` receive.
///
/// Match it as with StoreKit: `(transaction.error as? SKError)?.code == .paymentCancelled`, or
/// `catch SKError.paymentCancelled`.
public struct SKError: Error, Sendable, Hashable, CustomNSError, LocalizedError, CustomStringConvertible {
  /// Errors are equal when their codes are (as Apple's `SKError`).
  public static func == (a: SKError, b: SKError) -> Bool { a.code == b.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }

  /// `SKError.Code`, with Apple's raw values.
  public enum Code: Int, Sendable, Hashable {
    case unknown = 0
    case clientInvalid = 1
    case paymentCancelled = 2
    case paymentInvalid = 3
    case paymentNotAllowed = 4
    case storeProductNotAvailable = 5
    case cloudServicePermissionDenied = 6
    case cloudServiceNetworkConnectionFailed = 7
    case cloudServiceRevoked = 8
    case privacyAcknowledgementRequired = 9
    case unauthorizedRequestData = 10
    case invalidOfferIdentifier = 11
    case invalidSignature = 12
    case missingOfferParams = 13
    case invalidOfferPrice = 14
    case overlayCancelled = 15
    case overlayInvalidConfiguration = 16
    case overlayTimeout = 17
    case ineligibleForOffer = 18
    case unsupportedPlatform = 19
    case overlayPresentedInBackgroundScene = 20
  }

  public let code: Code
  /// The `userInfo` given, its values as text (the localized description is added).
  private let info: [String: String]

  public init(_ code: Code, userInfo: [String: Any] = [:]) {
    self.code = code
    info = userInfo.mapValues { "\($0)" }
  }

  /// The error's `userInfo`, with its localized description.
  public var userInfo: [String: Any] { errorUserInfo }

  /// The `SKError` an `NSError` of domain `SKErrorDomain` stands for (as Apple's bridged error
  /// type's initializer; an unknown code reads as `.unknown`). On Linux an `NSError` does not
  /// cast to `SKError` with `as?`; this is the way back.
  public init(_nsError error: NSError) {
    precondition(error.domain == SKErrorDomain, "SKError(_nsError:): the error's domain is \(error.domain)")
    code = Code(rawValue: error.code) ?? .unknown
    info = error.userInfo.filter { $0.key != NSLocalizedDescriptionKey }.mapValues { "\($0)" }
  }

  /// The error as an `NSError` (`SKErrorDomain`, the code's raw value).
  public var _nsError: NSError { NSError(domain: Self.errorDomain, code: errorCode, userInfo: errorUserInfo) }

  public static let errorDomain = SKErrorDomain
  public var errorCode: Int { code.rawValue }
  public var errorUserInfo: [String: Any] {
    var all: [String: Any] = info
    all[NSLocalizedDescriptionKey] = description
    return all
  }
  public var errorDescription: String? { description }
  public var description: String { "SKError.\(code) (\(code.rawValue))" }

  public static var unknown: Code { .unknown }
  public static var clientInvalid: Code { .clientInvalid }
  public static var paymentCancelled: Code { .paymentCancelled }
  public static var paymentInvalid: Code { .paymentInvalid }
  public static var paymentNotAllowed: Code { .paymentNotAllowed }
  public static var storeProductNotAvailable: Code { .storeProductNotAvailable }
  public static var invalidOfferIdentifier: Code { .invalidOfferIdentifier }
  public static var invalidSignature: Code { .invalidSignature }
  public static var missingOfferParams: Code { .missingOfferParams }
  public static var invalidOfferPrice: Code { .invalidOfferPrice }
  public static var ineligibleForOffer: Code { .ineligibleForOffer }
  public static var unsupportedPlatform: Code { .unsupportedPlatform }
}

extension SKError.Code {
  /// `catch SKError.paymentCancelled` and `case SKError.paymentCancelled` patterns.
  public static func ~= (code: SKError.Code, error: any Error) -> Bool {
    (error as? SKError)?.code == code
  }
}

extension SKError {
  /// The `SKError` a StoreKit 1 payment fails with where StoreKit 2's purchase would have thrown
  /// or failed this way.
  static func purchase(_ failure: PurchaseFailure) -> SKError {
    switch failure {
    case .invalidQuantity: return SKError(.paymentInvalid)
    case .invalidOfferIdentifier: return SKError(.invalidOfferIdentifier)
    case .ineligibleForOffer: return SKError(.ineligibleForOffer)
    case .invalidOfferSignature: return SKError(.invalidSignature)
    case .skError(let code): return SKError(Code(rawValue: code.code) ?? .unknown)
    case .simulated(let error): return simulated(error.name)
    }
  }

  /// A simulated error (`setSimulatedError(_:forAPI:)`) by its case name, in StoreKit 1's codes.
  static func simulated(_ name: String) -> SKError {
    switch name {
    case "userCancelled": return SKError(.paymentCancelled)
    case "invalidQuantity": return SKError(.paymentInvalid)
    case "productUnavailable", "notAvailableInStorefront": return SKError(.storeProductNotAvailable)
    case "purchaseNotAllowed": return SKError(.paymentNotAllowed)
    case "ineligibleForOffer": return SKError(.ineligibleForOffer)
    case "invalidOfferIdentifier": return SKError(.invalidOfferIdentifier)
    case "invalidOfferPrice": return SKError(.invalidOfferPrice)
    case "invalidOfferSignature": return SKError(.invalidSignature)
    case "missingOfferParameters": return SKError(.missingOfferParams)
    case "unsupported": return SKError(.unsupportedPlatform)
    default: return SKError(.unknown)
    }
  }
}
