import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// The StoreKit 1 proof: the app's `LegacyStore` driven through a session, as StoreKitTest
/// users write tests (the session at the top of each test, no closure around the app's code);
/// each test on a device of its own (`.isolatedTestSession`), so they run in parallel.
/// `LegacyStoreXCTests` runs the same kind of test with the process's device.
@Suite("StoreKit 1: the app's store", .isolatedTestSession)
@MainActor
struct LegacyStoreTests {
  static let ids: Set<String> = [
    "nonconsumable.car", "nonconsumable.racecar", "consumable.fuel.octane87", "subscription.standard",
    "subscription.pro", "nonRenewing.standard", "no.such.product",
  ]

  /// Launches the app's store and waits for its products, as its store screen would.
  static func launch(_ session: SKTestSession) async -> LegacyStore {
    let store = LegacyStore()
    store.requestProducts(ids)
    await session.waitForTransactionUpdates()
    return store
  }

  @Test func productsRequestAnswersWithProductsAndInvalidIdentifiers() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    #expect(store.productsRequestFinished)
    #expect(store.invalidProductIdentifiers == ["no.such.product"])
    #expect(store.products.keys.sorted() == Self.ids.subtracting(["no.such.product"]).sorted())
    let car = try #require(store.products["nonconsumable.car"])
    #expect(car.localizedTitle == "Car")
    #expect(car.price == NSDecimalNumber(string: "1.99"))
    #expect(car.priceLocale.currency?.identifier == "USD")
    #expect(car.subscriptionPeriod == nil && car.introductoryPrice == nil && car.subscriptionGroupIdentifier == nil)
    let pro = try #require(store.products["subscription.pro"])
    #expect(pro.subscriptionPeriod?.numberOfUnits == 1 && pro.subscriptionPeriod?.unit == .month)
    #expect(pro.subscriptionGroupIdentifier == "5A1E6001")
    #expect(pro.isFamilyShareable)
    let intro = try #require(pro.introductoryPrice)
    #expect(intro.price == NSDecimalNumber(string: "1.99") && intro.paymentMode == .payUpFront)
    #expect(intro.identifier == nil && intro.type == .introductory && intro.numberOfPeriods == 1)
    #expect(intro.subscriptionPeriod.numberOfUnits == 2 && intro.subscriptionPeriod.unit == .month)
  }

  @Test func aFailingProductsRequestTellsOnlyTheFailure() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.setSimulatedError(
      .generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .loadProducts)
    let store = await Self.launch(session)
    #expect(store.productsRequestError?.code == .unknown)
    #expect(store.products.isEmpty && !store.productsRequestFinished)
  }

  @Test func buyingUnlocksInTwoCallsAndFinishes() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    store.buy("nonconsumable.car")
    #expect(store.log.isEmpty)  // never inside add(_:)
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchasing nonconsumable.car", "purchased nonconsumable.car"])
    #expect(store.seen.count == 2 && store.seen[0] === store.seen[1])  // one object, two states
    #expect(store.unlocked == ["nonconsumable.car"])
    #expect(store.removed.map(\.payment.productIdentifier) == ["nonconsumable.car"])
    #expect(SKPaymentQueue.default().transactions.isEmpty)
    let ledger = try #require(await collect(Transaction.all).first)
    #expect(store.seen[1].transactionIdentifier == String(ledger.id))
    #expect(store.seen[1].transactionDate == ledger.purchaseDate && store.seen[1].original == nil)
    #expect(await collect(Transaction.unfinished).isEmpty)  // finished through StoreKit 1
  }

  @Test func aConsumableCountsItsQuantity() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    store.buy("consumable.fuel.octane87", quantity: 3)
    await session.waitForTransactionUpdates()
    #expect(store.fuel == 3)
    store.buy("consumable.fuel.octane87", quantity: 11)
    await session.waitForTransactionUpdates()
    #expect(store.fuel == 3 && store.shownError?.code == .paymentInvalid)
  }

  @Test func restoreGivesNewTransactionsOfTheOriginals() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let first = await Self.launch(session)
    first.buy("nonconsumable.car")
    first.buy("consumable.fuel.octane87")
    first.buy("subscription.standard")
    await session.waitForTransactionUpdates()
    try session.advance(by: 31 * Kit.day)  // one renewal
    first.stopObserving()

    // The app on a new device: nothing unlocked until it restores.
    let store = await Self.launch(session)
    #expect(store.unlocked.isEmpty)
    store.restorePurchases()
    await session.waitForTransactionUpdates()
    #expect(store.restoreFinished && store.restoreError == nil)
    #expect(store.unlocked == ["nonconsumable.car", "subscription.standard"])
    let restored = store.seen.filter { $0.transactionState == .restored }
    #expect(
      restored.map(\.payment.productIdentifier) == [
        "nonconsumable.car", "subscription.standard", "subscription.standard",
      ])
    let ledger = await collect(Transaction.all).filter { $0.productType != .consumable }.map { String($0.id) }
    #expect(restored.compactMap(\.original?.transactionIdentifier) == ledger)
    #expect(restored.allSatisfy { $0.transactionIdentifier.map { !ledger.contains($0) } ?? false })
    #expect(store.log.last == "restored subscription.standard")
  }

  @Test func restoreWithNothingToRestoreStillFinishes() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    store.restorePurchases()
    await session.waitForTransactionUpdates()
    #expect(store.restoreFinished && store.log.isEmpty)
  }

  @Test func aFailedRestoreCallsOnlyTheFailure() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.setSimulatedError(.generic(.userCancelled), forAPI: .appStoreSync)
    let store = await Self.launch(session)
    store.restorePurchases()
    await session.waitForTransactionUpdates()
    #expect(store.restoreError?.code == .paymentCancelled && !store.restoreFinished)
  }

  @Test func askToBuyIsDeferredThenApproved() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.askToBuyEnabled = true
    let store = await Self.launch(session)
    store.buy("nonconsumable.racecar")
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchasing nonconsumable.racecar", "deferred nonconsumable.racecar"])
    #expect(store.waitingForApproval == ["nonconsumable.racecar"] && store.unlocked.isEmpty)
    let deferred = try #require(SKPaymentQueue.default().transactions.first)
    #expect(deferred.transactionIdentifier == nil)

    let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
    try session.approveAskToBuyTransaction(identifier: request.identifier)
    // When the control returns, the observer has been called: no wait.
    #expect(store.unlocked == ["nonconsumable.racecar"] && store.waitingForApproval.isEmpty)
    #expect(store.log.last == "purchased nonconsumable.racecar")
    #expect(store.seen.last === deferred)  // the same transaction, now purchased
  }

  @Test func aDeclinedAskToBuyLeavesQuietly() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.askToBuyEnabled = true
    let store = await Self.launch(session)
    store.buy("nonconsumable.racecar")
    await session.waitForTransactionUpdates()
    let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
    try session.declineAskToBuyTransaction(identifier: request.identifier)
    #expect(store.log == ["purchasing nonconsumable.racecar", "deferred nonconsumable.racecar"])
    #expect(SKPaymentQueue.default().transactions.isEmpty && store.unlocked.isEmpty)
  }

  @Test func failedPaymentsShowTheirError() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    session.failTransactionsEnabled = true
    store.buy("nonconsumable.car")
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchasing nonconsumable.car", "failed nonconsumable.car"])
    #expect(store.shownError?.code == .unknown && store.unlocked.isEmpty)
    #expect(store.seen.last?.transactionIdentifier == nil)
    session.failTransactionsEnabled = false

    try await session.setSimulatedError(.purchase(.productUnavailable), forAPI: .purchase)
    store.buy("nonconsumable.car")
    await session.waitForTransactionUpdates()
    #expect(store.shownError?.code == .storeProductNotAvailable)
    #expect(SKPaymentQueue.default().transactions.isEmpty)  // failed ones finished too
    #expect(await collect(Transaction.all).isEmpty)
  }

  @Test func aCancelledPaymentIsNotAnError() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    session.userCancelsPurchases = true
    store.buy("nonconsumable.car")
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchasing nonconsumable.car", "failed nonconsumable.car"])
    #expect((store.seen.last?.error as? SKError)?.code == .paymentCancelled)
    #expect(store.cancelledPurchases == 1 && store.shownError == nil && store.unlocked.isEmpty)
  }

  @Test func anInterruptedPurchaseFailsThenArrivesWhenResolved() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.interruptedPurchasesEnabled = true
    let store = await Self.launch(session)
    store.buy("nonconsumable.car")
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchasing nonconsumable.car", "failed nonconsumable.car"])
    #expect(store.shownError?.code == .unknown)
    session.interruptedPurchasesEnabled = false
    let issue = try #require(session.allTransactions().first { $0.hasPurchaseIssue })
    try session.resolveIssueForTransaction(identifier: issue.identifier)
    #expect(store.unlocked == ["nonconsumable.car"])
    #expect(store.log.last == "purchased nonconsumable.car")
    #expect(store.seen.last !== store.seen.first)  // a new transaction
  }

  @Test func aRefundRevokesTheEntitlement() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    store.buy("nonconsumable.car")
    store.buy("consumable.fuel.octane87")
    await session.waitForTransactionUpdates()
    let all = await collect(Transaction.all)
    for t in all { try session.refundTransaction(identifier: UInt(t.id)) }
    #expect(store.revokedProducts == ["nonconsumable.car"])  // consumables revoke nothing
    #expect(store.unlocked.isEmpty)
  }

  @Test func aRenewalArrivesAsPurchasedWithItsOriginal() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await Self.launch(session)
    store.buy("subscription.standard")
    await session.waitForTransactionUpdates()
    let first = try #require(store.seen.last)
    try session.advance(by: 31 * Kit.day)
    let renewal = try #require(store.seen.last)
    #expect(renewal !== first && renewal.transactionState == .purchased)
    #expect(renewal.original?.transactionIdentifier == first.transactionIdentifier)
    #expect(renewal.transactionIdentifier != first.transactionIdentifier)
    #expect(SKPaymentQueue.default().transactions.isEmpty)
  }
}
