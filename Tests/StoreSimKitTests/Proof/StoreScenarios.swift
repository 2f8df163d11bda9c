import Foundation
import StoreSimKit

/// A failed check of a scenario: thrown, so that Swift Testing and XCTest both fail the test.
struct ProofFailure: Error, CustomStringConvertible {
  let description: String
}

func check(
  _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line
) throws {
  if !condition { throw ProofFailure(description: "\(file):\(line): \(message())") }
}

/// The customer waits for the screen to change: polls for up to thirty seconds (CI runs these
/// with both cores busy, where a product request has taken past ten). The only wait in these
/// tests, where a person would wait.
@MainActor
func eventually(
  _ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () async -> Bool
) async throws {
  let deadline = ContinuousClock.now + .seconds(30)
  while !(await condition()) {
    if ContinuousClock.now > deadline { throw ProofFailure(description: "\(file):\(line): gave up waiting: \(what)") }
    try await Task.sleep(for: .milliseconds(5))
  }
}

/// The proof's scenarios, written as StoreKitTest users write them: the test made the session
/// (at its top, or in `setUp`), then launches the app's store and uses it. No closure around
/// app code: the session is device-wide. Shared by the Swift Testing suite and the XCTest case.
@MainActor
enum StoreScenarios {
  /// The app launches; the customer waits for its store screen.
  static func launch() async throws -> DemoStore {
    let store = DemoStore()
    try await eventually("the store shows its products") {
      !store.cars.isEmpty && !store.fuel.isEmpty && !store.subscriptions.isEmpty && !store.nonRenewables.isEmpty
    }
    return store
  }

  static func productsByTypeAndPrice(_ session: SKTestSession) async throws {
    let store = try await launch()
    try check(
      store.cars.map(\.id) == ["nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar"], "cars")
    try check(
      store.fuel.map(\.id) == ["consumable.fuel.octane87", "consumable.fuel.octane89", "consumable.fuel.octane91"],
      "fuel")
    try check(
      store.subscriptions.map(\.id) == ["subscription.standard", "subscription.premium", "subscription.pro"], "subs")
    try check(store.nonRenewables.map(\.id) == ["nonRenewing.standard"], "non-renewables")
    try check(store.cars.map(\.displayPrice) == ["$1.99", "$2.99", "$4.99"], "display prices")
    try check(
      store.subscriptions.map { $0.subscription?.subscriptionPeriod } == [.monthly, .monthly, .monthly], "periods")
  }

  static func buyAndEntitle(_ session: SKTestSession) async throws {
    let store = try await launch()
    let car = store.cars[0]
    let transaction = try await store.purchase(car)
    try check(transaction?.productID == car.id, "the purchase returns the car's transaction")
    try check(try await store.isPurchased(car), "the car is owned")
    try check(store.purchasedCars == [car], "purchased cars")
    try check(await Transaction.unfinished.isEmptySequence, "the app finished its purchase")
    let entitled = await Transaction.currentEntitlements.productIDs
    try check(entitled == [car.id], "entitlements: \(entitled)")
  }

  static func upgrade(_ session: SKTestSession) async throws {
    let store = try await launch()
    let standard = store.subscriptions[0]
    let pro = store.subscriptions[2]
    _ = try await store.purchase(standard)
    try check(store.serviceLevel == .standard && store.subscriptionGroupStatus == .subscribed, "standard")
    _ = try await store.purchase(pro)
    try check(
      store.purchasedSubscriptions == [pro], "upgraded to pro at once: \(store.purchasedSubscriptions.map(\.id))")
    try check(store.serviceLevel == .pro, "pro service")
    try check(try await standard.latestTransaction?.payloadValue.isUpgraded == true, "the old one is upgraded")
  }

  static func renewThroughTheStoresListener(_ session: SKTestSession) async throws {
    let store = try await launch()
    let standard = store.subscriptions[0]
    let first = try await store.purchase(standard)
    try session.advance(by: 32 * 86_400)
    let latest = try await Transaction.latest(for: standard.id)?.payloadValue
    try check(latest?.reason == .renewal && latest?.id != first?.id, "a renewal was made")
    // Only the app's listener finishes a renewal: the customer sees it handled.
    try await eventually("the store's listener handles the renewal") { await Transaction.unfinished.isEmptySequence }
    try check(store.purchasedSubscriptions == [standard], "still subscribed")
    try check(store.subscriptionGroupStatus == .subscribed, "status subscribed")
  }

  static func expire(_ session: SKTestSession) async throws {
    let store = try await launch()
    let premium = store.subscriptions[1]
    _ = try await store.purchase(premium)
    try check(store.serviceLevel == .premium, "premium")
    try session.expireSubscription(productIdentifier: premium.id)
    // StoreKit sends no transaction for an expiry: the app sees it when it looks again.
    await store.updateCustomerProductStatus()
    try check(store.purchasedSubscriptions.isEmpty, "no longer subscribed")
    try check(
      store.subscriptionGroupStatus == .expired, "status expired: \(String(describing: store.subscriptionGroupStatus))")
    try check(store.serviceLevel == DemoServiceLevel.none, "no service")
  }

