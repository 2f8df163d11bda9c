import Foundation
import StoreSimKit
import StoreSimKitTesting
import StoreSimSync
import Testing

/// A restore written as jinSasaki/InAppPurchase writes it (our own code in its pattern): the
/// observer finishes every restored transaction as it is told of it, and when the restore
/// finishes, reads the restored products from the queue's `transactions`.
final class QueueReadingRestorer: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
  private let restored = Mutex<[String]?>(nil)
  private let finishedAt = Mutex<[Int]>([])

  /// The product ids the restore returned; nil until it finished.
  var result: [String]? { restored.withLock { $0 } }
  /// How many transactions the queue still held each time the observer finished one.
  var queueSizesWhenFinishing: [Int] { finishedAt.withLock { $0 } }

  func restore() {
    SKPaymentQueue.default().restoreCompletedTransactions()
  }

  func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
    for transaction in transactions where transaction.transactionState == .restored {
      queue.finishTransaction(transaction)
      finishedAt.withLock { $0.append(queue.transactions.count) }
    }
  }

  func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
    let ids = queue.transactions.filter { $0.transactionState == .restored }.map(\.payment.productIdentifier)
    restored.withLock { $0 = ids }
  }
}

@Suite("StoreKit 1: finishing takes a transaction off the queue later", .isolatedTestSession)
struct RestoreReadsTheQueueTests {
  @Test func aFinishedTransactionLeavesTheQueueWhenObserversAreToldItWasRemoved() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.buyProduct(identifier: "nonconsumable.car")
    try await session.buyProduct(identifier: "nonconsumable.racecar")
    let restorer = QueueReadingRestorer()
    let recorder = RecordingObserver()
    SKPaymentQueue.default().add(restorer)
    SKPaymentQueue.default().add(recorder)
    restorer.restore()
    await session.waitForTransactionUpdates()
    // finishTransaction returned with the transaction still in the queue...
    #expect(restorer.queueSizesWhenFinishing.allSatisfy { $0 >= 1 })
    // ...so the restore read both products in `paymentQueueRestoreCompletedTransactionsFinished`.
    #expect(restorer.result?.sorted() == ["nonconsumable.car", "nonconsumable.racecar"])
    // Then the queue told observers they were removed, and they left `transactions`.
    #expect(recorder.removed.filter { $0.transactionState == .restored }.count == 2)
    #expect(!SKPaymentQueue.default().transactions.contains { $0.transactionState == .restored })
    SKPaymentQueue.default().remove(restorer)
    SKPaymentQueue.default().remove(recorder)
  }
}
