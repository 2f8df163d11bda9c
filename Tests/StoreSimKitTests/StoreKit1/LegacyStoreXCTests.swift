import Foundation
import StoreSimKit
import XCTest

/// The StoreKit 1 proof in XCTest, as StoreKit 1 tests are usually written: the session made in
/// `setUp` (the process's device), the app's store created as at launch, and expectations the
/// store's callbacks fulfil.
final class LegacyStoreXCTests: XCTestCase {
  var session: SKTestSession!

  override func setUpWithError() throws {
    session = try SKTestSession(contentsOf: Kit.appleSample)
  }

  override func tearDown() {
    session = nil
  }

  /// XCTest on Linux runs test methods on the main thread but cannot run `@MainActor` ones;
  /// the body asserts it is on the main actor instead.
  func testBuyRestoreAndAskToBuy() throws {
    let session: SKTestSession = try XCTUnwrap(session)
    try MainActor.assumeIsolated { try Self.buyRestoreAndAskToBuy(session) }
  }

  @MainActor
  private static func buyRestoreAndAskToBuy(_ session: SKTestSession) throws {
    let store = LegacyStore()
    var expectation = XCTestExpectation(description: "products")
    store.onChange = { if store.productsRequestFinished { expectation.fulfill() } }
    store.requestProducts(["nonconsumable.car", "nonconsumable.racecar"])
    XCTAssertEqual(XCTWaiter().wait(for: [expectation], timeout: 10), .completed)
    XCTAssertEqual(store.products.count, 2)

    expectation = XCTestExpectation(description: "car")
    store.onChange = { if store.unlocked.contains("nonconsumable.car") { expectation.fulfill() } }
    store.buy("nonconsumable.car")
    XCTAssertEqual(XCTWaiter().wait(for: [expectation], timeout: 10), .completed)
    XCTAssertEqual(store.log, ["purchasing nonconsumable.car", "purchased nonconsumable.car"])

    session.askToBuyEnabled = true
    expectation = XCTestExpectation(description: "deferred")
    store.onChange = { if !store.waitingForApproval.isEmpty { expectation.fulfill() } }
    store.buy("nonconsumable.racecar")
    XCTAssertEqual(XCTWaiter().wait(for: [expectation], timeout: 10), .completed)
    store.onChange = nil
    let request = try XCTUnwrap(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
    try session.approveAskToBuyTransaction(identifier: request.identifier)
    XCTAssertEqual(store.unlocked, ["nonconsumable.car", "nonconsumable.racecar"])  // told before it returned

    expectation = XCTestExpectation(description: "restore")
    store.onChange = { if store.restoreFinished { expectation.fulfill() } }
    store.restorePurchases()
    XCTAssertEqual(XCTWaiter().wait(for: [expectation], timeout: 10), .completed)
    XCTAssertEqual(store.log.suffix(2), ["restored nonconsumable.car", "restored nonconsumable.racecar"])
    store.stopObserving()
  }
}
