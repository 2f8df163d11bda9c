import StoreKit

/// What a purchase or restore ended with.
public enum PurchaseOutcome: Equatable {
  case purchased(productID: String, transactionID: String)
  case deferred(productID: String)
  case failed(productID: String, code: SKError.Code)
}

/// A StoreKit 1 helper in the shape of the open-source ones apps have shipped for years: one
/// shared instance made at launch, the process's payment queue kept `unowned` (it lives as
/// long as the process), the observer added once in `init`, product requests started and not
/// kept (the helper is their delegate and finds the caller's completion by the request), and
/// errors passed on as `NSError` to the app, which turns them back into `SKError`.
public final class IAPHelper: NSObject {
  public static let shared = IAPHelper()

  unowned let paymentQueue: SKPaymentQueue

  private var productCompletions: [ObjectIdentifier: (Result<[SKProduct], NSError>) -> Void] = [:]
  private var purchaseCompletions: [String: (PurchaseOutcome) -> Void] = [:]
  private var restoreCompletion: (([String], NSError?) -> Void)?
  private var restored: [String] = []
  /// Downloads the queue reported, by content identifier.
  public private(set) var downloadStates: [String: SKDownloadState] = [:]
  /// Product identifiers the app unlocked, in order.
  public private(set) var unlocked: [String] = []

  public init(paymentQueue: SKPaymentQueue = SKPaymentQueue.default()) {
    self.paymentQueue = paymentQueue
    super.init()
    paymentQueue.add(self)
  }

  public var canMakePayments: Bool { SKPaymentQueue.canMakePayments() }

  /// Asks the App Store for products; the request is not kept by anyone but StoreKit.
  public func retrieveProducts(_ identifiers: Set<String>, completion: @escaping (Result<[SKProduct], NSError>) -> Void)
  {
    let request = SKProductsRequest(productIdentifiers: identifiers)
    request.delegate = self
    productCompletions[ObjectIdentifier(request)] = completion
    request.start()
  }

  public func purchase(_ product: SKProduct, quantity: Int = 1, completion: @escaping (PurchaseOutcome) -> Void) {
    let payment = SKMutablePayment(product: product)
    payment.quantity = quantity
    purchaseCompletions[product.productIdentifier] = completion
    paymentQueue.add(payment)
  }

  public func restorePurchases(completion: @escaping ([String], NSError?) -> Void) {
    restored = []
    restoreCompletion = completion
    paymentQueue.restoreCompletedTransactions()
  }

  /// What the app shows for an error: the `SKError` behind an `NSError` it was handed.
  public static func skError(from error: NSError) -> SKError? {
    error.domain == SKErrorDomain ? SKError(_nsError: error) : nil
  }

  private func finish(_ transaction: SKPaymentTransaction) {
    if !transaction.downloads.isEmpty {
      paymentQueue.start(transaction.downloads)
      return
    }
    paymentQueue.finishTransaction(transaction)
  }
}

extension IAPHelper: SKProductsRequestDelegate {
  public func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
    productCompletions.removeValue(forKey: ObjectIdentifier(request))?(.success(response.products))
  }

  public func request(_ request: SKRequest, didFailWithError error: Error) {
    productCompletions.removeValue(forKey: ObjectIdentifier(request))?(.failure(error as NSError))
  }
}

extension IAPHelper: SKPaymentTransactionObserver {
  public func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
    for transaction in transactions {
      let productID = transaction.payment.productIdentifier
      switch transaction.transactionState {
      case .purchasing:
        break
      case .purchased:
        unlocked.append(productID)
        purchaseCompletions.removeValue(forKey: productID)?(
          .purchased(productID: productID, transactionID: transaction.transactionIdentifier ?? ""))
        finish(transaction)
      case .restored:
        restored.append(productID)
        finish(transaction)
      case .deferred:
        purchaseCompletions.removeValue(forKey: productID)?(.deferred(productID: productID))
      case .failed:
        let nsError = (transaction.error as NSError?) ?? NSError(domain: SKErrorDomain, code: 0)
        let code = IAPHelper.skError(from: nsError)?.code ?? .unknown
        purchaseCompletions.removeValue(forKey: productID)?(.failed(productID: productID, code: code))
        queue.finishTransaction(transaction)
      @unknown default:
        break
      }
    }
  }

  public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
    restoreCompletion?(restored, nil)
    restoreCompletion = nil
  }

  public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: Error) {
    restoreCompletion?(restored, error as NSError)
    restoreCompletion = nil
  }

  public func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {
    for download in downloads {
      downloadStates[download.contentIdentifier] = download.downloadState
      if download.downloadState == .finished || download.downloadState == .cancelled {
        queue.finishTransaction(download.transaction)
      }
    }
  }
}
