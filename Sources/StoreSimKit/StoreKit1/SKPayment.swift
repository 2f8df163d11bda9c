import Foundation
import StoreSim
import StoreSimSync

// Open, as in StoreKit (where it comes from Objective-C); unchecked only because of that: its
// fields live in a Mutex.
/// A request to buy a product, as StoreKit 1's `SKPayment`. `SKPaymentQueue.add(_:)` queues a
/// copy, so changing an `SKMutablePayment` afterwards does not change the queued purchase.
open class SKPayment: NSObject, @unchecked Sendable {
  struct Fields: Sendable {
    var productIdentifier: String
    var quantity = 1
    var applicationUsername: String?
    var simulatesAskToBuyInSandbox = false
    var paymentDiscount: SKPaymentDiscount?
    var requestData: Data?
  }

  /// Written only through `SKMutablePayment` (whose instances the queue never keeps), and
  /// while a payment is made (`init(fields:)`).
  let fields: Mutex<Fields>

  open var productIdentifier: String { fields.withLock { $0.productIdentifier } }
  /// 1...10; `add(_:)` traps on 0 or less, a payment of more than 10 fails with `paymentInvalid`.
  open var quantity: Int { fields.withLock { $0.quantity } }
  /// A UUID string here becomes the transaction's `appAccountToken` (StoreKit 2 and the server
  /// see it); any other string stays on the payment only.
  open var applicationUsername: String? { fields.withLock { $0.applicationUsername } }
  /// Sandbox only, as in StoreKit: no effect in a session (use `SKTestSession.askToBuyEnabled`).
  open var simulatesAskToBuyInSandbox: Bool { fields.withLock { $0.simulatesAskToBuyInSandbox } }
  /// A promotional offer; its signature is not checked (as `promotionalOffer` in StoreKit 2).
  open var paymentDiscount: SKPaymentDiscount? { fields.withLock { $0.paymentDiscount } }
  open var requestData: Data? { fields.withLock { $0.requestData } }

  /// A payment for a product an `SKProductsRequest` returned.
  public convenience init(product: SKProduct) {
    self.init(productIdentifier: product.productIdentifier)
  }

  convenience init(productIdentifier: String) {
    self.init(fields: Fields(productIdentifier: productIdentifier))
  }

  /// A payment of no product (identifier `""`), as `NSObject`'s `init()` makes one in StoreKit:
  /// for a subclass that overrides the properties it needs. The only designated initializer,
  /// as in StoreKit, so that a subclass that declares none inherits `init(product:)` too.
  public override init() {
    fields = Mutex(Fields(productIdentifier: ""))
    super.init()
  }

  convenience init(fields: Fields) {
    self.init()
    self.fields.withLock { $0 = fields }
  }

  /// Deprecated in StoreKit; prefer `SKPayment(product:)`.
  open class func payment(withProductIdentifier identifier: String) -> Any {
    SKPayment(productIdentifier: identifier)
  }

  /// An immutable copy (what the queue keeps).
  func frozen() -> SKPayment {
    SKPayment(fields: fields.current)
  }

  open override var description: String { "SKPayment(\(productIdentifier), quantity \(quantity))" }
}

// Restates its superclass's unchecked conformance (a Swift rule); its fields are the Mutex's.
/// A payment whose fields the app sets, as `SKMutablePayment`.
open class SKMutablePayment: SKPayment, @unchecked Sendable {
  /// An empty payment; set `productIdentifier` before adding it. `SKMutablePayment(product:)`
  /// is inherited.
  public override init() { super.init() }

  /// A payment of this product identifier (storesim's shorthand for `init()` and setting it).
  public convenience init(productIdentifier: String) {
    self.init()
    self.productIdentifier = productIdentifier
  }

  open override var productIdentifier: String {
    get { fields.withLock { $0.productIdentifier } }
    set { fields.withLock { $0.productIdentifier = newValue } }
  }
  open override var quantity: Int {
    get { fields.withLock { $0.quantity } }
    set { fields.withLock { $0.quantity = newValue } }
  }
  open override var applicationUsername: String? {
    get { fields.withLock { $0.applicationUsername } }
    set { fields.withLock { $0.applicationUsername = newValue } }
  }
  open override var simulatesAskToBuyInSandbox: Bool {
    get { fields.withLock { $0.simulatesAskToBuyInSandbox } }
    set { fields.withLock { $0.simulatesAskToBuyInSandbox = newValue } }
  }
  open override var paymentDiscount: SKPaymentDiscount? {
    get { fields.withLock { $0.paymentDiscount } }
    set { fields.withLock { $0.paymentDiscount = newValue } }
  }
  open override var requestData: Data? {
    get { fields.withLock { $0.requestData } }
    set { fields.withLock { $0.requestData = newValue } }
  }
}

