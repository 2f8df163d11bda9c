import StoreKit

/// What the controller needs of a payment queue, so tests can give it another (the shape of
/// SwiftyStoreKit's `PaymentQueue`); StoreKit's queue conforms as it is.
public protocol PaymentQueue: AnyObject {
  func add(_ observer: SKPaymentTransactionObserver)
  func remove(_ observer: SKPaymentTransactionObserver)
  func add(_ payment: SKPayment)
  func finishTransaction(_ transaction: SKPaymentTransaction)
}

extension SKPaymentQueue: PaymentQueue {}

/// A StoreKit 1 controller in the shape of SwiftyStoreKit's, compiled in the Swift 6 language
/// mode: a plain `NSObject` observer (no actor), made from nonisolated code, that adds itself
/// to the queue in `init` and removes itself in `deinit`; the queue calls it on the main thread.
public final class PaymentQueueController: NSObject, SKPaymentTransactionObserver {
  private let paymentQueue: PaymentQueue
  /// The purchased product identifiers, in the order the queue reported them.
  public private(set) var purchased: [String] = []
  public var onPurchase: ((String) -> Void)?

  public init(paymentQueue: PaymentQueue = SKPaymentQueue.default()) {
    self.paymentQueue = paymentQueue
    super.init()
    paymentQueue.add(self)
  }

  deinit { paymentQueue.remove(self) }

  public func buy(_ productIdentifier: String) {
    let payment = SKMutablePayment()
    payment.productIdentifier = productIdentifier
    paymentQueue.add(payment)
  }

  public func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
    for transaction in transactions where transaction.transactionState == .purchased {
      purchased.append(transaction.payment.productIdentifier)
      paymentQueue.finishTransaction(transaction)
      onPurchase?(transaction.payment.productIdentifier)
    }
  }
}
