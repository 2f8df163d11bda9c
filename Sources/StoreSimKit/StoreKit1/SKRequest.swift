import Foundation
import StoreSim
import StoreSimSync

/// What a request tells its delegate when it ends, as `SKRequestDelegate` (both optional).
public protocol SKRequestDelegate: NSObjectProtocol {
  func requestDidFinish(_ request: SKRequest)
  func request(_ request: SKRequest, didFailWithError error: any Error)
}

extension SKRequestDelegate {
  public func requestDidFinish(_ request: SKRequest) {}
  public func request(_ request: SKRequest, didFailWithError error: any Error) {}
}

// Open, as in StoreKit (an app's tests subclass a request to answer it themselves); unchecked
// only because of that: its state lives in a Mutex.
/// A request to the App Store, as `SKRequest`: `start()` sends it to the session in reach; the
/// answer comes later, on the main queue, like the payment queue's callbacks (see
/// `SKPaymentQueue`). As on a device, a started request is kept until it answers, whoever holds
/// it: a caller that starts one and keeps no reference still hears back (its delegate, held
/// weakly, must live; rule a-started-request-answers-without-being-kept). `cancel()` stops an
/// answer that has not come yet.
open class SKRequest: NSObject, @unchecked Sendable {
  private let session = Mutex<(core: SessionCore?, cancelled: Bool)>((nil, false))

  /// Sends the request to the session in reach (with none, it fails with `SKError.unknown`
  /// and the hint of how to create one is printed once).
  open func start() {
    let core = SessionResolver.resolveOrWarn("\(type(of: self)).start()")
    session.withLock { $0 = (core, false) }
    if let core {
      core.paymentQueue.enqueue(self)
    } else {
      DispatchQueue.main.async { self.fail(SKError(.unknown)) }
    }
  }

  open func cancel() { session.withLock { $0.cancelled = true } }

  /// Answers (on the main queue), unless cancelled.
  @MainActor func deliver() {
    let (core, cancelled) = session.withLock { $0 }
    guard let core, !cancelled else { return }
    answer(core)
  }

  @MainActor func answer(_ core: SessionCore) {}
  @MainActor func fail(_ error: SKError) {}
}

/// What a products request tells its delegate, as `SKProductsRequestDelegate`.
public protocol SKProductsRequestDelegate: SKRequestDelegate {
  func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse)
}

// Restates its superclass's unchecked conformance (a Swift rule); its delegate is the Mutex's
// and called only on the main actor (`AppObjectReference`).
/// A request for products by identifier, as `SKProductsRequest`. The delegate gets
/// `productsRequest(_:didReceive:)` then `requestDidFinish(_:)`, or `request(_:didFailWithError:)`
/// alone (a simulated `.loadProducts` error, as an `SKError`).
open class SKProductsRequest: SKRequest, @unchecked Sendable {
  private let delegateReference = Mutex<AppObjectReference<any SKProductsRequestDelegate>?>(nil)
  let identifiers: Set<String>

  /// Held weakly, as in StoreKit.
  open var delegate: (any SKProductsRequestDelegate)? {
    get { delegateReference.withLock { $0?.handedBack } }
    set { delegateReference.withLock { $0 = newValue.map { AppObjectReference($0, weakly: true) } } }
  }

  /// The delegate, to be called.
  @MainActor private var callee: (any SKProductsRequestDelegate)? { delegateReference.withLock { $0 }?.onMainActor }

  public init(productIdentifiers: Set<String>) {
    identifiers = productIdentifiers
    super.init()
  }

  /// A request for no products, as `NSObject`'s `init()` makes one in StoreKit: for a subclass
  /// (its `start()` answering the delegate itself).
  public override init() {
    identifiers = []
    super.init()
  }

  @MainActor override func answer(_ core: SessionCore) {
    guard let delegate = callee else { return }
    let answer = core.read { store -> Result<SKProductsResponse, SKError> in
      if let error = store.settings.simulatedError(forAPI: .loadProducts) { return .failure(.simulated(error.name)) }
      let found = store.configuration.products.filter { identifiers.contains($0.id) }.sorted { $0.id < $1.id }
      let invalid = identifiers.subtracting(found.map(\.id)).sorted()
      return .success(
        SKProductsResponse(products: found.map { SKProduct($0, store: store) }, invalidProductIdentifiers: invalid))
    }
    switch answer {
    case .success(let response):
      delegate.productsRequest(self, didReceive: response)
      delegate.requestDidFinish(self)
    case .failure(let error):
      delegate.request(self, didFailWithError: error)
    }
  }

  @MainActor override func fail(_ error: SKError) { callee?.request(self, didFailWithError: error) }
}

/// The answer to a products request, as `SKProductsResponse`: every requested identifier is in
/// exactly one of the two lists, each sorted by identifier (StoreKit promises no order).
// Open, as in StoreKit (an app's tests subclass it to answer a request themselves); unchecked
// only because of that: its lists are set once, in an initializer.
open class SKProductsResponse: NSObject, @unchecked Sendable {
  private let lists: (products: [SKProduct], invalidProductIdentifiers: [String])

  open var products: [SKProduct] { lists.products }
  open var invalidProductIdentifiers: [String] { lists.invalidProductIdentifiers }

  /// An empty answer, as `NSObject`'s `init()` makes one in StoreKit: for a subclass that
  /// overrides the lists.
  public override init() {
    lists = ([], [])
    super.init()
  }

  init(products: [SKProduct], invalidProductIdentifiers: [String]) {
    lists = (products, invalidProductIdentifiers)
    super.init()
  }
}

// Restates its superclass's unchecked conformance (a Swift rule); its delegate is the Mutex's
// and called only on the main actor (`AppObjectReference`), and the receipt properties (`Any`, StoreKit's type) are never changed.
/// A request for a new app receipt, as `SKReceiptRefreshRequest`: the session writes the
/// receipt file (`SKTestSession.appStoreReceiptURL`) and the delegate gets `requestDidFinish(_:)`;
/// a simulated `.appStoreSync` error (the App Store sign-in the refresh needs) fails it instead,
/// `userCancelled` as `SKError.paymentCancelled`. The receipt properties are kept, not used.
open class SKReceiptRefreshRequest: SKRequest, @unchecked Sendable {
  private let delegateReference = Mutex<AppObjectReference<any SKRequestDelegate>?>(nil)
  private let properties: [String: Any]?
  open var receiptProperties: [String: Any]? { properties }

  /// Held weakly, as in StoreKit.
  open var delegate: (any SKRequestDelegate)? {
    get { delegateReference.withLock { $0?.handedBack } }
    set { delegateReference.withLock { $0 = newValue.map { AppObjectReference($0, weakly: true) } } }
  }

  /// The delegate, to be called.
  @MainActor private var callee: (any SKRequestDelegate)? { delegateReference.withLock { $0 }?.onMainActor }

  public init(receiptProperties properties: [String: Any]?) {
    self.properties = properties
    super.init()
  }

  /// A request without receipt properties.
  public override init() {
    properties = nil
    super.init()
  }

  @MainActor override func answer(_ core: SessionCore) {
    if let error = core.read({ $0.settings.simulatedError(forAPI: .appStoreSync) }) {
      callee?.request(self, didFailWithError: SKError.simulated(error.name))
      return
    }
    core.paymentQueue.receipt.refresh(core)
    callee?.requestDidFinish(self)
  }

  @MainActor override func fail(_ error: SKError) { callee?.request(self, didFailWithError: error) }
}
