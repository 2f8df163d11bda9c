import ModernIAP
import StoreKitTest
import XCTest

/// Tests as users of a StoreKit 2 helper write them: a new `SKTestSession` at the top of each
/// test, the app's shared service kept across tests with its product cache.
final class StoreServiceTests: XCTestCase {
  func testACachedProductBuysIntoTheCurrentSession() async throws {
    let first = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    let service = StoreService()
    let carFetched = try await service.products(["nonconsumable.car"])
    let car = try XCTUnwrap(carFetched.first)
    XCTAssertEqual(first.allTransactions().count, 0)

    let second = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    second.disableDialogs = true
    let cachedFetched = try await service.products(["nonconsumable.car"])
    let cached = try XCTUnwrap(cachedFetched.first)
    XCTAssertEqual(service.fetches, 1)  // from the cache: the product of the first session
    XCTAssertEqual(cached, car)
    let transaction = try await service.purchase(cached)
    XCTAssertEqual(transaction?.productID, "nonconsumable.car")
    XCTAssertEqual(second.allTransactions().map(\.productIdentifier), ["nonconsumable.car"])
    XCTAssertEqual(first.allTransactions().count, 0)
    let owned = await service.entitlements()
    XCTAssertEqual(owned, ["nonconsumable.car"])
  }

  func testTheSharedServiceBuysInEachTestsOwnSession() async throws {
    for round in 0..<3 {
      let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
      session.disableDialogs = true
      let ids = ["nonconsumable.car", "nonconsumable.racecar", "nonconsumable.utilityvehicle"]
      let products = try await StoreService.shared.products(ids)
      try await StoreService.shared.purchase(products[round])
      let owned = await StoreService.shared.entitlements()
      XCTAssertEqual(owned, [ids[round]])
      XCTAssertEqual(session.allTransactions().map(\.productIdentifier), [ids[round]])
    }
  }

  func testPurchaseOptionsOfEveryValueTypeAndAnAccountToken() async throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    let fuelFetched = try await StoreService.shared.products(["consumable.fuel.octane87"])
    let fuel = try XCTUnwrap(fuelFetched.first)
    let account = UUID()
    let transaction = try await StoreService.shared.purchase(fuel, quantity: 3, account: account)
    XCTAssertEqual(transaction?.purchasedQuantity, 3)
    XCTAssertEqual(transaction?.appAccountToken, account)
  }

  func testPricesAreFormattedWithTheProductsStyleAndLocale() async throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    defer { withExtendedLifetime(session) {} }
    let racecarFetched = try await StoreService.shared.products(["nonconsumable.racecar"])
    let racecar = try XCTUnwrap(racecarFetched.first)
    XCTAssertEqual(StoreService.shared.formattedPrice(racecar), racecar.displayPrice)
    XCTAssertEqual(StoreService.shared.formattedPrice(racecar, times: 2), "$9.98")
    XCTAssertEqual(StoreService.shared.currencyCode(racecar), "USD")
  }

  func testAPromotedPurchaseReachesTheAppThroughPurchaseIntents() async throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    let service = StoreService()
    let bought = expectation(description: "promoted purchase")
    let listener = service.handlePurchaseIntents { _ in bought.fulfill() }
    defer { listener.cancel() }
    try session.simulatePromotedPurchase(productIdentifier: "nonconsumable.racecar")
    await fulfillment(of: [bought], timeout: 10)
    XCTAssertEqual(service.promoted, ["nonconsumable.racecar"])
    XCTAssertTrue(session.allTransactions().contains { $0.productIdentifier == "nonconsumable.racecar" })
  }

  func testTheLaunchListenerHearsTheFirstTestsSession() async throws {
    try await purchaseOutsideTheApp("nonconsumable.utilityvehicle")
  }

  func testTheLaunchListenerHearsTheSecondTestsSession() async throws {
    try await purchaseOutsideTheApp("subscription.standard")
  }

  /// The shared service's listener, started once (by whichever test runs first), finishes a
  /// purchase made outside the app in this test's session.
  private func purchaseOutsideTheApp(_ id: String) async throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    StoreService.shared.listenForTransactions()
    try await session.buyProduct(identifier: id)
    await session.waitForTransactionUpdates()
    XCTAssertEqual(StoreService.shared.finishedByListener.last, id)
    let unfinished = await StoreService.shared.unfinishedCount()
    XCTAssertEqual(unfinished, 0)
  }

  func testPurchaseErrorsSayWhatWentWrong() {
    XCTAssertEqual(
      StoreService.message(for: StoreKit.Product.PurchaseError.invalidQuantity),
      "The quantity is not valid for this product.")
    XCTAssertEqual(
      StoreService.message(for: StoreKit.Transaction.RefundRequestError.duplicateRequest),
      "A refund request for this transaction is already open.")
  }
}
