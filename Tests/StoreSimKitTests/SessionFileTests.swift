import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// The CLI's session files and StoreSimKit share the engine: a state prepared with the CLI (or
/// a scenario) loads into a test session, and a test session saves back for the CLI.
@Suite("Session files shared with the CLI", .isolatedTestSession)
struct SessionFileTests {
  /// A folder with a session file, and the built `storesim` binary run in it as another
  /// process (the Kit's tests link the Kit only, not the CLI module).
  final class Folder: Sendable {
    let path = NSTemporaryDirectory() + "storesimkit-" + UUID().uuidString

    init() throws {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    var session: URL { URL(fileURLWithPath: path + "/session.json") }

    /// Runs `storesim LINE --session FILE`; returns its standard output and exit code.
    @discardableResult
    func cli(_ line: String) -> (String, Int32) {
      let process = Process()
      process.executableURL = Kit.storesimBinary
      process.arguments = line.split(separator: " ").map(String.init) + ["--session", session.path]
      process.currentDirectoryURL = URL(fileURLWithPath: path)
      process.environment = ["PATH": "/usr/bin:/bin", "HOME": path]
      let out = Pipe()
      process.standardOutput = out
      process.standardError = FileHandle.nullDevice
      do { try process.run() } catch { return ("\(Kit.storesimBinary.path): \(error)", 127) }
      let data = out.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }
  }

  /// The Kit reads a session file as the CLI does (`SessionWork.read`): a configuration edited
  /// since the session was saved is reloaded.
  @Test func aSessionFileReadByTheKitReloadsAnEditedConfiguration() async throws {
    let folder = try Folder()
    let configuration = URL(fileURLWithPath: folder.path + "/Products.storekit")
    try Data(contentsOf: Kit.premium).write(to: configuration)
    #expect(folder.cli("init \(configuration.path) --start 2026-01-01T00:00:00Z").1 == 0)
    let text = try String(contentsOf: configuration, encoding: .utf8)
    let edited = text.replacingOccurrences(
      of: "\"com.example.premium.lifetime\"", with: "\"com.example.premium.forever\"")
    #expect(edited != text)
    try edited.write(to: configuration, atomically: true, encoding: .utf8)
    let session = try SKTestSession(sessionFileURL: folder.session)
    let products = try await session.run { try await Product.products(for: ["com.example.premium.forever"]) }
    #expect(products.count == 1)
  }

  @Test func aStatePreparedWithTheCLILoadsAndSavesBack() async throws {
    let folder = try Folder()
    #expect(folder.cli("init \(Kit.premium.path) --start 2026-01-01T00:00:00Z").1 == 0)
    #expect(folder.cli("buy com.example.premium.monthly").1 == 0)
    #expect(folder.cli("advance 1w").1 == 0)

    let session = try SKTestSession(sessionFileURL: folder.session)
    #expect(session.now == Kit.date("2026-01-08T00:00:00Z"))
    try await session.run {
      let entitled = await collect(Transaction.currentEntitlements)
      #expect(entitled.map(\.productID) == ["com.example.premium.monthly"])
      #expect(entitled.first?.reason == .renewal)
      // The unfinished transactions the CLI left are replayed to the app's first listener.
      var updates = Transaction.updates.makeAsyncIterator()
      #expect(await updates.next()?.unsafePayloadValue.reason == .purchase)
      let lifetime = try #require(try await Product.products(for: ["com.example.premium.lifetime"]).first)
      _ = try await lifetime.purchase()
    }
    try session.advance(by: 31 * Kit.day)
    try session.save(to: folder.session)

    let (text, code) = folder.cli("entitlements")
    #expect(code == 0)
    #expect(text.contains("com.example.premium.lifetime"))
    #expect(folder.cli("now").0.contains("2026-02-08"))
    #expect(folder.cli("buy com.example.coins.100").1 == 0)
    let reloaded = try SKTestSession(sessionFileURL: folder.session)
    #expect(reloaded.allTransactions().map(\.productIdentifier).contains("com.example.coins.100"))
  }

  /// Finish Transaction through the App Store Server API (what `storesim serve` answers, here
  /// through `storesim api`) finishes it for the app: it is no longer in `Transaction.unfinished`.
  @Test func aTransactionFinishedByTheServerAPIIsFinishedForTheApp() async throws {
    let folder = try Folder()
    #expect(folder.cli("init \(Kit.premium.path) --start 2026-01-01T00:00:00Z").1 == 0)
    #expect(folder.cli("buy com.example.coins.100").1 == 0)
    #expect(folder.cli("buy com.example.premium.lifetime").1 == 0)
    #expect(folder.cli("api POST /inApps/v1/transactions/2000000000000001/finish").1 == 0)
    let session = try SKTestSession(sessionFileURL: folder.session)
    await session.run {
      let unfinished = await collect(Transaction.unfinished)
      #expect(unfinished.map(\.productID) == ["com.example.premium.lifetime"])
    }
  }

  @Test func aSessionCreatedByAKitTestOpensInTheCLI() async throws {
    let folder = try Folder()
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.buyProduct(identifier: "subscription.premium")
    try session.save(to: folder.session)
    let (text, code) = folder.cli("status")
    #expect(code == 0)
    #expect(text.contains("subscription.premium"))
    #expect(throws: SKTestError.self) {
      try SKTestSession(sessionFileURL: URL(fileURLWithPath: folder.path + "/none.json"))
    }
  }
}
