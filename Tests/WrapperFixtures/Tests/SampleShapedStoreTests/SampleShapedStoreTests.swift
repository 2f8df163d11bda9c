import SampleShapedStore
import StoreKitTest
import XCTest

/// Tests as users of Apple's sample store write them: a new `SKTestSession` in `setUp`, a new
/// `Store` in each test, never cancelled (its listener task holds it, as in the sample), so
/// that every earlier test's store is still alive and listening, and its listener has moved to
/// the newest session with the device. Each test reaches the store only through its
/// `Transaction.updates` listener, right after making it, and polls the store for up to 5 s.
/// Against StoreSimKit before issue 44's fix (5957aa3), where an earlier store's listener could
/// take and finish the transaction first, 8 of 10 runs of this case failed.
final class SampleShapedStoreTests: XCTestCase {
  var session: SKTestSession!

  override func setUpWithError() throws {
    session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    session.clearTransactions()
  }

  // XCTest keeps every test case object until the run ends: let the session go with the test.
  override func tearDown() {
    session = nil
  }

  // Runs first: its store is the first of the earlier stores the later tests run beside.
  func testAProductsRequestFillsTheStore() async throws {
    let store = Store()
    let loaded = await poll("its products") { store.cars.count == 3 && store.nonRenewables.count == 1 }
    XCTAssertTrue(loaded)
    let cars = await store.cars.map(\.id)
    XCTAssertEqual(cars, ["nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar"])
    let fuel = await store.fuel.map(\.id)
    XCTAssertEqual(fuel, ["consumable.fuel.octane87", "consumable.fuel.octane89", "consumable.fuel.octane91"])
    let subscriptions = await store.subscriptions.map(\.id)
    XCTAssertEqual(subscriptions, ["subscription.standard", "subscription.premium", "subscription.pro"])
  }

  func testAnApprovedAskToBuyPurchaseReachesTheStore() async throws {
    let store = Store()
    session.askToBuyEnabled = true
    let loaded = await poll("the products") { !store.cars.isEmpty }
    XCTAssertTrue(loaded)
    let cars = await store.cars
    let car = try XCTUnwrap(cars.first { $0.id == "nonconsumable.racecar" })
    let transaction = try await store.purchase(car)
    XCTAssertNil(transaction)  // pending: it waits for a parent's approval
    let request = try XCTUnwrap(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
    XCTAssertEqual(request.productIdentifier, "nonconsumable.racecar")
    try session.approveAskToBuyTransaction(identifier: request.identifier)
    let owned = await poll("the approved race car, handled by the listener") {
      store.purchasedCars.map(\.id) == ["nonconsumable.racecar"]
        && store.handledUpdates.map(\.productID) == ["nonconsumable.racecar"]
    }
    XCTAssertTrue(owned)
  }

  func testARefundReachesTheStore() async throws {
    let store = Store()
    let bought = try await session.buyProduct(identifier: "nonconsumable.utilityvehicle")
    let owned = await poll("the utility vehicle, handled by the listener") {
      store.purchasedCars.map(\.id) == ["nonconsumable.utilityvehicle"] && store.handledUpdates.count == 1
    }
    XCTAssertTrue(owned)
    try session.refundTransaction(identifier: UInt(bought.id))
    let refunded = await poll("the refund") {
      store.purchasedCars.isEmpty && store.handledUpdates.contains { $0.id == bought.id && $0.isRevoked }
    }
    XCTAssertTrue(refunded)
    let handled = await store.handledUpdates
    XCTAssertEqual(handled.map(\.isRevoked), [false, true])
  }

  func testARenewalAfterTheClockMovesReachesTheStore() async throws {
    let store = Store()
    try await session.buyProduct(identifier: "subscription.standard")
    try session.advance(by: 40 * 24 * 60 * 60)
    let renewed = await poll("a renewal of the subscription") {
      store.purchasedSubscriptions.map(\.id) == ["subscription.standard"]
        && store.handledUpdates.contains { $0.productID == "subscription.standard" && $0.isRenewal }
    }
    XCTAssertTrue(renewed)
    let handled = await store.handledUpdates
    XCTAssertEqual(handled.first?.isRenewal, false)  // the purchase came first
    XCTAssertTrue(handled.allSatisfy { $0.productID == "subscription.standard" })
  }

  // XCTest runs a class's tests in the order of their names: this one runs last, after three
  // stores of earlier tests (listening, moved to this session) that finish what they hear.
  func testThePurchaseOfACarOutsideTheAppReachesTheStore() async throws {
    let store = Store()
    try await session.buyProduct(identifier: "nonconsumable.car")
    // The store's `Task {}` may see the car first, when it reads the entitlements after loading
    // the products: the listener must have handled it too.
    let owned = await poll("the car bought outside the app, handled by the listener") {
      store.purchasedCars.map(\.id) == ["nonconsumable.car"]
        && store.handledUpdates.map(\.productID) == ["nonconsumable.car"]
    }
    XCTAssertTrue(owned)
  }

  /// Asks the store every 10 ms, for up to 5 s, whether `condition` holds; fails the test when
  /// it never does.
  private func poll(
    _ what: String, file: StaticString = #filePath, line: UInt = #line,
    _ condition: @escaping @MainActor @Sendable () -> Bool
  ) async -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
      if await MainActor.run(body: condition) { return true }
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    XCTFail("the store never had \(what) within 5 s", file: file, line: line)
    return false
  }
}
