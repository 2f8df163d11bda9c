import LegacyIAP
import StoreKitTest
import XCTest

/// A restore that reads the restored products from `SKPaymentQueue.transactions` after its
/// observer finished each of them (jinSasaki/InAppPurchase's pattern) returns them: a finished
/// transaction leaves the queue only when observers are told it was removed, later.
final class QueueReadingRestorerTests: XCTestCase {
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

  func testARestoreReturnsTheRestoredProductsItFinished() async throws {
    try await session.buyProduct(identifier: "nonconsumable.car")
    try await session.buyProduct(identifier: "subscription.pro")
    let restorer = QueueReadingRestorer()
    defer { restorer.stop() }
    var result: Result<[String], NSError>?
    let restored = expectation(description: "restored")
    restorer.restore {
      result = $0
      restored.fulfill()
    }
    await fulfillment(of: [restored], timeout: 10)
    let ids = try XCTUnwrap(result).get()
    XCTAssertEqual(ids.sorted(), ["nonconsumable.car", "subscription.pro"])
    XCTAssertEqual(restorer.queueSizesWhenFinishing.count, 2)
    XCTAssertTrue(restorer.queueSizesWhenFinishing.allSatisfy { $0 >= 1 })
    await session.waitForTransactionUpdates()
    XCTAssertFalse(SKPaymentQueue.default().transactions.contains { $0.transactionState == .restored })
  }

  func testARestoreWithNothingToRestoreReturnsNothing() async throws {
    let restorer = QueueReadingRestorer()
    defer { restorer.stop() }
    var result: Result<[String], NSError>?
    let restored = expectation(description: "restored")
    restorer.restore {
      result = $0
      restored.fulfill()
    }
    await fulfillment(of: [restored], timeout: 10)
    XCTAssertEqual(try XCTUnwrap(result).get(), [])
  }
}
