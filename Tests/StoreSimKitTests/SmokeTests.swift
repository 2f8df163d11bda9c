import Foundation
import StoreSimKit
import Testing

@Suite("StoreSimKit basics")
struct SmokeTests {
  /// The README's five-line test, verbatim but for the configuration's URL.
  @Test func buyingACarEntitlesIt() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.run {
      let car = try await Product.products(for: ["nonconsumable.car"]).first!
      guard case .success(.verified(let t)) = try await car.purchase() else { Issue.record("not bought"); return }
      #expect(await Transaction.currentEntitlements.contains { (try? $0.payloadValue.id) == t.id })
    }
  }
}

@Suite("StoreSimKit has no wall clock")
struct WallClockTests {
  /// The module's clock is the session's: its sources never read the wall clock.
  @Test func theModuleNeverReadsTheWallClock() throws {
    let folder = Kit.root.appendingPathComponent("Sources/StoreSimKit")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
    #expect(files.count >= 5)
    let forbidden = [
      "Date()", "Date.now", "Date.init()", "timeIntervalSinceNow", "CFAbsoluteTimeGetCurrent",
      "ProcessInfo.processInfo.systemUptime", "ContinuousClock", "SuspendingClock", "Task.sleep",
    ]
    for file in files {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      for word in forbidden {
        #expect(!text.contains(word), "\(file) uses \(word)")
      }
    }
  }
}
