import Foundation
import StoreSimKit

/// Configurations of the repository, found from this file so a clean clone needs no setup.
enum Kit {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let appleSample = root.appendingPathComponent("Configurations/AppleSample.storekit")
  static let premium = root.appendingPathComponent("Configurations/Premium.storekit")

  static let day: TimeInterval = 86_400

  /// 2026-01-01T00:00:00Z, the sessions' start.
  static let start = Date(timeIntervalSince1970: 1_767_225_600)

  static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

  /// The `storesim` binary `swift build` put beside this test bundle (every product of the
  /// package is built into one folder); tests that need the CLI run it as a process.
  static let storesimBinary: URL = {
    // Linux: the test executable's folder; macOS: the folder holding the `.xctest` bundle.
    let folders =
      [Bundle.main.executableURL?.deletingLastPathComponent()].compactMap { $0 }
      + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
    let candidates = folders.map { $0.appendingPathComponent("storesim") }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
      ?? root.appendingPathComponent(".build/debug/storesim")
  }()
}

extension SKTestSession {
  /// Notification names (`TYPE` or `TYPE/SUBTYPE`) from an index on.
  func notificationNames(since index: Int = 0) -> [String] {
    Array(notifications.dropFirst(index).map(\.name))
  }
}

/// Creates the app's store inside the current session and waits for its first load, as an app
/// would show its store screen after launch.
@MainActor
func makeStore(_ session: SKTestSession, productIDs: [String] = SampleStore.defaultProductIDs) async -> SampleStore {
  let store = SampleStore(productIDs: productIDs, now: { session.now })
  await store.initialLoad?.value
  return store
}

/// Collects what a sequence yields.
func collect(_ sequence: Transaction.Transactions) async -> [Transaction] {
  var result: [Transaction] = []
  for await r in sequence { result.append(r.unsafePayloadValue) }
  return result
}
