import Foundation
import StoreSimSync
import Testing

@testable import StoreSim
@testable import StoreSimSession

/// `SessionWork`: one use of a session file is locked, loaded, acted on and saved, in order.
@Suite struct SessionWorkTests {
  /// A session file made by the CLI in a fresh folder.
  static func session() throws -> (CLIHarness, SessionLocation) {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    return (cli, try SessionLocation(shown: cli.folder + "/.storesim/session.json", resolve: { $0 }))
  }

  /// The session's lock is held while the body acts: another writer cannot take it then.
  @Test func theLockIsHeldWhileTheBodyActs() throws {
    let (cli, location) = try Self.session()
    let work = SessionWork(location: location, warn: { _ in })
    let refused = try work.perform(mutating: true) { _ in
      do {
        _ = try SessionLock(location, forWriting: true, deadline: WaitClock.system.deadline(after: 0.05))
        return false
      } catch is SessionLock.Busy {
        return true
      }
    } plan: { _, _ in
      ()
    }.value
    #expect(refused)
    withExtendedLifetime(cli) {}
  }

  /// A change is saved, and what `plan` sees is the changed store with the count before.
  @Test func aChangeIsSavedAndPlannedFromTheChangedStore() throws {
    let (cli, location) = try Self.session()
    let work = SessionWork(location: location, warn: { _ in })
    let (_, counts) = try work.perform(mutating: true) { store in
      _ = try store.purchase("nonconsumable.car")
    } plan: { store, before in
      (before, store.notifications.count)
    }
    #expect(counts.0 < counts.1)
    let saved = try SessionFile.read(location.file, shownAs: location.shown)
    #expect(saved.state.notifications.count == counts.1)
    withExtendedLifetime(cli) {}
  }

  /// A body that throws saves nothing: the file keeps its bytes.
  @Test func aThrowingBodySavesNothing() throws {
    let (cli, location) = try Self.session()
    let before = try Data(contentsOf: URL(fileURLWithPath: location.file))
    let work = SessionWork(location: location, warn: { _ in })
    #expect(throws: StoreError.self) {
      _ = try work.perform(mutating: true) { store in
        _ = try store.purchase("nonconsumable.car")
        _ = try store.purchase("no.such.product")
      } plan: { _, _ in
        ()
      }
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: location.file)) == before)
    withExtendedLifetime(cli) {}
  }

  /// A front end that keeps the store between uses (`serve`, the shell, `manage`) reads the
  /// file again only when it changed: two reads of an unchanged file are one generation, and a
  /// save by another unit of work makes the next read a new one, which sees the change.
  @Test func aKeptSessionIsReadAgainOnlyWhenTheFileChanged() throws {
    let (cli, location) = try Self.session()
    let work = SessionWork(location: location, warn: { _ in })
    var kept = SessionWork.Kept()
    try work.perform(keeping: &kept, mutating: false) { $0 }
    let first = kept.generation
    try work.perform(keeping: &kept, mutating: false) { $0 }
    #expect(kept.generation == first)
    #expect(kept.storeIfUnchanged(location, needsNotifications: true) != nil)
    _ = try work.perform(mutating: true) { store in
      _ = try store.purchase("nonconsumable.car")
    } plan: { _, _ in
      ()
    }
    #expect(kept.storeIfUnchanged(location, needsNotifications: true) == nil)
    let store = try work.perform(keeping: &kept, mutating: false) { $0 }
    #expect(kept.generation == first + 1)
    #expect(!store.notifications.isEmpty)
    withExtendedLifetime(cli) {}
  }
}
