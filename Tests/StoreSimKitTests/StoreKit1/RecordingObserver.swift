import Foundation
import StoreSim
import StoreSimKit
import StoreSimSync

/// A payment queue observer that records what it is told and finishes only when asked; usable
/// from any task. Each callback asserts it runs on the main actor (it traps otherwise).
final class RecordingObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
  struct Record {
    var updated: [(SKPaymentTransaction, SKPaymentTransactionState)] = []
    var calls: [[String]] = []
    var removed: [SKPaymentTransaction] = []
    var revoked: [[String]] = []
    var storefrontChanges = 0
  }

  private let record = Mutex(Record())
  let finishes: Bool

  init(finishes: Bool = false) {
    self.finishes = finishes
    super.init()
  }

  var updated: [(transaction: SKPaymentTransaction, state: SKPaymentTransactionState)] {
    record.withLock { $0.updated.map { ($0.0, $0.1) } }
  }
  /// `state productID` per transaction, one array per `updatedTransactions` call.
  var calls: [[String]] { record.withLock { $0.calls } }
  var removed: [SKPaymentTransaction] { record.withLock { $0.removed } }
  var revoked: [[String]] { record.withLock { $0.revoked } }
  var storefrontChanges: Int { record.withLock { $0.storefrontChanges } }

  func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
    MainActor.assumeIsolated {}
    record.withLock { r in
      r.updated += transactions.map { ($0, $0.transactionState) }
      r.calls.append(transactions.map { "\($0.transactionState) \($0.payment.productIdentifier)" })
    }
    if finishes {
      for t in transactions where t.transactionState != .purchasing { queue.finishTransaction(t) }
    }
  }

  func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
    MainActor.assumeIsolated {}
    record.withLock { $0.removed += transactions }
  }

  func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
    MainActor.assumeIsolated {}
    record.withLock { $0.revoked.append(productIdentifiers) }
  }

  func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {
    MainActor.assumeIsolated {}
    record.withLock { $0.storefrontChanges += 1 }
  }
}

/// A products request's answer, for tests that need an `SKProduct`.
@MainActor
final class ProductsFetcher: NSObject, @preconcurrency SKProductsRequestDelegate {
  private(set) var products: [SKProduct] = []
  private var request: SKProductsRequest?

  func fetch(_ ids: Set<String>, _ session: SKTestSession) async -> [String: SKProduct] {
    let request = SKProductsRequest(productIdentifiers: ids)
    request.delegate = self
    self.request = request
    request.start()
    await session.waitForTransactionUpdates()
    return Dictionary(uniqueKeysWithValues: products.map { ($0.productIdentifier, $0) })
  }

  func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
    products = response.products
  }
}

/// A receipt refresh's outcome.
@MainActor
final class RefreshDelegate: NSObject, @preconcurrency SKRequestDelegate {
  private(set) var finished = false
  private(set) var error: SKError?

  func requestDidFinish(_ request: SKRequest) { finished = true }
  func request(_ request: SKRequest, didFailWithError error: any Error) { self.error = error as? SKError }
}
