import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

// Test doubles as StoreKit 1 code's own tests write them: StoreKit's classes are open (they come
// from Objective-C), and `SKProduct` has no initializer taking values, so a test subclasses it
// and overrides what it needs. These compile only while the classes and their properties are
// `open` outside the module (this test target is another module).

final class TestProduct: SKProduct, @unchecked Sendable {
  private let id: String
  private let amount: NSDecimalNumber
  init(id: String, price: String) {
    self.id = id
    amount = NSDecimalNumber(string: price)
    super.init()
  }
  override var productIdentifier: String { id }
  override var price: NSDecimalNumber { amount }
  override var priceLocale: Locale { Locale(identifier: "de_DE@currency=EUR") }
  override var localizedTitle: String { "Test \(id)" }
  override var subscriptionPeriod: SKProductSubscriptionPeriod? { TestPeriod() }
}

final class TestPeriod: SKProductSubscriptionPeriod, @unchecked Sendable {
  override var numberOfUnits: Int { 3 }
  override var unit: SKProduct.PeriodUnit { .month }
}

final class TestPaymentTransaction: SKPaymentTransaction, @unchecked Sendable {
  private let fakePayment: SKPayment
  private let state: SKPaymentTransactionState
  private let originalTransaction: SKPaymentTransaction?
  init(payment: SKPayment, state: SKPaymentTransactionState, original: SKPaymentTransaction? = nil) {
    fakePayment = payment
    self.state = state
    originalTransaction = original
    super.init()
  }
  override var payment: SKPayment { fakePayment }
  override var transactionState: SKPaymentTransactionState { state }
  override var original: SKPaymentTransaction? { originalTransaction }
  override var transactionIdentifier: String? { state == .purchased ? "fake-1" : nil }
}

final class TestProductsResponse: SKProductsResponse, @unchecked Sendable {
  override var products: [SKProduct] { [TestProduct(id: "com.example.coins", price: "0.99")] }
  override var invalidProductIdentifiers: [String] { ["com.example.gone"] }
}

/// A request that answers itself, as a test stubs the App Store.
final class StubProductsRequest: SKProductsRequest, @unchecked Sendable {
  override func start() {
    delegate?.productsRequest(self, didReceive: TestProductsResponse())
    delegate?.requestDidFinish(self)
  }
}

final class MockPayment: SKPayment, @unchecked Sendable {
  override var productIdentifier: String { "com.example.mock" }
  override var quantity: Int { 2 }
}

final class MockMutablePayment: SKMutablePayment, @unchecked Sendable {
  override init() {
    super.init()
    productIdentifier = "com.example.mutable"
  }
}

/// A queue that records what is added instead of buying it.
final class SpyPaymentQueue: SKPaymentQueue, @unchecked Sendable {
  nonisolated(unsafe) var added: [String] = []
  nonisolated(unsafe) var sheets = 0
  override func add(_ payment: SKPayment) { added.append(payment.productIdentifier) }
  override func presentCodeRedemptionSheet() { sheets += 1 }
  override var storefront: SKStorefront? { MockStorefront() }
}

final class MockStorefront: SKStorefront, @unchecked Sendable {
  override var countryCode: String { "DEU" }
}

final class MockPaymentDiscount: SKPaymentDiscount, @unchecked Sendable {
  override init() { super.init() }
  override var identifier: String { "promo" }
}

final class MockProductsRequest: SKProductsRequest, @unchecked Sendable {
  override init() { super.init() }
  override func start() { delegate?.requestDidFinish(self) }
}

final class MockReceiptRequest: SKReceiptRefreshRequest, @unchecked Sendable {
  required override init() { super.init() }
  nonisolated(unsafe) var started = false
  override func start() { started = true }
}

final class MockDownload: SKDownload, @unchecked Sendable {
  override var contentIdentifier: String { "pack" }
}

/// What an app's store class keeps from StoreKit 1's callbacks (its own code under test).
@MainActor final class AppProductCatalog: NSObject, SKProductsRequestDelegate {
  var titles: [String] = []
  var invalid: [String] = []
  var finished = false
  nonisolated func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
    let titles = response.products.map { "\($0.localizedTitle) \($0.price)" }
    let invalid = response.invalidProductIdentifiers
    MainActor.assumeIsolated {
      self.titles = titles
      self.invalid = invalid
    }
  }
  nonisolated func requestDidFinish(_ request: SKRequest) { MainActor.assumeIsolated { finished = true } }

  /// What the app's observer does with updated transactions: the ids it would unlock.
  nonisolated static func unlocked(by transactions: [SKPaymentTransaction]) -> [String] {
    transactions.compactMap { t in
      switch t.transactionState {
      case .purchased: return t.payment.productIdentifier
      case .restored: return t.original.map { "restored \($0.payment.productIdentifier)" }
      case .purchasing, .failed, .deferred: return nil
      }
    }
  }
}

