import Foundation
import StoreSim

/// A request to buy a product, as StoreKit 1's `SKPayment`. `SKPaymentQueue.add(_:)` queues a
/// copy, so changing an `SKMutablePayment` afterwards does not change the queued purchase.
public class SKPayment: NSObject, @unchecked Sendable {
  // Written only through `SKMutablePayment` (whose instances the queue never keeps).
  var _productIdentifier: String
  var _quantity = 1
  var _applicationUsername: String?
  var _simulatesAskToBuyInSandbox = false
  var _paymentDiscount: SKPaymentDiscount?
  var _requestData: Data?

  public var productIdentifier: String { _productIdentifier }
  /// 1...10; `add(_:)` traps on 0 or less, a payment of more than 10 fails with `paymentInvalid`.
  public var quantity: Int { _quantity }
  /// A UUID string here becomes the transaction's `appAccountToken` (StoreKit 2 and the server
  /// see it); any other string stays on the payment only.
  public var applicationUsername: String? { _applicationUsername }
  /// Sandbox only, as in StoreKit: no effect in a session (use `SKTestSession.askToBuyEnabled`).
  public var simulatesAskToBuyInSandbox: Bool { _simulatesAskToBuyInSandbox }
  /// A promotional offer; its signature is not checked (as `promotionalOffer` in StoreKit 2).
  public var paymentDiscount: SKPaymentDiscount? { _paymentDiscount }
  public var requestData: Data? { _requestData }

  /// A payment for a product an `SKProductsRequest` returned.
  public convenience init(product: SKProduct) {
    self.init(productIdentifier: product.productIdentifier)
  }

  init(productIdentifier: String) {
    _productIdentifier = productIdentifier
    super.init()
  }

  /// Deprecated in StoreKit; prefer `SKPayment(product:)`.
  public class func payment(withProductIdentifier identifier: String) -> Any {
    SKPayment(productIdentifier: identifier)
  }

  /// An immutable copy (what the queue keeps).
  func frozen() -> SKPayment {
    let copy = SKPayment(productIdentifier: _productIdentifier)
    copy._quantity = _quantity
    copy._applicationUsername = _applicationUsername
    copy._simulatesAskToBuyInSandbox = _simulatesAskToBuyInSandbox
    copy._paymentDiscount = _paymentDiscount
    copy._requestData = _requestData
    return copy
  }

  public override var description: String { "SKPayment(\(productIdentifier), quantity \(quantity))" }
}

/// A payment whose fields the app sets, as `SKMutablePayment`.
public final class SKMutablePayment: SKPayment, @unchecked Sendable {
  /// An empty payment; set `productIdentifier` before adding it. `SKMutablePayment(product:)`
  /// is inherited.
  public override init(productIdentifier: String = "") { super.init(productIdentifier: productIdentifier) }

  public override var productIdentifier: String {
    get { _productIdentifier }
    set { _productIdentifier = newValue }
  }
  public override var quantity: Int {
    get { _quantity }
    set { _quantity = newValue }
  }
  public override var applicationUsername: String? {
    get { _applicationUsername }
    set { _applicationUsername = newValue }
  }
  public override var simulatesAskToBuyInSandbox: Bool {
    get { _simulatesAskToBuyInSandbox }
    set { _simulatesAskToBuyInSandbox = newValue }
  }
  public override var paymentDiscount: SKPaymentDiscount? {
    get { _paymentDiscount }
    set { _paymentDiscount = newValue }
  }
  public override var requestData: Data? {
    get { _requestData }
    set { _requestData = newValue }
  }
}

/// A signed promotional offer for a payment, as `SKPaymentDiscount` (the signature is not checked).
public final class SKPaymentDiscount: NSObject, @unchecked Sendable {
  public let identifier: String
  public let keyIdentifier: String
  public let nonce: UUID
  public let signature: String
  public let timestamp: NSNumber

  public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {
    self.identifier = identifier
    self.keyIdentifier = keyIdentifier
    self.nonce = nonce
    self.signature = signature
    self.timestamp = timestamp
    super.init()
  }
}

/// `SKPaymentTransactionState`, with Apple's raw values.
public enum SKPaymentTransactionState: Int, Sendable, Hashable {
  case purchasing = 0
  case purchased = 1
  case failed = 2
  case restored = 3
  case deferred = 4
}

/// One entry of the payment queue, as `SKPaymentTransaction`. The same object moves from
/// `purchasing` to its end state; its fields change only when the queue tells its observers.
public final class SKPaymentTransaction: NSObject, @unchecked Sendable {
  struct Fields {
    var state: SKPaymentTransactionState
    var identifier: String?
    var date: Date?
    var original: SKPaymentTransaction?
    var error: SKError?
    /// The ledger transaction this entry stands for (purchased entries); finishing it finishes that.
    var ledgerID: TransactionID?
    /// Whether `finishTransaction` also finishes the ledger transaction (it was unfinished when
    /// this entry was made), and finishing it in StoreKit 2 removes this entry.
    var finishesLedger = false
  }

  public let payment: SKPayment
  let fields: Mutex<Fields>

  init(payment: SKPayment, state: SKPaymentTransactionState) {
    self.payment = payment
    fields = Mutex(Fields(state: state))
    super.init()
  }

  /// A purchased view of a ledger transaction (`original` of renewals and restored transactions).
  convenience init(ledger t: StoreSim.Transaction) {
    let payment = SKPayment(productIdentifier: t.productID)
    payment._quantity = t.purchasedQuantity
    payment._applicationUsername = t.appAccountToken?.uuidString
    self.init(payment: payment, state: .purchased)
    fields.withLock {
      $0.identifier = String(t.id)
      $0.date = t.purchaseDate
      $0.ledgerID = t.id
    }
  }

  public var transactionState: SKPaymentTransactionState { fields.withLock { $0.state } }
  /// Set in `purchased` and `restored` only.
  public var transactionIdentifier: String? { fields.withLock { $0.identifier } }
  /// Set in `purchased` and `restored` only.
  public var transactionDate: Date? { fields.withLock { $0.date } }
  /// The transaction a `restored` one restores, or the first of a renewed subscription.
  public var original: SKPaymentTransaction? { fields.withLock { $0.original } }
  /// Set in `failed` only.
  public var error: (any Error)? { fields.withLock { $0.error } }
  /// Hosted content is not simulated: always empty.
  public var downloads: [Any] { [] }

  public override var description: String {
    "SKPaymentTransaction(\(payment.productIdentifier), \(transactionState), \(transactionIdentifier ?? "no id"))"
  }
}

/// The App Store storefront, as `SKStorefront`.
public final class SKStorefront: NSObject, @unchecked Sendable {
  /// ISO 3166-1 alpha-3 code.
  public let countryCode: String
  public let identifier: String

  init(countryCode: String, identifier: String) {
    self.countryCode = countryCode
    self.identifier = identifier
    super.init()
  }

  public override func isEqual(_ object: Any?) -> Bool {
    (object as? SKStorefront).map { $0.countryCode == countryCode && $0.identifier == identifier } ?? false
  }

  public override var hash: Int { identifier.hashValue }
}
