import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Flow 1 of the product spec: Apple's StoreKit 2 sample store, driven through the app's own
/// store class on the virtual clock.
@Suite("Flow 1: the sample store", .isolatedTestSession)
@MainActor
struct Flow1StoreTests {
  @Test func productsAreSplitByTypeAndSortedByPrice() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    await session.run {
      let store = await makeStore(session)
      #expect(store.cars.map(\.id) == ["nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar"])
      #expect(
        store.fuel.map(\.id) == ["consumable.fuel.octane87", "consumable.fuel.octane89", "consumable.fuel.octane91"])
      #expect(store.subscriptions.map(\.id) == ["subscription.standard", "subscription.premium", "subscription.pro"])
      #expect(store.nonRenewables.map(\.id) == ["nonRenewing.standard"])
      #expect(
        store.cars.map(\.price) == [Decimal(string: "1.99")!, Decimal(string: "2.99")!, Decimal(string: "4.99")!])
      #expect(store.cars.first?.displayPrice == "$1.99")
      #expect(store.cars.first?.type == .nonConsumable)
      #expect(store.subscriptions.first?.subscription?.subscriptionPeriod == .monthly)
      #expect(store.subscriptions.map { $0.subscription?.groupLevel } == [3, 2, 1])
    }
  }

  @Test func entitlementsPerProductType() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session)
      // A car: a non-consumable, owned from now on.
      let car = store.cars[0]
      let carTransaction = try #require(try await store.purchase(car))
      #expect(carTransaction.productType == .nonConsumable)
      #expect(try await store.isPurchased(car))
      #expect(store.purchasedCars == [car])

      // Fuel: a consumable with a quantity; never an entitlement, counted by the app.
      let fuel = store.fuel[1]
      let fuelTransaction = try #require(try await store.purchase(fuel, options: [.quantity(3)]))
      #expect(fuelTransaction.purchasedQuantity == 3)
      #expect(store.fuelCount[fuel.id] == 3)
      // Fuel bought outside the app arrives on updates; the listener counts and finishes it.
      try await session.buyProduct(identifier: fuel.id, options: [.quantity(2)])
      await session.waitForTransactionUpdates()
      #expect(store.fuelCount[fuel.id] == 5)
      #expect(!(await collect(Transaction.currentEntitlements).contains { $0.productID == fuel.id }))

      // A subscription: its service level.
      let standard = store.subscriptions[0]
      _ = try #require(try await store.purchase(standard))
      #expect(store.purchasedSubscriptions == [standard])
      #expect(store.serviceEntitlement == .standard)

      // The non-renewing subscription.
      let pass = store.nonRenewables[0]
      _ = try #require(try await store.purchase(pass))
      #expect(store.purchasedNonRenewableSubscriptions == [pass])

      // Everything was finished by the app.
      #expect(await collect(Transaction.unfinished).isEmpty)
      #expect(Set(await collect(Transaction.currentEntitlements).map(\.productID)) == [car.id, standard.id, pass.id])
    }
  }

  @Test func theNonRenewingSubscriptionLastsOneYearByTheAppsRule() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session)
      let pass = store.nonRenewables[0]
      _ = try #require(try await store.purchase(pass))
      try session.advance(by: 364 * Kit.day)
      await store.updateCustomerProductStatus()
      #expect(store.purchasedNonRenewableSubscriptions == [pass])
      try session.advance(by: 2 * Kit.day)
      await store.updateCustomerProductStatus()
      // StoreKit still lists it (no expiration date); the app's one-year rule drops it.
      #expect(await collect(Transaction.currentEntitlements).map(\.productID) == [pass.id])
      #expect(store.purchasedNonRenewableSubscriptions.isEmpty)
    }
  }

  @Test func renewalsReachTheListenerOnTheVirtualClock() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session)
      let premium = store.subscriptions[1]
      let first = try #require(try await store.purchase(premium))
      try session.advance(by: 365 * Kit.day)
      // Everything the year caused is queued; wait for the app's loop to handle it.
      await session.waitForTransactionUpdates()
      #expect(store.updatesHandled == 12)
      let latest = try #require(await Transaction.latest(for: premium.id))
      let renewal = try latest.payloadValue
      #expect(renewal.reason == .renewal)
      #expect(renewal.originalID == first.id)
      #expect(renewal.purchaseDate == Kit.date("2027-01-01T00:00:00Z"))
      #expect(await collect(Transaction.unfinished).isEmpty)
      #expect(store.serviceEntitlement == .premium)
    }
  }

  @Test func theHighestServiceLevelWinsWhenFamilySharingAddsOne() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session)
      _ = try #require(try await store.purchase(store.subscriptions[0]))
      #expect(store.serviceEntitlement == .standard)

      // A family member subscribes to Pro (shareable): the customer gets it through Family
      // Sharing, delivered on Transaction.updates.
      try session.addFamilyMember("parent")
      try await session.buyProduct(identifier: "subscription.pro", familyMember: "parent")
      await session.waitForTransactionUpdates()
      let statuses = try await store.subscriptions[0].subscription!.status
      #expect(statuses.count == 2)
      let shared = try #require(statuses.first { $0.transaction.unsafePayloadValue.ownershipType == .familyShared })
      #expect(shared.transaction.unsafePayloadValue.productID == "subscription.pro")
      #expect(store.serviceEntitlement == .pro)
      #expect(Set(store.purchasedSubscriptions.map(\.id)) == ["subscription.standard", "subscription.pro"])
    }
  }
}