  static func askToBuyApproveAndDecline(_ session: SKTestSession) async throws {
    session.askToBuyEnabled = true
    let store = try await launch()
    let car = store.cars[0]
    let utility = store.cars[1]
    try check(try await store.purchase(car) == nil, "the purchase waits for the parent")
    let request = try pendingRequest(session, for: car.id)
    try session.approveAskToBuyTransaction(identifier: request)
    try await eventually("the store's listener delivers the approved car") { store.purchasedCars == [car] }

    try check(try await store.purchase(utility) == nil, "pending again")
    try session.declineAskToBuyTransaction(identifier: try pendingRequest(session, for: utility.id))
    // A decline delivers nothing; what the customer buys next still arrives.
    session.askToBuyEnabled = false
    try await session.buyProduct(identifier: "nonconsumable.racecar")
    try await eventually("the listener goes on after the decline") { store.purchasedCars.count == 2 }
    try check(store.purchasedCars.map(\.id) == [car.id, "nonconsumable.racecar"], "the declined one is not owned")
    try await eventually("the listener finishes what it got") { await Transaction.unfinished.isEmptySequence }
  }

  static func refund(_ session: SKTestSession) async throws {
    let store = try await launch()
    let car = store.cars[0]
    let transaction = try await store.purchase(car)
    try check(store.purchasedCars == [car], "owned")
    try session.refundTransaction(identifier: UInt(transaction?.id ?? 0))
    try await eventually("the store's listener takes the car back") { store.purchasedCars.isEmpty }
  }

  static func purchaseMadeOutsideTheApp(_ session: SKTestSession) async throws {
    let store = try await launch()
    try await session.buyProduct(identifier: "nonconsumable.utilityvehicle")
    try await eventually("the store's listener delivers the purchase") {
      store.purchasedCars.map(\.id) == ["nonconsumable.utilityvehicle"]
    }
    try await eventually("and finishes it") { await Transaction.unfinished.isEmptySequence }
  }

  /// The app's rule, against `Date()`: a year from the purchase. The session's clock starts at
  /// the wall clock, so a purchase made now is current; one made in a session that started 400
  /// days ago has lapsed.
  static func oneYearRule(_ session: SKTestSession) async throws {
    let store = try await launch()
    let pass = store.nonRenewables[0]
    _ = try await store.purchase(pass)
    try check(store.purchasedNonRenewableSubscriptions == [pass], "bought now: current")

    let earlier = try SKTestSession(contentsOf: Kit.appleSample, startDate: Date().addingTimeInterval(-400 * 86_400))
    defer { withExtendedLifetime(earlier) {} }
    let lateStore = try await launch()
    let oldPass = try await lateStore.purchase(lateStore.nonRenewables[0])
    try check(oldPass.map { Date().timeIntervalSince($0.purchaseDate) > 399 * 86_400 } == true, "bought 400 days ago")
    try check(lateStore.purchasedNonRenewableSubscriptions.isEmpty, "lapsed by the app's rule")
  }

  /// A new session is a new device state; a session the test let go of is gone.
  static func noStateLeaks(_ session: SKTestSession) async throws {
    let store = try await launch()
    try check(store.purchasedCars.isEmpty && store.purchasedSubscriptions.isEmpty, "a fresh session owns nothing")
    try check(await Transaction.all.isEmptySequence, "no transactions")
    _ = try await store.purchase(store.cars[0])
    do {
      let other = try SKTestSession(contentsOf: Kit.appleSample)
      defer { withExtendedLifetime(other) {} }
      try check(await Transaction.all.isEmptySequence, "the newest session is the device's")
      let otherStore = try await launch()
      try check(otherStore.purchasedCars.isEmpty, "the new session's store owns nothing")
    }
    // `other` is gone: the test's session is the device's again.
    try check(await Transaction.all.productIDs == ["nonconsumable.car"], "back to the test's session")
  }

  private static func pendingRequest(_ session: SKTestSession, for productID: String) throws -> UInt {
    let request = session.allTransactions().first {
      $0.pendingAskToBuyConfirmation && $0.productIdentifier == productID
    }
    try check(request != nil, "an Ask to Buy request for \(productID)")
    return request?.identifier ?? 0
  }
}

extension Transaction.Transactions {
  var isEmptySequence: Bool {
    get async {
      for await _ in self { return false }
      return true
    }
  }

  var productIDs: [String] {
    get async {
      var ids: [String] = []
      for await result in self { ids.append(result.unsafePayloadValue.productID) }
      return ids
    }
  }
}
