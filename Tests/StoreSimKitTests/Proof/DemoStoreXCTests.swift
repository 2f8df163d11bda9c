import Foundation
import StoreSimKit
import XCTest

/// The proof in XCTest, as StoreKitTest users write it: the session made in `setUp`, kept for
/// the test, and let go in `tearDown`.
final class DemoStoreXCTests: XCTestCase {
  var session: SKTestSession!

  override func setUpWithError() throws {
    session = try SKTestSession(contentsOf: Kit.appleSample)
    session.disableDialogs = true
  }

  override func tearDown() {
    session = nil
  }

  func testProductsByTypeAndPrice() async throws { try await StoreScenarios.productsByTypeAndPrice(session) }
  func testBuyAndEntitle() async throws { try await StoreScenarios.buyAndEntitle(session) }
  func testUpgrade() async throws { try await StoreScenarios.upgrade(session) }
  func testRenewThroughTheStoresListener() async throws {
    try await StoreScenarios.renewThroughTheStoresListener(session)
  }
  func testExpire() async throws { try await StoreScenarios.expire(session) }
  func testAskToBuyApproveAndDecline() async throws { try await StoreScenarios.askToBuyApproveAndDecline(session) }
  func testRefund() async throws { try await StoreScenarios.refund(session) }
  func testPurchaseMadeOutsideTheApp() async throws { try await StoreScenarios.purchaseMadeOutsideTheApp(session) }
  func testOneYearRule() async throws { try await StoreScenarios.oneYearRule(session) }
  func testNoStateLeaks() async throws { try await StoreScenarios.noStateLeaks(session) }
}
