import Foundation
import StoreSimKitTesting
import Testing

@testable import StoreSimKit

/// A listener whose task was started before a control call receives what the call emitted,
/// whoever else listens and however late its loop starts: as each test of a StoreKitTest suite
/// does, every round makes a new session and a new store (Apple's sample, whose `Task.detached`
/// listener is started in `init`), and keeps the earlier rounds' stores alive (their listeners
/// follow the device to the new session, take the same transactions and finish them first).
/// `STORESIM_RACE_ROUNDS` sets the rounds (50 by default; CI runs 200 with both cores busy,
/// `Scripts/listeners_under_load.sh`).
@Suite("A listener started before a control call hears it", .isolatedTestSession)
struct ListenerRaceTests {
  static let rounds = ProcessInfo.processInfo.environment["STORESIM_RACE_ROUNDS"].flatMap(Int.init) ?? 50
  static let liveEarlierStores = 3

  /// A control call of the kind a listener test makes, and how many updates it emits.
  enum Control: CaseIterable {
    case purchaseOutsideTheApp, approvedAskToBuy, refund, renewalByAdvance

    /// Makes the call on the new session; returns how many transactions reach `Transaction.updates`.
    func make(_ session: SKTestSession, _ store: SampleStore) async throws -> Int {
      switch self {
      case .purchaseOutsideTheApp:
        try await session.buyProduct(identifier: "nonconsumable.car")
        return 1
      case .approvedAskToBuy:
        session.askToBuyEnabled = true
        await store.initialLoad?.value
        let car = try #require(await store.cars.first)
        #expect(try await store.purchase(car)?.id == nil)  // pending
        let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
        try session.approveAskToBuyTransaction(identifier: request.identifier)
        return 1
      case .refund:
        let t = try await session.buyProduct(identifier: "nonconsumable.racecar")
        try session.refundTransaction(identifier: UInt(t.id))
        return 2  // the purchase, then its revocation
      case .renewalByAdvance:
        try await session.buyProduct(identifier: "subscription.standard")
        try session.advance(by: 40 * Kit.day)
        return 2  // the purchase and at least one renewal
      }
    }
  }

  @Test func aListenerWhoseTaskStartedBeforeAControlCallReceivesWhatTheCallEmitted() async throws {
    var earlier: [SampleStore] = []
    for round in 0..<Self.rounds {
      let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
      let store = await SampleStore()
      let control = Control.allCases[round % Control.allCases.count]
      let expected = try await control.make(session, store)
      if round % 2 == 0 {
        await session.waitForTransactionUpdates()
      } else {
        // As the suites that found the race do: poll the store for a few seconds.
        await poll { await store.updatesHandled >= expected }
      }
      let handled = await store.updatesHandled
      #expect(handled >= expected, "round \(round), \(control): the new store's listener handled \(handled)")
      // The last few rounds' stores stay alive and listening (each takes every later update
      // and verifies the customer's entitlements, so all 200 would make the test quadratic).
      earlier.append(store)
      if earlier.count > Self.liveEarlierStores { await earlier.removeFirst().stopListening() }
    }
    for store in earlier { await store.stopListening() }
  }

  /// A task started before any session exists on the device hears the first session's calls.
  @Test func aTaskOnItsWayMovesWithTheDeviceToANewSession() async throws {
    let first = try SKTestSession(contentsOf: Kit.appleSample)
    let (gate, open) = AsyncStream<Void>.makeStream()
    let seen = Seen()
    let listener = Task.detached {
      for await _ in gate { break }
      for await result in Transaction.updates { await seen.add(result.unsafePayloadValue.productID) }
    }
    let second = try SKTestSession(contentsOf: Kit.appleSample)
    let (ready, isReady) = AsyncStream<Void>.makeStream()
    let other = Task.detached {  // an earlier store's listener, already listening, finishing everything
      let updates = Transaction.updates
      isReady.yield()
      for await result in updates { await result.unsafePayloadValue.finish() }
    }
    for await _ in ready { break }
    try await second.buyProduct(identifier: "nonconsumable.car")
    open.yield()
    await second.waitForTransactionUpdates()
    #expect(await seen.ids == ["nonconsumable.car"])
    listener.cancel()
    other.cancel()
    withExtendedLifetime(first) {}
  }

  /// The wait does not hang on a detached task that never reads a sequence.
  @Test(.timeLimit(.minutes(1)))
  func waitingForUpdatesDoesNotWaitForeverForATaskThatNeverListens() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let (gate, open) = AsyncStream<Void>.makeStream()
    let busy = Task.detached { for await _ in gate { break } }
    try await session.buyProduct(identifier: "nonconsumable.car")
    #expect(!session.core.isSettled)
    await session.waitForTransactionUpdates()  // returns after its patience
    open.yield()
    await busy.value
    #expect(session.core.isSettled)
  }
}

/// Polls `condition` every 10 ms for up to 5 s.
func poll(_ condition: () async -> Bool) async {
  for _ in 0..<500 {
    if await condition() { return }
    try? await Task.sleep(for: .milliseconds(10))
  }
}
