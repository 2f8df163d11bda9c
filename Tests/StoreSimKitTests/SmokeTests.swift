import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

@Suite("StoreSimKit basics", .isolatedTestSession)
struct SmokeTests {
  /// The README's device-wide form, with `DemoStore` as the app's store: the session at the
  /// top of the test, no closure (the suite's trait gives the test a device of its own).
  @Test @MainActor func buyingACarEntitlesIt() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.disableDialogs = true
    let store = DemoStore()
    await store.requestProducts()
    let car = store.cars.first { $0.id == "nonconsumable.car" }!
    _ = try await store.purchase(car)
    #expect(try await store.isPurchased(car))
    try await session.buyProduct(identifier: "nonconsumable.racecar")
    await session.waitForTransactionUpdates()
    #expect(store.purchasedCars.count == 2)
  }
}

@Suite("StoreSimKit reads the wall clock once", .isolatedTestSession)
struct WallClockTests {
  /// The module's clock is the session's: its sources read the wall clock in one place only,
  /// where a session created without a start date starts.
  @Test func theModuleReadsTheWallClockOnlyForASessionsStart() throws {
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
        let allowed = file == "WallClock.swift" && ["Date()", "Task.sleep"].contains(word)
        #expect(allowed || !text.contains(word), "\(file) uses \(word)")
      }
    }
    let clock = try String(contentsOf: folder.appendingPathComponent("WallClock.swift"), encoding: .utf8)
    #expect(clock.components(separatedBy: "Date()").count == 2)
  }

  /// A session starts at the wall clock unless given a start date, so the app's `Date()` and
  /// the session agree; `advance` moves the session ahead.
  @Test func aSessionStartsAtTheWallClock() throws {
    let before = Date().timeIntervalSince1970.rounded(.down)
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let after = Date().timeIntervalSince1970
    #expect(session.now.timeIntervalSince1970 >= before)
    #expect(session.now.timeIntervalSince1970 <= after)
    #expect(session.now.timeIntervalSince1970 == session.now.timeIntervalSince1970.rounded(.down))
    try session.advance(by: Kit.day)
    #expect(session.now.timeIntervalSince1970 >= before + Kit.day)
    #expect(try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start).now == Kit.start)
  }
}