@Suite("StoreKit 1: open classes for an app's test doubles")
struct TestDoubleTests {
  @Test func aSubclassOfSKProductIsReadThroughTheBaseClass() {
    let product: SKProduct = TestProduct(id: "com.example.pro", price: "4.99")
    #expect(product.productIdentifier == "com.example.pro")
    #expect(product.price == NSDecimalNumber(string: "4.99"))
    #expect(product.priceLocale.identifier == "de_DE@currency=EUR")
    #expect(product.subscriptionPeriod?.numberOfUnits == 3 && product.subscriptionPeriod?.unit == .month)
    // A payment made from it takes the overridden identifier.
    #expect(SKPayment(product: product).productIdentifier == "com.example.pro")
    // What is not overridden is empty, as for StoreKit's `init()`.
    #expect(product.localizedDescription == "" && product.discounts.isEmpty && product.introductoryPrice == nil)
    #expect(!product.isFamilyShareable && product.subscriptionGroupIdentifier == nil)
  }

  @Test func theEmptyObjectsOfInitAreBlank() {
    #expect(SKProduct().productIdentifier == "" && SKProduct().price == NSDecimalNumber.zero)
    #expect(SKProductDiscount().numberOfPeriods == 0 && SKProductDiscount().identifier == nil)
    #expect(SKProductSubscriptionPeriod().numberOfUnits == 0)
    let transaction = SKPaymentTransaction()
    #expect(transaction.transactionState == .purchasing && transaction.payment.productIdentifier == "")
    #expect(transaction.transactionIdentifier == nil && transaction.original == nil && transaction.error == nil)
    #expect(SKProductsResponse().products.isEmpty && SKProductsResponse().invalidProductIdentifiers.isEmpty)
  }

  @Test func fakeTransactionsDriveAnAppsObserverCode() {
    let bought = TestPaymentTransaction(
      payment: SKPayment(product: TestProduct(id: "a", price: "1")), state: .purchased)
    let restored = TestPaymentTransaction(
      payment: SKPayment(product: TestProduct(id: "b", price: "1")), state: .restored, original: bought)
    let pending = TestPaymentTransaction(
      payment: SKPayment(product: TestProduct(id: "c", price: "1")), state: .deferred)
    #expect(AppProductCatalog.unlocked(by: [bought, restored, pending]) == ["a", "restored a"])
    #expect(bought.transactionIdentifier == "fake-1")
  }

  @Test @MainActor func aStubbedRequestAnswersItsDelegateWithTheStubbedResponse() {
    let catalog = AppProductCatalog()
    let request = StubProductsRequest(productIdentifiers: ["com.example.coins", "com.example.gone"])
    request.delegate = catalog
    request.start()
    #expect(catalog.titles == ["Test com.example.coins 0.99"])
    #expect(catalog.invalid == ["com.example.gone"])
    #expect(catalog.finished)
  }

  @Test @MainActor func everyStoreKit1ClassCanBeSubclassedWithItsEmptyInit() {
    let payment: SKPayment = MockPayment()
    #expect(payment.productIdentifier == "com.example.mock" && payment.quantity == 2)
    #expect(SKPayment().productIdentifier == "" && SKPayment().quantity == 1)
    // A subclass that declares no initializer inherits `init(product:)`, as in StoreKit.
    #expect(MockPayment(product: TestProduct(id: "p", price: "1")).quantity == 2)
    #expect(MockMutablePayment().productIdentifier == "com.example.mutable")
    #expect(SKMutablePayment().productIdentifier == "")
    let queue = SpyPaymentQueue()
    queue.add(payment)
    queue.presentCodeRedemptionSheet()
    #expect(queue.added == ["com.example.mock"] && queue.sheets == 1)
    #expect(queue.storefront?.countryCode == "DEU" && queue.storefront?.identifier == "")
    #expect(MockPaymentDiscount().identifier == "promo" && MockPaymentDiscount().keyIdentifier == "")
    let catalog = AppProductCatalog()
    let request = MockProductsRequest()
    request.delegate = catalog
    request.start()
    #expect(catalog.finished && catalog.titles.isEmpty)
    let receipt = MockReceiptRequest()
    receipt.start()
    #expect(receipt.started && receipt.receiptProperties == nil)
    #expect(MockDownload().contentIdentifier == "pack" && MockDownload().expectedContentLength == 0)
  }

  @Test(.isolatedTestSession) func theQueueIgnoresATransactionItDoesNotHold() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let observer = RecordingObserver()
    let queue = SKPaymentQueue.default()
    queue.add(observer)
    defer { queue.remove(observer) }
    // Neither the fake (which says purchased) nor a blank purchasing one is the queue's: finishing
    // them changes nothing and does not trap.
    queue.finishTransaction(
      TestPaymentTransaction(payment: SKPayment(product: TestProduct(id: "x", price: "1")), state: .purchased))
    queue.finishTransaction(SKPaymentTransaction())
    await session.waitForTransactionUpdates()
    #expect(queue.transactions.isEmpty)
    #expect(observer.calls.isEmpty)
    #expect(session.allTransactions().isEmpty)
  }
}
