import Foundation
import StoreSimKit
import Testing

@Suite("StoreSimKit basics")
struct SmokeTests {
  @Test func fiveLineTest() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.run {
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      guard case .success(.verified(let transaction)) = try await car.purchase() else { Issue.record("not purchased"); return }
      #expect(await collect(Transaction.currentEntitlements).map(\.id) == [transaction.id])
    }
  }
}
