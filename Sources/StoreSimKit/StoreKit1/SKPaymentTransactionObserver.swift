import Foundation

/// What the payment queue tells the app, as StoreKit 1's `SKPaymentTransactionObserver`.
///
/// The optional methods of StoreKit's protocol have default implementations here (doing
/// nothing; `shouldAddStorePayment` answers true, as an observer without it does in StoreKit).
/// StoreSimKit calls observers on the main queue (the main actor), one call at a time, never inside the
/// `SKPaymentQueue` call that caused it; see `SKPaymentQueue` for when.
public protocol SKPaymentTransactionObserver: NSObjectProtocol {
  func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction])
  func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction])
  func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue)
  func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error)
  func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool
  func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue)
  func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String])
  func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload])
}

extension SKPaymentTransactionObserver {
  public func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {}
  public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {}
  public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {}
  public func paymentQueue(
    _ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct
  ) -> Bool { true }
  public func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {}
  public func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {}
  public func paymentQueue(
    _ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]
  ) {}
}
