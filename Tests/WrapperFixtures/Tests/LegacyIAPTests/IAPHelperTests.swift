import LegacyIAP
import StoreKitTest
import XCTest

/// Tests as users of a StoreKit 1 helper write them: a new `SKTestSession` in `setUp`, the
/// helper made once for the process before any session (as at app launch), callbacks awaited
/// with expectations. Ten tests each buy one product in a session of their own: each sees its
/// own purchase only, and the helper, its unowned queue and its observer outlive every session.
final class IAPHelperTests: XCTestCase {
  var session: SKTestSession!

  override class func setUp() {
    super.setUp()
    _ = IAPHelper.shared  // at launch: no session exists yet
  }

  override func setUpWithError() throws {
    session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    session.clearTransactions()
  }

  override func tearDown() {
    session = nil
  }

  private let products = [
    "nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar", "subscription.standard",
    "subscription.premium", "subscription.pro", "nonconsumable.car", "nonconsumable.racecar",
    "subscription.standard", "nonconsumable.utilityvehicle",
  ]

  func test01() throws { try buyAndRestore(0) }
  func test02() throws { try buyAndRestore(1) }
  func test03() throws { try buyAndRestore(2) }
  func test04() throws { try buyAndRestore(3) }
  func test05() throws { try buyAndRestore(4) }
  func test06() throws { try buyAndRestore(5) }
  func test07() throws { try buyAndRestore(6) }
  func test08() throws { try buyAndRestore(7) }
  func test09() throws { try buyAndRestore(8) }
  func test10() throws { try buyAndRestore(9) }

  /// Buys product `index` and restores: the restore holds that purchase and nothing of an
  /// earlier test's session.
  private func buyAndRestore(_ index: Int) throws {
    let helper = IAPHelper.shared
    XCTAssertTrue(SKPaymentQueue.default() === SKPaymentQueue.default())
    XCTAssertTrue(SKPaymentQueue.default().transactionObservers.contains { $0 === helper })
    XCTAssertTrue(SKPaymentQueue.default().transactions.isEmpty)

    let product = try retrieve(products[index])
    var outcome: PurchaseOutcome?
    let bought = expectation(description: "bought")
    helper.purchase(product) {
      outcome = $0; bought.fulfill()
    }
    wait(for: [bought], timeout: 10)
    guard case .purchased(let id, _) = outcome else { return XCTFail("\(String(describing: outcome))") }
    XCTAssertEqual(id, products[index])
    XCTAssertEqual(session.allTransactions().map(\.productIdentifier), [products[index]])

    var restoredIDs: [String] = []
    let restored = expectation(description: "restored")
    helper.restorePurchases { ids, error in
      XCTAssertNil(error)
      restoredIDs = ids
      restored.fulfill()
    }
    wait(for: [restored], timeout: 10)
    XCTAssertEqual(restoredIDs, [products[index]])
  }

  /// Asks for one product through a request nobody keeps.
  private func retrieve(_ id: String) throws -> SKProduct {
    var result: Result<[SKProduct], NSError>?
    let answered = expectation(description: "products")
    IAPHelper.shared.retrieveProducts([id]) {
      result = $0; answered.fulfill()
    }
    wait(for: [answered], timeout: 10)
    let products = try XCTUnwrap(result).get()
    return try XCTUnwrap(products.first)
  }
}
