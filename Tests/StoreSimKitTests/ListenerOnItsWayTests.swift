import Foundation
import StoreSimKitTesting
import Testing

@testable import StoreSimKit

/// `waitForTransactionUpdates()` waits for a listener whose task has started but not reached
/// `Transaction.updates` yet, when something waits to be delivered to it.
@Suite("Listeners on their way", .isolatedTestSession)
struct ListenerOnItsWayTests {
  @Test(.timeLimit(.minutes(1)))
  func waitingForUpdatesWaitsForAListenerOnItsWay() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let (gate, open) = AsyncStream<Void>.makeStream()
    let seen = Seen()
    let listener = Task.detached {
      for await _ in gate { break }
      for await result in Transaction.updates {
        await seen.add(result.unsafePayloadValue.productID)
        await result.unsafePayloadValue.finish()
      }
    }
    #expect(session.core.isSettled)  // nothing to deliver: a task on its way is not waited for
    try await session.buyProduct(identifier: "nonconsumable.car")
    #expect(!session.core.isSettled)  // the purchase waits for the task held at the gate
    open.yield()
    await session.waitForTransactionUpdates()
    #expect(await seen.ids == ["nonconsumable.car"])
    #expect(session.core.isSettled)
    listener.cancel()
  }

  @Test func aTaskThatEndsWithoutListeningIsNoLongerWaitedFor() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.buyProduct(identifier: "nonconsumable.car")
    let (gate, open) = AsyncStream<Void>.makeStream()
    let other = Task.detached { for await _ in gate { break } }
    #expect(!session.core.isSettled)
    open.yield()
    await other.value
    #expect(session.core.isSettled)
    await session.waitForTransactionUpdates()
  }
}
