import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// StoreSimKit saves a session file the way the CLI does: under the session's lock, and never
/// over a change another process made since the session was read.
@Suite("Session files written by StoreSimKit and the CLI at once", .isolatedTestSession)
struct SessionFileSharingTests {
  /// The CLI buys on one thread while StoreSimKit reads the same file, buys and saves on
  /// another; a save that would undo a CLI purchase is refused, and the file then holds every
  /// purchase that either side reported done.
  @Test func aKitSaveBesideCLIBuysKeepsEveryAcknowledgedWrite() async throws {
    let folder = try SessionFileTests.Folder()
    #expect(folder.cli("init \(Kit.appleSample.path) --start 2026-01-01T00:00:00Z").1 == 0)
    let cliBuys = 12
    let kitSaves = 6
    let cliDone = DispatchSemaphore(value: 0)
    let cliAcknowledged = SessionFileSharingTests.Count()
    Thread.detachNewThread {
      for _ in 0..<cliBuys where folder.cli("buy consumable.fuel.octane87").1 == 0 { cliAcknowledged.add() }
      cliDone.signal()
    }
    var kitAcknowledged = 0
    var refused = 0
    while kitAcknowledged < kitSaves && refused < 1_000 {
      let session = try SKTestSession(sessionFileURL: folder.session)
      try await session.buyProduct(identifier: "consumable.fuel.octane89")
      do {
        try session.save(to: folder.session)
        kitAcknowledged += 1
      } catch let error as SKTestError where error.code == .invalidAction {
        refused += 1
      }
    }
    cliDone.wait()
    let saved = try SKTestSession(sessionFileURL: folder.session).allTransactions()
    #expect(cliAcknowledged.value == cliBuys)
    #expect(kitAcknowledged == kitSaves)
    #expect(saved.filter { $0.productIdentifier == "consumable.fuel.octane87" }.count == cliAcknowledged.value)
    #expect(saved.filter { $0.productIdentifier == "consumable.fuel.octane89" }.count == kitAcknowledged)
  }

  /// A save over a file another process changed since this session read it is refused, and
  /// leaves the file as the other process saved it.
  @Test func aSaveOverAChangedFileIsRefusedAndChangesNothing() async throws {
    let folder = try SessionFileTests.Folder()
    #expect(folder.cli("init \(Kit.appleSample.path) --start 2026-01-01T00:00:00Z").1 == 0)
    let session = try SKTestSession(sessionFileURL: folder.session)
    try await session.buyProduct(identifier: "consumable.fuel.octane89")
    #expect(folder.cli("buy consumable.fuel.octane87").1 == 0)
    let before = try Data(contentsOf: folder.session)
    #expect(throws: SKTestError(.invalidAction, "")) { try session.save(to: folder.session) }
    #expect(try Data(contentsOf: folder.session) == before)
  }

  final class Count: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
  }
}
