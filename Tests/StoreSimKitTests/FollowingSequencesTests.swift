import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// A long-lived object's update sequence, made through the device's session, outlives test
/// sessions as on a device (each test here is a device of its own; the sessions it makes one
/// after the other are its "tests").
@Suite("Update sequences of long-lived objects", .isolatedTestSession)
struct FollowingSequencesTests {
  /// (rule update-sequences-follow-the-devices-session)
  @Test(.timeLimit(.minutes(1)))
  func updateSequencesFollowTheDevicesSession() async throws {
    var first: SKTestSession? = try SKTestSession(contentsOf: Kit.appleSample)
    let updates = Transaction.updates  // made once, as a shared store does at launch
    var iterator = updates.makeAsyncIterator()
    try await first?.buyProduct(identifier: "nonconsumable.car")
    #expect(await iterator.next()?.unsafePayloadValue.productID == "nonconsumable.car")
    first = nil

    let second = try SKTestSession(contentsOf: Kit.appleSample)
    let waiting = Task { await iterator.next()?.unsafePayloadValue.productID }
    try await second.buyProduct(identifier: "nonconsumable.racecar")
    #expect(await waiting.value == "nonconsumable.racecar")
    #expect(second.allTransactions().map(\.productIdentifier) == ["nonconsumable.racecar"])
  }

  /// (rule update-sequences-follow-the-devices-session)
  @Test(.timeLimit(.minutes(1)))
  func aWaitingListenerMovesWhenTheNextSessionIsMade() async throws {
    let first = try SKTestSession(contentsOf: Kit.appleSample)
    let updates = Transaction.updates
    let listener = Task { () -> [String] in
      var ids: [String] = []
      for await update in updates {
        ids.append(update.unsafePayloadValue.productID)
        if ids.count == 2 { break }
      }
      return ids
    }
    try await first.buyProduct(identifier: "nonconsumable.car")
    await first.waitForTransactionUpdates()  // the loop took the car and waits on the first session
    let second = try SKTestSession(contentsOf: Kit.appleSample)
    try await second.buyProduct(identifier: "nonconsumable.racecar")
    #expect(await listener.value == ["nonconsumable.car", "nonconsumable.racecar"])
    withExtendedLifetime(first) {}
  }

  /// A sequence made inside `run` stays with that session.
  @Test(.timeLimit(.minutes(1)))
  func aSequenceMadeInRunStaysWithItsSession() async throws {
    let first = try SKTestSession(contentsOf: Kit.appleSample)
    let updates = await first.run { Transaction.updates }
    let second = try SKTestSession(contentsOf: Kit.appleSample)
    try await second.buyProduct(identifier: "nonconsumable.racecar")
    try await first.buyProduct(identifier: "nonconsumable.car")
    var iterator = updates.makeAsyncIterator()
    #expect(await iterator.next()?.unsafePayloadValue.productID == "nonconsumable.car")
  }

  /// A listener iterating a sequence made in `run`, in a task outside it, while another session
  /// is the device's: what it finishes is finished in the sequence's session, not the device's.
  /// (rule values-from-an-update-sequence-act-in-its-session)
  @Test(.timeLimit(.minutes(1)))
  func aTransactionFromAnUpdateSequenceFinishesInThatSequencesSession() async throws {
    let first = try SKTestSession(contentsOf: Kit.appleSample)
    let updates = await first.run { Transaction.updates }
    let second = try SKTestSession(contentsOf: Kit.appleSample)  // now the device's session
    try await second.buyProduct(identifier: "nonconsumable.racecar")
    try await first.buyProduct(identifier: "nonconsumable.car")
    let listener = Task { () -> String? in
      for await update in updates {
        await update.unsafePayloadValue.finish()
        return update.unsafePayloadValue.productID
      }
      return nil
    }
    #expect(await listener.value == "nonconsumable.car")
    #expect(await first.run { await collect(Transaction.unfinished) }.isEmpty)
    let stillUnfinished = await second.run { await collect(Transaction.unfinished).map(\.productID) }
    #expect(stillUnfinished == ["nonconsumable.racecar"])
  }
}
