// The StoreKit 1 proof's app code: a store written the way StoreKit 1 stores usually are (our
// own code): one object is the products request's delegate and the payment queue's observer,
// added at launch; it unlocks on `.purchased` and `.restored` and then finishes, shows a
// waiting state for `.deferred`, shows errors of failed payments except a cancel, and
// restores. Only its import differs from the app's (`import StoreKit`).
//
// It is `@MainActor` with `@preconcurrency` conformances, as Swift 6 apps write StoreKit 1
// observers: a callback off the main thread would trap, so every test also checks that
// StoreSimKit calls observers on the main thread.
import Foundation
import StoreSimKit

@MainActor
final class LegacyStore: NSObject {
  static let fuelPerPurchase = ["consumable.fuel.octane87": 1, "consumable.fuel.octane89": 1]

  private(set) var products: [String: SKProduct] = [:]
  private(set) var invalidProductIdentifiers: [String] = []
  private(set) var productsRequestError: SKError?
  private(set) var productsRequestFinished = false
  private(set) var unlocked: Set<String> = []
  private(set) var fuel = 0
  private(set) var waitingForApproval: Set<String> = []
  /// The last payment error shown to the customer (a cancel is not shown).
  private(set) var shownError: SKError?
  private(set) var cancelledPurchases = 0
  private(set) var restoreFinished = false
  private(set) var restoreError: SKError?
  private(set) var revokedProducts: [String] = []
  private(set) var storefrontChanges = 0
  /// `state productID` for each transaction the observer was told of, in order.
  private(set) var log: [String] = []
  /// Every transaction object the observer saw, in order.
  private(set) var seen: [SKPaymentTransaction] = []
  private(set) var removed: [SKPaymentTransaction] = []
  /// Answers `shouldAddStorePayment`.
  var acceptsPromotedPurchases = true
  /// Called after every callback (XCTest's expectations use it).
  var onChange: (() -> Void)?

  private var productsRequest: SKProductsRequest?

  /// Adds itself to the payment queue, as an app does at launch.
  override init() {
    super.init()
    SKPaymentQueue.default().add(self)
  }

  func stopObserving() { SKPaymentQueue.default().remove(self) }

  func requestProducts(_ identifiers: Set<String>) {
    let request = SKProductsRequest(productIdentifiers: identifiers)
    request.delegate = self
    productsRequest = request
    request.start()
  }

  /// Buys a product the products request returned.
  func buy(_ productIdentifier: String, quantity: Int = 1, applicationUsername: String? = nil) {
    guard SKPaymentQueue.canMakePayments(), let product = products[productIdentifier] else { return }
    let payment = SKMutablePayment(product: product)
    payment.quantity = quantity
    payment.applicationUsername = applicationUsername
    SKPaymentQueue.default().add(payment)
  }

  func restorePurchases() {
    restoreFinished = false
    SKPaymentQueue.default().restoreCompletedTransactions()
  }

  private func unlock(_ transaction: SKPaymentTransaction) {
    let id = transaction.payment.productIdentifier
    if let perPurchase = Self.fuelPerPurchase[id] {
      if transaction.transactionState == .purchased { fuel += perPurchase * transaction.payment.quantity }
    } else {
      unlocked.insert(id)
    }
    waitingForApproval.remove(id)
  }
}

extension LegacyStore: @preconcurrency SKProductsRequestDelegate {
  func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
    for product in response.products { products[product.productIdentifier] = product }
    invalidProductIdentifiers = response.invalidProductIdentifiers
    onChange?()
  }

  func requestDidFinish(_ request: SKRequest) {
    productsRequestFinished = true
    onChange?()
  }

  func request(_ request: SKRequest, didFailWithError error: any Error) {
    productsRequestError = error as? SKError
    onChange?()
  }
}

extension LegacyStore: @preconcurrency SKPaymentTransactionObserver {
  func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
    for transaction in transactions {
      seen.append(transaction)
      log.append("\(transaction.transactionState) \(transaction.payment.productIdentifier)")
      switch transaction.transactionState {
      case .purchasing:
        break
      case .deferred:
        waitingForApproval.insert(transaction.payment.productIdentifier)
      case .purchased, .restored:
        unlock(transaction)
        queue.finishTransaction(transaction)
      case .failed:
        if let error = transaction.error as? SKError, error.code != .paymentCancelled {
          shownError = error
        } else {
          cancelledPurchases += 1
        }
        queue.finishTransaction(transaction)
      }
    }
    onChange?()
  }

  func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
    removed += transactions
    onChange?()
  }

  func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
    restoreFinished = true
    onChange?()
  }

  func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
    restoreError = error as? SKError
    onChange?()
  }

  func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
    revokedProducts += productIdentifiers
    unlocked.subtract(productIdentifiers)
    onChange?()
  }

  func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
    products[product.productIdentifier] = product
    return acceptsPromotedPurchases
  }

  func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {
    storefrontChanges += 1
    onChange?()
  }
}