/// A signed promotional offer for a payment, as `SKPaymentDiscount`: the signature (Base64 DER
/// over the U+2063-joined fields) is checked with the configuration's `subscriptionOffersKeyPair`;
/// a bad one fails the payment with `SKError.invalidSignature`.
// Open, as in StoreKit; unchecked only because of that: its values are set once, in `init`.
open class SKPaymentDiscount: NSObject, @unchecked Sendable {
  private let values: (identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber)

  open var identifier: String { values.identifier }
  open var keyIdentifier: String { values.keyIdentifier }
  open var nonce: UUID { values.nonce }
  open var signature: String { values.signature }
  open var timestamp: NSNumber { values.timestamp }

  public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {
    values = (identifier, keyIdentifier, nonce, signature, timestamp)
    super.init()
  }

  /// An empty discount (every string `""`, a new nonce, timestamp 0), as `NSObject`'s `init()`
  /// makes one in StoreKit: for a subclass that overrides the properties it needs.
  public override init() {
    values = ("", "", UUID(), "", 0)
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

// Open, as in StoreKit (where it comes from Objective-C): an app's tests subclass it to make
// transactions of their own (`init()`, then overriding the properties they need), and the queue
// reads its own entries' fields, never a subclass's. Unchecked only because of that: its
// fields live in a Mutex.
/// One entry of the payment queue, as `SKPaymentTransaction`. The same object moves from
/// `purchasing` to its end state; its fields change only when the queue tells its observers.
open class SKPaymentTransaction: NSObject, @unchecked Sendable {
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

  /// The payment as queued (a copy of what `add(_:)` got).
  let queuedPayment: SKPayment
  let fields: Mutex<Fields>

  open var payment: SKPayment { queuedPayment }

  /// A transaction of an empty payment, `purchasing`, that no queue holds, as `NSObject`'s
  /// `init()` makes one in StoreKit: for a subclass that overrides the properties it needs.
  public override init() {
    queuedPayment = SKPayment(productIdentifier: "")
    fields = Mutex(Fields(state: .purchasing))
    super.init()
  }

  init(payment: SKPayment, state: SKPaymentTransactionState) {
    queuedPayment = payment
    fields = Mutex(Fields(state: state))
    super.init()
  }

  /// A purchased view of a ledger transaction (`original` of renewals and restored transactions).
  convenience init(ledger t: StoreSim.Transaction) {
    let payment = SKPayment(
      fields: .init(
        productIdentifier: t.productID, quantity: t.purchasedQuantity,
        applicationUsername: t.appAccountToken?.uuidString))
    self.init(payment: payment, state: .purchased)
    fields.withLock {
      $0.identifier = String(t.id)
      $0.date = t.purchaseDate
      $0.ledgerID = t.id
    }
  }

  open var transactionState: SKPaymentTransactionState { fields.withLock { $0.state } }
  /// Set in `purchased` and `restored` only.
  open var transactionIdentifier: String? { fields.withLock { $0.identifier } }
  /// Set in `purchased` and `restored` only.
  open var transactionDate: Date? { fields.withLock { $0.date } }
  /// The transaction a `restored` one restores, or the first of a renewed subscription.
  open var original: SKPaymentTransaction? { fields.withLock { $0.original } }
  /// Set in `failed` only.
  open var error: (any Error)? { fields.withLock { $0.error } }
  /// Hosted content is not simulated: always empty (see `SKDownload`).
  open var downloads: [SKDownload] { [] }

  open override var description: String {
    "SKPaymentTransaction(\(payment.productIdentifier), \(transactionState), \(transactionIdentifier ?? "no id"))"
  }
}

/// The App Store storefront, as `SKStorefront`.
// Open, as in StoreKit; unchecked only because of that: its values are set once, in `init`.
open class SKStorefront: NSObject, @unchecked Sendable {
  private let values: (countryCode: String, identifier: String)

  /// ISO 3166-1 alpha-3 code.
  open var countryCode: String { values.countryCode }
  open var identifier: String { values.identifier }

  init(countryCode: String, identifier: String) {
    values = (countryCode, identifier)
    super.init()
  }

  /// An empty storefront (both codes `""`), as `NSObject`'s `init()` makes one in StoreKit: for
  /// a subclass that overrides the properties it needs.
  public override init() {
    values = ("", "")
    super.init()
  }

  open override func isEqual(_ object: Any?) -> Bool {
    (object as? SKStorefront).map { $0.countryCode == countryCode && $0.identifier == identifier } ?? false
  }

  open override var hash: Int { identifier.hashValue }
}
