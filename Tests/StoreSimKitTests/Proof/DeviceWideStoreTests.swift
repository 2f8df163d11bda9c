import Foundation
import StoreSimKit
import Testing

/// The proof, as StoreKitTest users write tests: the session made at the top of each test, no
/// closure around the app's code; serialized, since the session is device-wide.
@Suite("Proof: the app's store with a device-wide session", .serialized)
@MainActor
struct DeviceWideStoreTests {
  @Test func productsByTypeAndPrice() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.productsByTypeAndPrice(session)
  }

  @Test func buyAndEntitle() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.buyAndEntitle(session)
  }

  @Test func upgrade() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.upgrade(session)
  }

  @Test func renewThroughTheStoresListener() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.renewThroughTheStoresListener(session)
  }

  @Test func expire() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.expire(session)
  }

  @Test func askToBuyApproveAndDecline() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.askToBuyApproveAndDecline(session)
  }

  @Test func refund() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.refund(session)
  }

  @Test func purchaseMadeOutsideTheApp() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.purchaseMadeOutsideTheApp(session)
  }

  @Test func oneYearRule() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.oneYearRule(session)
  }

  @Test func noStateLeaks() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.noStateLeaks(session)
  }
}
