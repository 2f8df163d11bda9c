import Foundation
import StoreSim

// StoreKit 1 API that apps call and that has nothing to simulate beyond its shape: it exists so
// that code written for StoreKit compiles and runs unchanged (docs/library-api.md lists what
// does not exist).

/// What the payment queue asks its delegate, as StoreKit's `SKPaymentQueueDelegate` (both
/// optional). StoreSimKit never asks: storefronts change only by the test's hand, and price
/// consent is the test's to give (`SKTestSession.consentToPriceIncreaseForTransaction`).
public protocol SKPaymentQueueDelegate: NSObjectProtocol {
  func paymentQueue(
    _ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction,
    in newStorefront: SKStorefront
  ) -> Bool
  func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool
}

extension SKPaymentQueueDelegate {
  public func paymentQueue(
    _ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction,
    in newStorefront: SKStorefront
  ) -> Bool { true }
  public func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool { true }
}

/// The rating prompt, as StoreKit's `SKStoreReviewController`: the system decides whether to show
/// it, and in tests it never shows, so the calls do nothing.
open class SKStoreReviewController: NSObject, @unchecked Sendable {
  open class func requestReview() {}
  /// The scene (`UIWindowScene`) is not used.
  open class func requestReview<Scene>(in windowScene: Scene) {}
}

/// Keys of `SKReceiptRefreshRequest(receiptProperties:)`, as StoreKit's (the sandbox's test
/// receipts; kept by the request, not used).
public let SKReceiptPropertyIsExpired = "expired"
public let SKReceiptPropertyIsRevoked = "revoked"
public let SKReceiptPropertyIsVolumePurchase = "vpp"

/// The domain of the test controls' errors (`SKTestError`), as StoreKitTest's `SKTestErrorDomain`.
public let SKTestErrorDomain = "SKTestErrorDomain"

extension SKTestSession {
  /// StoreKitTest's first form of `buyProduct`: a purchase made outside the app (StoreKit 1
  /// observers are told of it before it returns; StoreKit 2 sees it on `Transaction.updates`).
  public func buyProduct(productIdentifier: String) throws {
    _ = try buy(productIdentifier, options: [], customer: core.customer)
  }
}
