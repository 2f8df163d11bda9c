import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// The payment queue's rules beyond the app's usual flows.
@Suite("StoreKit 1: payment queue rules", .isolatedTestSession)
struct PaymentQueueRuleTests {
  @MainActor
  static func product(_ id: String, _ session: SKTestSession) async throws -> SKProduct {
    try #require(await ProductsFetcher().fetch([id], session)[id])
  }

  /// Controls called off the main actor deliver before they return too (waiting for the main queue).
  @Test func aControlCalledOffTheMainActorHasToldTheObserverWhenItReturns() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.askToBuyEnabled = true
    let observer = RecordingObserver(finishes: true)
    SKPaymentQueue.default().add(observer)
    SKPaymentQueue.default().add(SKPayment(product: try await Self.product("nonconsumable.car", session)))
    await session.waitForTransactionUpdates()
    #expect(observer.calls.last == ["deferred nonconsumable.car"])
    let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
    try session.approveAskToBuyTransaction(identifier: request.identifier)
    #expect(observer.calls.last == ["purchased nonconsumable.car"])
    try session.refundTransaction(identifier: UInt(observer.updated.last?.transaction.transactionIdentifier ?? "") ?? 0)
    #expect(observer.revoked == [["nonconsumable.car"]])
  }

  @Test func paymentsFailWhenTheCustomerMayNotPay() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.canMakePayments = false
    #expect(!SKPaymentQueue.canMakePayments() && !AppStore.canMakePayments)
    let observer = RecordingObserver(finishes: true)
    SKPaymentQueue.default().add(observer)
    SKPaymentQueue.default().add(SKPayment(product: try await Self.product("nonconsumable.car", session)))
    await session.waitForTransactionUpdates()
    #expect((observer.updated.last?.transaction.error as? SKError)?.code == .paymentNotAllowed)
  }

  @Test func aPaymentForAnUnknownProductFails() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let observer = RecordingObserver(finishes: true)
    SKPaymentQueue.default().add(observer)
    let payment = SKMutablePayment()
    payment.productIdentifier = "no.such.product"
    SKPaymentQueue.default().add(payment)
    payment.productIdentifier = "nonconsumable.car"  // the queue kept a copy
    await session.waitForTransactionUpdates()
    #expect(observer.calls == [["purchasing no.such.product"], ["failed no.such.product"]])
    #expect((observer.updated.last?.transaction.error as? SKError)?.code == .storeProductNotAvailable)
    do {
      throw try #require(observer.updated.last?.transaction.error)
    } catch SKError.storeProductNotAvailable {
    } catch {
      Issue.record("\(error) does not match SKError.storeProductNotAvailable")
    }
  }

  @Test func anUnknownOfferFailsThePayment() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium)
    let observer = RecordingObserver(finishes: true)
    SKPaymentQueue.default().add(observer)
    let payment = SKMutablePayment(product: try await Self.product("com.example.premium.monthly", session))
    payment.paymentDiscount = SKPaymentDiscount(
      identifier: "no.such.offer", keyIdentifier: "KEY", nonce: UUID(), signature: "c2ln", timestamp: 0)
    SKPaymentQueue.default().add(payment)
    await session.waitForTransactionUpdates()
    #expect((observer.updated.last?.transaction.error as? SKError)?.code == .invalidOfferIdentifier)
  }

  @Test func productsCarryTheirPromotionalOffers() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium)
    let monthly = try await Self.product("com.example.premium.monthly", session)
    let comeback = try #require(monthly.discounts.first { $0.identifier == "premium.monthly.comeback" })
    #expect(comeback.type == .subscription && comeback.paymentMode == .payAsYouGo)
    #expect(comeback.price == NSDecimalNumber(string: "4.99"))
    #expect(monthly.introductoryPrice?.paymentMode == .freeTrial)
    #expect(monthly.introductoryPrice?.subscriptionPeriod.unit == .week)
  }

  @Test func unfinishedTransactionsStayAndAreToldToEachNewObserver() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let first = RecordingObserver()
    SKPaymentQueue.default().add(first)
    SKPaymentQueue.default().add(SKPayment(product: try await Self.product("nonconsumable.car", session)))
    await session.waitForTransactionUpdates()
    let car = try #require(first.updated.last?.transaction)
    #expect(SKPaymentQueue.default().transactions.map { $0 === car } == [true])

    let second = RecordingObserver()
    SKPaymentQueue.default().add(second)
    await session.waitForTransactionUpdates()
    #expect(second.calls == [["purchased nonconsumable.car"]])
    #expect(first.calls.count == 2)  // the first is not told again
    SKPaymentQueue.default().finishTransaction(car)
    SKPaymentQueue.default().finishTransaction(car)  // no-op
    await session.waitForTransactionUpdates()
    #expect(first.removed.count == 1 && second.removed.count == 1)
  }

  @Test func aDeferredTransactionFinishedEarlyIsApprovedAsANewOne() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.askToBuyEnabled = true
    let observer = RecordingObserver()
    SKPaymentQueue.default().add(observer)
    SKPaymentQueue.default().add(SKPayment(product: try await Self.product("nonconsumable.car", session)))
    await session.waitForTransactionUpdates()
    let deferred = try #require(observer.updated.last?.transaction)
    SKPaymentQueue.default().finishTransaction(deferred)
    let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
    try session.approveAskToBuyTransaction(identifier: request.identifier)
    let purchased = try #require(observer.updated.last)
    #expect(purchased.state == .purchased && purchased.transaction !== deferred)
  }

  @Test func storefrontChangesAreTold() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let observer = RecordingObserver()
    SKPaymentQueue.default().add(observer)
    #expect(SKPaymentQueue.default().storefront?.countryCode == "USA")
    session.storefront = "FRA"
    #expect(observer.storefrontChanges == 1)
    #expect(SKPaymentQueue.default().storefront?.countryCode == "FRA")
  }

  @MainActor
  @Test func aPromotedPurchaseRunsWhenTheAppAcceptsIt() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = LegacyStore()
    store.acceptsPromotedPurchases = false
    try session.simulatePromotedPurchase(productIdentifier: "nonconsumable.racecar")
    await session.waitForTransactionUpdates()
    #expect(store.log.isEmpty)
    store.acceptsPromotedPurchases = true
    try session.simulatePromotedPurchase(productIdentifier: "nonconsumable.racecar")
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchasing nonconsumable.racecar", "purchased nonconsumable.racecar"])
    #expect(store.unlocked == ["nonconsumable.racecar"])
    #expect(throws: SKTestError(.invalidProductIdentifier, "")) {
      try session.simulatePromotedPurchase(productIdentifier: "no.such.product")
    }
  }

  @Test func aQuantityBelowOneTraps() async {
    await #expect(processExitsWith: .failure) {
      let session = try SKTestSession(contentsOf: Kit.appleSample)
      let payment = SKMutablePayment()
      payment.productIdentifier = "nonconsumable.car"
      payment.quantity = 0
      SKPaymentQueue.default().add(payment)
      _ = session
    }
  }

  @Test func finishingAPurchasingTransactionTraps() async {
    await #expect(processExitsWith: .failure) {
      // No observer: nothing is processed, so the transaction stays purchasing.
      let session = try SKTestSession(contentsOf: Kit.appleSample)
      let payment = SKMutablePayment()
      payment.productIdentifier = "nonconsumable.car"
      SKPaymentQueue.default().add(payment)
      SKPaymentQueue.default().finishTransaction(SKPaymentQueue.default().transactions[0])
      _ = session
    }
  }
}
