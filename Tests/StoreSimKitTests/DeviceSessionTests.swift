import Foundation
import StoreSimKitTesting
import StoreSimSync
import Testing

@testable import StoreSimKit

/// The device-wide session, never-missed updates and the session's configuration warnings.
@Suite("Device-wide sessions and updates", .isolatedTestSession)
struct DeviceSessionTests {
  @Test func aCallWithNoSessionSaysHowToCreateOne() async throws {
    // The trait gives this test a device with no session yet.
    do {
      _ = try await Product.products(for: ["nonconsumable.car"])
      Issue.record("no error")
    } catch let error as StoreKitError {
      guard case .systemError(let underlying) = error else { Issue.record("\(error)"); return }
      let text = String(describing: underlying)
      #expect(text.contains("Product.products(for:) found no SKTestSession"))
      #expect(text.contains("SKTestSession(configurationFileNamed:"))
      #expect("\(error)" == text)
    }
    await #expect(throws: StoreKitError.self) { try await AppTransaction.shared }
    #expect(await Transaction.all.isEmptySequence)
  }

  @Test func theNewestLiveSessionIsTheDevices() async throws {
    let first = try SKTestSession(contentsOf: Kit.appleSample)
    try await first.buyProduct(identifier: "nonconsumable.car")
    #expect(await Transaction.all.productIDs == ["nonconsumable.car"])
    do {
      let second = try SKTestSession(contentsOf: Kit.appleSample)
      defer { withExtendedLifetime(second) {} }
      #expect(await Transaction.all.isEmptySequence)
      // From a detached task, and with `run` narrowing the scope to another session.
      #expect(await Task.detached { await Transaction.all.isEmptySequence }.value)
      await first.run { #expect(await Transaction.all.productIDs == ["nonconsumable.car"]) }
    }
    #expect(await Transaction.all.productIDs == ["nonconsumable.car"])
    // Another device sees none of this test's sessions.
    await SKTestSession.isolated {
      #expect(await Transaction.all.isEmptySequence)
    }
  }

  @Test func whatNoListenerTookReachesTheNextOne() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    guard case .success(.verified(let bought)) = try await car.purchase() else { Issue.record("not bought"); return }
    await bought.finish()
    do {
      var first = Transaction.updates.makeAsyncIterator()
      try await session.buyProduct(identifier: "nonconsumable.racecar")
      #expect(await first.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
    }
    // No listener now: a refund of the finished car is kept for the next one.
    try session.refundTransaction(identifier: UInt(bought.id))
    var late = Transaction.updates.makeAsyncIterator()
    let refunded = await late.next()?.unsafePayloadValue
    #expect(refunded?.id == bought.id)
    #expect(refunded?.revocationDate != nil)
  }

  @Test func aPurchaseTheAppIsHandlingIsNotReplayed() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    _ = try await car.purchase()  // not finished yet: the app is handling it
    var updates = Transaction.updates.makeAsyncIterator()
    try await session.buyProduct(identifier: "nonconsumable.racecar")
    #expect(await updates.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
  }

  @Test func configurationWarningsAreReadableFromTheSession() throws {
    let text = """
      {"identifier":"X","products":[
        {"productID":"a","referenceName":"A","type":"NonConsumable","displayPrice":"1.99","familyShareable":false,
         "internalID":"1","localizations":[{"locale":"en_US","displayName":"A","description":""}]},
        {"productID":"a","referenceName":"A2","type":"NonConsumable","displayPrice":"2.99","familyShareable":false,
         "internalID":"2","localizations":[{"locale":"en_US","displayName":"A","description":""}]}],
       "settings":{},"subscriptionGroups":[],"version":{"major":4,"minor":0}}
      """
    let session = try SKTestSession(configurationData: Data(text.utf8))
    #expect(session.configurationWarnings.contains { $0.contains("a") && $0.lowercased().contains("duplicate") })
    #expect(try SKTestSession(contentsOf: Kit.appleSample).configurationWarnings.isEmpty)
  }

  @Test func configurationWarningsArePrintedOnceWhenTheSessionIsMade() async throws {
    // A product id of this test's own, so that other tests' warnings are told apart.
    let id = "warned.once.\(UUID().uuidString.lowercased())"
    let text = """
      {"identifier":"X","products":[
        {"productID":"\(id)","referenceName":"A","type":"NonConsumable","displayPrice":"1.99","familyShareable":false,
         "internalID":"1","localizations":[{"locale":"en_US","displayName":"A","description":""}]},
        {"productID":"\(id)","referenceName":"A2","type":"NonConsumable","displayPrice":"2.99","familyShareable":false,
         "internalID":"2","localizations":[{"locale":"en_US","displayName":"A","description":""}]}],
       "settings":{},"subscriptionGroups":[],"version":{"major":4,"minor":0}}
      """
    let written = Mutex<[String]>([])
    KitDiagnostics.listener.withLock { $0 = { text in written.withLock { $0.append(text) } } }
    defer { KitDiagnostics.listener.withLock { $0 = nil } }
    let session = try SKTestSession(configurationData: Data(text.utf8))
    try await session.run {
      _ = try await Product.products(for: [id])
      _ = try await Product.products(for: [id])
    }
    let lines = written.current.joined().split(separator: "\n").filter { $0.contains(id) }
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("StoreSimKit: configuration: warning: ") == true)
  }
}

actor Seen {
  var ids: [String] = []
  func add(_ id: String) { ids.append(id) }
}

@Suite("Updates a cancelled listener left", .isolatedTestSession)
struct UntakenUpdatesTests {
  @Test(.timeLimit(.minutes(1)))
  func whatACancelledListenerDidNotTakeReachesTheNextOne() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let updates = Transaction.updates
    try await session.buyProduct(identifier: "nonconsumable.car")
    try await session.buyProduct(identifier: "nonconsumable.racecar")
    let first = Task {
      var iterator = updates.makeAsyncIterator()
      return await iterator.next()?.unsafePayloadValue.productID
    }
    #expect(await first.value == "nonconsumable.car")
    first.cancel()
    _ = consume updates
    var next = Transaction.updates.makeAsyncIterator()
    #expect(await next.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
  }
}
