import Foundation
import StoreSim

// Test controls for StoreKit 1. Every control of `SKTestSession` works for StoreKit 1 too (Ask to
// Buy approval, interrupted purchases and `resolveIssueForTransaction`, failing transactions,
// simulated errors, refunds, `advance`): when it returns, payment queue observers have been
// told what it caused.
extension SKTestSession {
  /// The app receipt file, what `Bundle.main.appStoreReceiptURL` is on a device: the compact
  /// JSON of the `verifyReceipt` response's `receipt` object, whose base64 is the
  /// `receipt-data` an app sends to its server. Written when first asked for while the receipt
  /// is present, and rewritten after every change to the store.
  ///
  /// Foundation declares `Bundle.appStoreReceiptURL` (nil off Apple platforms), so StoreSimKit
  /// cannot answer it: app code that reads the receipt takes its URL from outside in tests, as
  /// with the clock (`Store(receiptURL: { Bundle.main.appStoreReceiptURL })` in the app,
  /// `{ session.appStoreReceiptURL }` in tests).
  public var appStoreReceiptURL: URL { core.paymentQueue.receipt.url(core) }

  /// Not in StoreKitTest: whether the device has an app receipt (true at first). False removes
  /// the file, as on a device before any purchase; `SKReceiptRefreshRequest` brings it back.
  public var appReceiptIsPresent: Bool {
    get { core.paymentQueue.receipt.isPresent }
    set { core.paymentQueue.receipt.setPresent(newValue, core) }
  }

  /// The error purchases fail with while `failTransactionsEnabled` is set: one of `.unknown`,
  /// `.invalidOfferIdentifier`, `.invalidSignature`, `.missingOfferParams`, `.invalidOfferPrice`
  /// (another code is kept as `.unknown`). StoreKit 2 purchases throw `StoreKitError.unknown`.
  public var failureError: SKError.Code {
    get { SKError.Code(rawValue: core[setting: \.failureError].code) ?? .unknown }
    set { core[setting: \.failureError] = SKErrorCode.allCases.first { $0.code == newValue.rawValue } ?? .unknown }
  }

  /// Not in StoreKitTest: whether the customer may pay (`SKPaymentQueue.canMakePayments()` and
  /// `AppStore.canMakePayments`); while false, StoreKit 1 payments fail with
  /// `SKError.paymentNotAllowed`. True at first.
  public var canMakePayments: Bool {
    get { core.paymentQueue.paymentsAllowed }
    set { core.paymentQueue.paymentsAllowed = newValue }
  }

  /// Not in StoreKitTest: the customer starts buying a product on the App Store (a promoted
  /// In-App Purchase). StoreKit 2 apps get it on `PurchaseIntent.intents`. StoreKit 1 observers
  /// are asked `paymentQueue(_:shouldAddStorePayment:for:)`; if any answers true the payment is
  /// added and runs as one the app added. Nothing happens until an observer is added (as the
  /// App Store waits for the app to launch).
  public func simulatePromotedPurchase(productIdentifier: String) throws {
    let product = try core.read { store -> SKProduct in
      guard let p = store.configuration.products.first(where: { $0.id == productIdentifier }) else {
        throw SKTestError(.invalidProductIdentifier, "no product '\(productIdentifier)' in the configuration")
      }
      return SKProduct(p, store: store)
    }
    core.purchaseIntent(productIdentifier)
    core.paymentQueue.state.withLock { $0.outbox.append(.promoted(SKPayment(product: product), product)) }
    core.paymentQueue.deliverNow()
  }
}
