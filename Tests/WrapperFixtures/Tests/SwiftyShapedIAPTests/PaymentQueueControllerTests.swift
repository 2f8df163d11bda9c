import StoreKitTest
import SwiftyShapedIAP
import XCTest

/// The SwiftyStoreKit-shaped controller (Swift 6 mode) buys through the process's queue.
final class PaymentQueueControllerTests: XCTestCase {
  func testAControllerMadeOffTheMainActorIsToldOfItsPurchase() throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    let controller = PaymentQueueController()
    XCTAssertTrue(SKPaymentQueue.default().transactionObservers.contains { $0 === controller })
    let bought = expectation(description: "bought")
    controller.onPurchase = { _ in bought.fulfill() }
    controller.buy("nonconsumable.car")
    wait(for: [bought], timeout: 10)
    XCTAssertEqual(controller.purchased, ["nonconsumable.car"])
    XCTAssertEqual(session.allTransactions().map(\.productIdentifier), ["nonconsumable.car"])
  }
}
