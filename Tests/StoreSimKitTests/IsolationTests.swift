import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Determinism and isolation: what a control call causes is visible and queued when it
/// returns, in order; sessions never see each other; detached tasks reach the session through
/// values bound to it.
@Suite("Isolation and determinism", .isolatedTestSession)
struct IsolationTests {
  @Test func parallelSessionsNeverSeeEachOthersPurchases() async throws {
    let ids = ["nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar"]
    try await withThrowingTaskGroup(of: (String, [String]).self) { group in
      for round in 0..<24 {
        let id = ids[round % 3]
        group.addTask {
          let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
          return try await session.run {
            let product = try #require(try await Product.products(for: [id]).first)
            _ = try await product.purchase()
            try session.advance(by: Kit.day)
            return (id, await collect(Transaction.all).map(\.productID))
          }
        }
      }
      for try await (id, seen) in group { #expect(seen == [id]) }
    }
  }

  @Test(.timeLimit(.minutes(1)))
  func updatesArriveInOrderAndAreQueuedWhenTheCallReturns() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let updates = Transaction.updates
      let product = try #require(try await Product.products(for: ["subscription.standard"]).first)
      guard case .success(.verified(let first)) = try await product.purchase() else {
        Issue.record("not purchased"); return
      }
      try session.advance(by: 92 * Kit.day)  // three renewals
      try session.refundTransaction(identifier: UInt(first.id))
      var seen: [(UInt64, Bool)] = []
      for await result in updates {
        let t = try result.payloadValue
        seen.append((t.id, t.revocationDate != nil))
        if seen.count == 4 { break }
      }
      #expect(seen.map(\.0) == [first.id + 1, first.id + 2, first.id + 3, first.id])
      #expect(seen.map(\.1) == [false, false, false, true])
      // The loop has ended: waiting for listeners does not wait for it.
      try await session.buyProduct(identifier: "nonconsumable.car")
      await session.waitForTransactionUpdates()
    }
  }

  @Test func aDetachedListenerReachesItsSessionThroughItsSequence() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let updates = Transaction.updates
      let listener = Task.detached { () -> [String] in
        for await _ in updates {
          // No task-local here: the iterating task is bound to the sequence's session.
          return await collect(Transaction.currentEntitlements).map(\.productID)
        }
        return []
      }
      try await session.buyProduct(identifier: "nonconsumable.car")
      #expect(await listener.value == ["nonconsumable.car"])
      // A detached task created inside the session reaches it (StoreSimKit's Task.detached).
      #expect(await Task.detached { await collect(Transaction.currentEntitlements).count }.value == 1)
    }
    // One created outside `run` reaches the device's session: the newest live one (this
    // test's, since the suite's trait gives each test a device of its own).
    #expect(await Task.detached { await collect(Transaction.currentEntitlements).count }.value == 1)
  }

  @Test func productsAndTransactionsCarryTheirSession() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    let product = try await session.run { try #require(try await Product.products(for: ["nonconsumable.car"]).first) }
    // Outside `run` and in a detached task: the product still reaches its session.
    let transaction = try await Task.detached { () throws -> Transaction? in
      if case .success(let v) = try await product.purchase() { return try v.payloadValue }
      return nil
    }.value
    let t = try #require(transaction)
    await t.finish()
    await session.run {
      #expect(await collect(Transaction.unfinished).isEmpty)
      #expect(await collect(Transaction.all).map(\.id) == [t.id])
    }
  }

  @Test func unfinishedTransactionsAreReplayedOnceToTheFirstListener() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      try await session.buyProduct(identifier: "nonconsumable.racecar")  // nobody listens yet
      let first = Transaction.updates
      let second = Transaction.updates
      var iterator = first.makeAsyncIterator()
      #expect(await iterator.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
      try await session.buyProduct(identifier: "nonconsumable.car")
      #expect(await iterator.next()?.unsafePayloadValue.productID == "nonconsumable.car")
      var other = second.makeAsyncIterator()
      #expect(await other.next()?.unsafePayloadValue.productID == "nonconsumable.car")
    }
  }

  @Test func aSamePurchaseIsNotAlsoDeliveredOnUpdates() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let updates = Transaction.updates
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      _ = try await car.purchase()
      try await session.buyProduct(identifier: "nonconsumable.racecar")
      var iterator = updates.makeAsyncIterator()
      #expect(await iterator.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
    }
  }

  @Test func settingsAndResetToDefaultState() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    session.askToBuyEnabled = true
    session.storefront = "FRA"
    session.locale = Locale(identifier: "fr_FR")
    session.timeRate = .monthlyRenewalEveryThirtySeconds
    session.disableDialogs = true
    #expect(session.askToBuyEnabled && session.disableDialogs && session.storefront == "FRA")
    try await session.run {
      let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
      #expect(car.displayPrice == "€1.99")
      #expect(await Storefront.current?.countryCode == "FRA")
    }
    session.resetToDefaultState()
    #expect(!session.askToBuyEnabled)
    #expect(session.storefront == "USA")
    #expect(session.timeRate == .realTime)
    // Transactions are kept by a reset and removed by clearTransactions().
    try await session.buyProduct(identifier: "nonconsumable.car")
    session.resetToDefaultState()
    #expect(session.allTransactions().count == 1)
    session.clearTransactions()
    #expect(session.allTransactions().isEmpty)
  }

  @Test func controlErrorsAreSKTestErrors() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    #expect(throws: SKTestError(.invalidProductIdentifier, "")) {
      try session.expireSubscription(productIdentifier: "subscription.nope")
    }
    #expect(throws: SKTestError(.noTransactionFound, "")) { try session.refundTransaction(identifier: 42) }
    #expect(throws: SKTestError(.noSubscriptionFound, "")) {
      try session.forceRenewalOfSubscription(productIdentifier: "subscription.pro")
    }
    #expect(throws: SKTestError(.fileNotFound, "")) {
      try SKTestSession(contentsOf: URL(fileURLWithPath: "/nonexistent/x.storekit"))
    }
    #expect(throws: SKTestError.self) { try SKTestSession(configurationData: Data("not json".utf8)) }
  }
}

