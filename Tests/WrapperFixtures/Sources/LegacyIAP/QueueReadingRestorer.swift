import StoreKit

/// A restore written in jinSasaki/InAppPurchase's pattern (our own code): the observer
/// finishes every purchased, failed or restored transaction as soon as it is told of it, and
/// when the restore has finished, reads the restored products from the queue's `transactions`
/// (on a device, a finished transaction stays there until observers are told it was removed).
public final class QueueReadingRestorer: NSObject {
  private let paymentQueue: SKPaymentQueue
  private var restoreHandlers: [(Result<[String], NSError>) -> Void] = []
  /// How many transactions the queue still held each time the observer finished a restored one.
  public private(set) var queueSizesWhenFinishing: [Int] = []

  public init(paymentQueue: SKPaymentQueue = SKPaymentQueue.default()) {
    self.paymentQueue = paymentQueue
    super.init()
    paymentQueue.add(self)
  }

  /// Stops observing the queue.
  public func stop() {
    paymentQueue.remove(self)
  }

  /// Restores; the handler gets the identifiers of the restored products.
  public func restore(handler: @escaping (Result<[String], NSError>) -> Void) {
    restoreHandlers.append(handler)
    paymentQueue.restoreCompletedTransactions()
  }

  private func callRestoreHandlers(with result: Result<[String], NSError>) {
    let handlers = restoreHandlers
    restoreHandlers = []
    for handler in handlers { handler(result) }
  }
}

extension QueueReadingRestorer: SKPaymentTransactionObserver {
  public func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
    for transaction in transactions {
      switch transaction.transactionState {
      case .purchasing, .deferred:
        continue
      case .purchased, .failed:
        queue.finishTransaction(transaction)
      case .restored:
        queue.finishTransaction(transaction)
        queueSizesWhenFinishing.append(queue.transactions.count)
      @unknown default:
        continue
      }
    }
  }

  public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
    let restored = queue.transactions.filter { $0.transactionState == .restored }
    callRestoreHandlers(with: .success(restored.map(\.payment.productIdentifier)))
  }

  public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: Error) {
    callRestoreHandlers(with: .failure(error as NSError))
  }
}
