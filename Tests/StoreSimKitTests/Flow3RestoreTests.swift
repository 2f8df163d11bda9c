import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Flow 3 in StoreKit 2 terms: unknown identifiers, the purchase outcomes (purchased, failed,
/// deferred, cancelled), restoring non-consumables with `AppStore.sync()` and simulated errors.
/// (The `verifyReceipt` part of the flow is the CLI's `receipt`; StoreKit 2 has no receipt.)
@Suite("Flow 3: product requests, outcomes, restore", .isolatedTestSession)
@MainActor
struct Flow3RestoreTests {
  @Test func unknownIdentifiersAreLeftOut() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let products = try await Product.products(for: ["nonconsumable.car", "no.such.product", "subscription.pro"])
      #expect(Set(products.map(\.id)) == ["nonconsumable.car", "subscription.pro"])
    }
  }

  @Test func purchaseOutcomes() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      // Cancelled by the customer.
      session.userCancelsPurchases = true
      guard case .userCancelled = try await car.purchase() else { Issue.record("expected userCancelled"); return }
      session.userCancelsPurchases = false
      // Failed: a simulated purchase error is thrown.
      try await session.setSimulatedError(.purchase(.productUnavailable), forAPI: .purchase)
      await #expect(throws: Product.PurchaseError.productUnavailable) { try await car.purchase() }
      try await session.setSimulatedError(.generic(.notAvailableInStorefront), forAPI: .purchase)
      await #expect(throws: StoreKitError.self) { try await car.purchase() }
      try await session.setSimulatedError(nil, forAPI: .purchase)
      // Deferred: Ask to Buy.
      session.askToBuyEnabled = true
      guard case .pending = try await car.purchase() else { Issue.record("expected pending"); return }
      session.askToBuyEnabled = false
      // Purchased.
      guard case .success(.verified(let t)) = try await car.purchase() else { Issue.record("expected success"); return }
      #expect(t.productID == car.id)
      #expect(t.ownershipType == .purchased)
      #expect(t.jwsRepresentation.split(separator: ".").count == 3)
      // An invalid quantity.
      let fuel = try #require(try await Product.products(for: ["consumable.fuel.octane87"]).first)
      await #expect(throws: Product.PurchaseError.invalidQuantity) { try await fuel.purchase(options: [.quantity(11)]) }
    }
  }

  @Test func nonConsumablesAreRestoredOnANewLaunch() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let first = await makeStore(session)
      _ = try #require(try await first.purchase(first.cars[1]))
      _ = try #require(try await first.purchase(first.fuel[0]))
      // A new launch of the app (or a new device with the same account): restore.
      let second = await makeStore(session)
      try await AppStore.sync()
      await second.updateCustomerProductStatus()
      #expect(second.purchasedCars.map(\.id) == ["nonconsumable.utilityvehicle"])
      // Finished consumables are gone.
      #expect(await collect(Transaction.all).map(\.productID) == ["nonconsumable.utilityvehicle"])
      try await session.setSimulatedError(
        .generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appStoreSync)
      await #expect(throws: StoreKitError.self) { try await AppStore.sync() }
    }
  }

  @Test func simulatedLoadAndVerificationErrors() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.setSimulatedError(.generic(.networkError(URLError(.timedOut))), forAPI: .loadProducts)
    try await session.run {
      let store = await makeStore(session)
      #expect(store.cars.isEmpty)
      try await session.setSimulatedError(nil, forAPI: .loadProducts)
      await store.requestProducts()
      #expect(store.cars.count == 3)

      try await session.setSimulatedError(.verification(.invalidSignature), forAPI: .verification)
      let result = try await store.cars[0].purchase()
      guard case .success(.unverified(let t, let error)) = result else { Issue.record("expected unverified"); return }
      #expect(error == .invalidSignature)
      #expect(t.productID == "nonconsumable.car")
      #expect(throws: VerificationResult<Transaction>.VerificationError.invalidSignature) {
        try result.verification?.payloadValue
      }
      // The app refuses unverified transactions.
      await #expect(throws: SampleStoreError.failedVerification) { try await store.purchase(store.cars[1]) }
    }
  }
}

extension Product.PurchaseResult {
  var verification: VerificationResult<Transaction>? {
    if case .success(let v) = self { return v }
    return nil
  }
}