@Suite("Creating sessions", .isolatedTestSession)
struct CreatingSessionsTests {
  @Test func aMissingBundleResourceIsFileNotFound() {
    #expect(throws: SKTestError(.fileNotFound, "")) { try SKTestSession(configurationFileNamed: "NoSuchConfiguration") }
  }

  /// The XCTest habit, the main bundle, finds nothing in a SwiftPM test: the error says what to
  /// pass instead (issue 44, item 7).
  @Test func aMissingResourceInTheMainBundleSaysBundleModule() throws {
    let error = #expect(throws: SKTestError.self) { try SKTestSession(configurationFileNamed: "Products") }
    let message = try #require(error).message
    #expect(message.contains("no Products.storekit in "))
    #expect(message.contains(#"SKTestSession(configurationFileNamed: "Products", bundle: .module)"#))
    #expect(message.contains(#"resources: [.copy("Products.storekit")]"#))
  }

  @Test func theConfigurationsContentsWork() async throws {
    let session = try SKTestSession(
      configurationData: Data(contentsOf: Kit.premium), startDate: Kit.date("2030-06-01T00:00:00Z"))
    #expect(session.now == Kit.date("2030-06-01T00:00:00Z"))
    try await session.run {
      let coins = try await Product.products(for: ["com.example.coins.100"])
      #expect(coins.first?.displayName.isEmpty == false)
    }
  }
}

@Suite("Cancellation", .isolatedTestSession)
struct CancellationTests {
  @Test(.timeLimit(.minutes(1)))
  func aCancelledListenerEndsAndIsNotWaitedFor() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    try await session.run {
      let updates = Transaction.updates
      let listener = Task.detached { () -> Int in
        var count = 0
        for await _ in updates { count += 1 }
        return count
      }
      try await session.buyProduct(identifier: "nonconsumable.car")
      await session.waitForTransactionUpdates()
      listener.cancel()
      #expect(await listener.value == 1)
      try await session.buyProduct(identifier: "nonconsumable.racecar")
      await session.waitForTransactionUpdates()
    }
  }
}
