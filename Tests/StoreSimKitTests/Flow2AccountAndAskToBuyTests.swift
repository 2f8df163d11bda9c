import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Flow 2: `appAccountToken`, Ask to Buy approved and declined, `latest(for:)` after an upgrade.
@Suite("Flow 2: account token, Ask to Buy, latest(for:)", .isolatedTestSession)
@MainActor
struct Flow2AccountAndAskToBuyTests {
  @Test func theAppAccountTokenIsOnTheTransactionAndItsRenewals() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session)
      let token = UUID(uuidString: "6F1E1D3C-0000-4000-8000-000000000001")!
      let t = try #require(try await store.purchase(store.subscriptions[0], options: [.appAccountToken(token)]))
      #expect(t.appAccountToken == token)
      try session.forceRenewalOfSubscription(productIdentifier: "subscription.standard")
      await session.waitForTransactionUpdates()
      let renewal = try #require(await Transaction.latest(for: "subscription.standard")).unsafePayloadValue
      #expect(renewal.id != t.id)
      #expect(renewal.appAccountToken == token)
      let status = try #require(try await store.subscriptions[0].subscription?.status.first)
      #expect(try status.renewalInfo.payloadValue.appAccountToken == token)
    }
  }

  @Test func askToBuyIsPendingThenTheApprovedTransactionArrivesOnUpdates() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    session.askToBuyEnabled = true
    try await session.run {
      let store = await makeStore(session)
      let car = store.cars[2]
      #expect(try await store.purchase(car)?.id == nil)  // .pending
      #expect(store.purchasedCars.isEmpty)
      #expect(await collect(Transaction.all).isEmpty)
      let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
      #expect(request.productIdentifier == car.id)

      session.advance(byDays: 1)
      try session.approveAskToBuyTransaction(identifier: request.identifier)
      // Visible at once to queries, and queued on the app's listener.
      #expect(await collect(Transaction.currentEntitlements).map(\.productID) == [car.id])
      await session.waitForTransactionUpdates()
      #expect(store.updatesHandled == 1)
      #expect(store.purchasedCars == [car])
      let t = try #require(await Transaction.latest(for: car.id)).unsafePayloadValue
      #expect(t.purchaseDate == Kit.start.addingTimeInterval(Kit.day))
      #expect(await collect(Transaction.unfinished).isEmpty)  // the listener finished it
    }
  }

  @Test func aDeclinedAskToBuyDeliversNothing() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    session.askToBuyEnabled = true
    try await session.run {
      let store = await makeStore(session)
      #expect(try await store.purchase(store.cars[0])?.id == nil)
      let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
      try session.declineAskToBuyTransaction(identifier: request.identifier)
      await session.waitForTransactionUpdates()
      #expect(store.updatesHandled == 0)
      #expect(store.purchasedCars.isEmpty)
      #expect(await collect(Transaction.all).isEmpty)
      #expect(session.allTransactions().isEmpty)
      #expect(throws: SKTestError.self) { try session.approveAskToBuyTransaction(identifier: request.identifier) }
    }
  }

  @Test func latestForShowsIsUpgradedAfterAnUpgrade() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let store = await makeStore(session)
      let standard = try #require(try await store.purchase(store.subscriptions[0]))
      #expect(store.serviceEntitlement == .standard)
      let pro = try #require(try await store.purchase(store.subscriptions[2]))
      #expect(pro.productID == "subscription.pro")
      // The upgraded transaction is re-delivered on updates with isUpgraded set.
      await session.waitForTransactionUpdates()
      #expect(store.updatesHandled == 1)
      let old = try #require(await Transaction.latest(for: "subscription.standard")).unsafePayloadValue
      #expect(old.id == standard.id)
      #expect(old.isUpgraded)
      #expect(store.serviceEntitlement == .pro)
      #expect(store.purchasedSubscriptions.map(\.id) == ["subscription.pro"])
    }
  }
}

extension SKTestSession {
  func advance(byDays days: Double) { try! advance(by: days * Kit.day) }
}
