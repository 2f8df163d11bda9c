import LegacyIAP
import StoreKitTest
import XCTest

/// Failures reach the app as `NSError` and come back as `SKError`, as apps handle them.
final class IAPHelperErrorTests: XCTestCase {
  override class func setUp() {
    super.setUp()
    _ = IAPHelper.shared  // at launch: no session exists yet
  }

  func testAFailingPaymentComesBackAsTheSKErrorTheTestSet() throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    session.failTransactionsEnabled = true
    session.failureError = .invalidSignature
    let product = try products(["consumable.fuel.octane87"]).first
    var outcome: PurchaseOutcome?
    let done = expectation(description: "failed")
    IAPHelper.shared.purchase(try XCTUnwrap(product)) {
      outcome = $0; done.fulfill()
    }
    wait(for: [done], timeout: 10)
    XCTAssertEqual(outcome, .failed(productID: "consumable.fuel.octane87", code: .invalidSignature))
  }

  func testAnSKErrorBridgesToNSErrorAndBack() {
    let error = SKError(.paymentNotAllowed)
    let nsError = error as NSError
    XCTAssertEqual(nsError.domain, SKErrorDomain)
    XCTAssertEqual(nsError.code, SKError.Code.paymentNotAllowed.rawValue)
    XCTAssertEqual(IAPHelper.skError(from: nsError)?.code, .paymentNotAllowed)
    XCTAssertEqual(SKError(_nsError: nsError), error)
  }

  /// With no session (as on a device with no App Store account), a request fails with an `SKError`.
  func testAProductsRequestWithNoSessionFailsWithAnSKError() throws {
    var result: Result<[SKProduct], NSError>?
    let answered = expectation(description: "products")
    IAPHelper.shared.retrieveProducts(["nonconsumable.car"]) {
      result = $0; answered.fulfill()
    }
    wait(for: [answered], timeout: 10)
    guard case .failure(let error) = result else { return XCTFail("\(String(describing: result))") }
    XCTAssertEqual(error.domain, SKErrorDomain)
    XCTAssertEqual(IAPHelper.skError(from: error)?.code, .unknown)
  }

  func testTransactionsHaveNoDownloadsAndDownloadCallsAreAccepted() throws {
    let session = try SKTestSession(configurationFileNamed: "Products", bundle: .module)
    session.disableDialogs = true
    let product = try XCTUnwrap(try products(["nonconsumable.car"]).first)
    XCTAssertFalse(product.isDownloadable)
    let done = expectation(description: "bought")
    IAPHelper.shared.purchase(product) { _ in done.fulfill() }
    wait(for: [done], timeout: 10)
    let empty: [SKDownload] = []
    SKPaymentQueue.default().start(empty)
    SKPaymentQueue.default().pause(empty)
    SKPaymentQueue.default().resume(empty)
    SKPaymentQueue.default().cancel(empty)
    XCTAssertTrue(IAPHelper.shared.downloadStates.isEmpty)
  }

  private func products(_ ids: Set<String>) throws -> [SKProduct] {
    var result: Result<[SKProduct], NSError>?
    let answered = expectation(description: "products")
    IAPHelper.shared.retrieveProducts(ids) {
      result = $0; answered.fulfill()
    }
    wait(for: [answered], timeout: 10)
    return try XCTUnwrap(result).get()
  }
}
