import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// `SKPaymentQueue.default()` and kept values as on a device, across sessions (each test here
/// is a device of its own; the sessions it makes one after the other are its "tests").
@Suite("StoreKit 1: one payment queue for the process", .isolatedTestSession)
struct ProcessWideQueueTests {
  /// (rule default-payment-queue-is-one-object-for-the-process)
  @Test func defaultPaymentQueueIsOneObjectForTheProcessUsableBeforeAnySession() async throws {
    let queue = SKPaymentQueue.default()
    let observer = RecordingObserver(finishes: true)
    queue.add(observer)  // at launch: no session yet
    #expect(queue.transactionObservers.count == 1)
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    #expect(SKPaymentQueue.default() === queue)
    queue.add(SKPayment(product: try await PaymentQueueRuleTests.product("nonconsumable.car", session)))
    await session.waitForTransactionUpdates()
    #expect(observer.calls == [["purchasing nonconsumable.car"], ["purchased nonconsumable.car"]])
    #expect(session.allTransactions().map(\.productIdentifier) == ["nonconsumable.car"])
  }

  /// (rule default-payment-queue-is-one-object-for-the-process)
  @Test func observersAddedOnceHearEveryLaterSessionAndNeverAGoneSessionsTransactions() async throws {
    let observer = RecordingObserver()  // never finishes: the first session's purchase stays unfinished
    SKPaymentQueue.default().add(observer)
    var first: SKTestSession? = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try await PaymentQueueRuleTests.product("nonconsumable.car", try #require(first))
    SKPaymentQueue.default().add(SKPayment(product: car))
    await first?.waitForTransactionUpdates()
    #expect(SKPaymentQueue.default().transactions.map(\.payment.productIdentifier) == ["nonconsumable.car"])
    first = nil

    let second = try SKTestSession(contentsOf: Kit.appleSample)
    #expect(SKPaymentQueue.default().transactions.isEmpty)
    let racecar = try await PaymentQueueRuleTests.product("nonconsumable.racecar", second)
    SKPaymentQueue.default().add(SKPayment(product: racecar))
    await second.waitForTransactionUpdates()
    // The first session's unfinished car is not told again, nor is anything of it after it ended.
    #expect(
      observer.calls == [
        ["purchasing nonconsumable.car"], ["purchased nonconsumable.car"], ["purchasing nonconsumable.racecar"],
        ["purchased nonconsumable.racecar"],
      ])
    #expect(SKPaymentQueue.default().transactions.map(\.payment.productIdentifier) == ["nonconsumable.racecar"])
    #expect(second.allTransactions().map(\.productIdentifier) == ["nonconsumable.racecar"])
  }

  /// (rule a-started-request-answers-without-being-kept)
  @Test @MainActor func aStartedRequestAnswersWithoutBeingKept() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let delegate = KeptDelegate()
    do {
      let request = SKProductsRequest(productIdentifiers: ["nonconsumable.car"])
      request.delegate = delegate
      request.start()
    }  // nobody holds the request now
    await session.waitForTransactionUpdates()
    #expect(delegate.products == ["nonconsumable.car"])
  }

  /// (rule kept-values-act-in-the-current-session)
  @Test func keptValuesActInTheCurrentSession() async throws {
    var first: SKTestSession? = try SKTestSession(contentsOf: Kit.appleSample)
    let product = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    let skProduct = try await PaymentQueueRuleTests.product("nonconsumable.racecar", try #require(first))
    first = nil

    let second = try SKTestSession(contentsOf: Kit.appleSample)
    guard case .success(let result) = try await product.purchase() else { throw CancellationError() }
    await result.unsafePayloadValue.finish()
    let observer = RecordingObserver(finishes: true)
    SKPaymentQueue.default().add(observer)
    SKPaymentQueue.default().add(SKPayment(product: skProduct))
    await second.waitForTransactionUpdates()
    #expect(second.allTransactions().map(\.productIdentifier) == ["nonconsumable.car", "nonconsumable.racecar"])
    #expect(await collect(Transaction.unfinished).isEmpty)
  }
}

@MainActor
private final class KeptDelegate: NSObject, @preconcurrency SKProductsRequestDelegate {
  private(set) var products: [String] = []
  func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
    products = response.products.map(\.productIdentifier)
  }
}
