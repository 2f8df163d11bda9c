import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// The proof's second suite: with the `.isolatedTestSession` trait each test (each case of a
/// parameterized test too) has a device of its own, so the same device-wide tests run in
/// parallel without seeing each other.
@Suite("Proof: parallel tests isolated by the trait", .isolatedTestSession)
@MainActor
struct IsolatedStoreTests {
  static let cars = ["nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar"]

  @Test(arguments: 0..<12)
  func eachTestSeesOnlyItsOwnSession(round: Int) async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let id = Self.cars[round % 3]
    let store = DemoStore()
    // Bought at once: the store's listener task may not have started yet.
    try await session.buyProduct(identifier: id)
    // Waits for the listener on its way, then for it to handle the purchase.
    await session.waitForTransactionUpdates()
    #expect(await Transaction.unfinished.isEmptySequence)
    #expect(await Transaction.all.productIDs == [id])
    try await eventually("the store shows the car") { store.purchasedCars.map(\.id) == [id] }
  }

  @Test func theScenariosRunIsolatedToo() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.askToBuyApproveAndDecline(session)
  }

  @Test func renewalsToo() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await StoreScenarios.renewThroughTheStoresListener(session)
  }
}
