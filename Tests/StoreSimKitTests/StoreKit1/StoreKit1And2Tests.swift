import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// StoreKit 1 and StoreKit 2 over one session, as on a device: a purchase made with one is seen
/// by the other, one finish finishes both, and the app receipt holds what either bought.
@Suite("StoreKit 1 and StoreKit 2 on one device", .isolatedTestSession)
@MainActor
struct StoreKit1And2Tests {
  @Test func aStoreKit1PurchaseIsAStoreKit2Entitlement() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let observer = RecordingObserver()
    SKPaymentQueue.default().add(observer)
    let car = try #require(await ProductsFetcher().fetch(["nonconsumable.car"], session)["nonconsumable.car"])
    SKPaymentQueue.default().add(SKPayment(product: car))
    await session.waitForTransactionUpdates()
    let purchased = try #require(observer.updated.last?.transaction)
    #expect(observer.calls == [["purchasing nonconsumable.car"], ["purchased nonconsumable.car"]])

    let entitled = await collect(Transaction.currentEntitlements)
    #expect(entitled.map(\.productID) == ["nonconsumable.car"])
    #expect(entitled.map { String($0.id) } == [purchased.transactionIdentifier])
    let unfinished = await collect(Transaction.unfinished)
    #expect(unfinished.map(\.id) == entitled.map(\.id))

    // One finish, in StoreKit 2, takes it off the StoreKit 1 queue too.
    await unfinished[0].finish()
    await session.waitForTransactionUpdates()
    #expect(observer.removed.count == 1 && observer.removed[0] === purchased)
    #expect(SKPaymentQueue.default().transactions.isEmpty)
  }

  @Test func aStoreKit1PurchaseIsNotOnTransactionUpdates() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    SKPaymentQueue.default().add(RecordingObserver())  // never finishes
    let car = try #require(await ProductsFetcher().fetch(["nonconsumable.car"], session)["nonconsumable.car"])
    SKPaymentQueue.default().add(SKPayment(product: car))
    await session.waitForTransactionUpdates()
    #expect(await collect(Transaction.unfinished).map(\.productID) == ["nonconsumable.car"])
    // The first listener's replay of unfinished transactions leaves out the app's own purchase.
    var updates = Transaction.updates.makeAsyncIterator()
    try await session.buyProduct(identifier: "nonconsumable.racecar")
    #expect(await updates.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
  }

  @Test func aStoreKit2PurchaseReachesTheStoreKit1Observer() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await LegacyStoreTests.launch(session)
    let racecar = try #require(try await Product.products(for: ["nonconsumable.racecar"]).first)
    guard case .success(let result) = try await racecar.purchase() else {
      Issue.record("the purchase did not succeed")
      return
    }
    await session.waitForTransactionUpdates()
    #expect(store.log == ["purchased nonconsumable.racecar"])  // no purchasing call
    #expect(store.unlocked == ["nonconsumable.racecar"])
    #expect(store.seen.last?.transactionIdentifier == String(result.unsafePayloadValue.id))
    // The StoreKit 1 store finished it: StoreKit 2 sees it finished.
    #expect(await collect(Transaction.unfinished).isEmpty)
  }

  @Test func anObserverAddedLateIsToldOfUnfinishedTransactions() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try await session.buyProduct(identifier: "nonconsumable.car")
    let held = RecordingObserver()
    SKPaymentQueue.default().add(
      SKPayment(
        product: try #require(
          await ProductsFetcher().fetch(["nonconsumable.racecar"], session)["nonconsumable.racecar"])))
    await session.waitForTransactionUpdates()
    #expect(await collect(Transaction.all).map(\.productID) == ["nonconsumable.car"])  // the payment waits

    SKPaymentQueue.default().add(held)
    await session.waitForTransactionUpdates()
    #expect(
      held.calls == [
        ["purchased nonconsumable.car"], ["purchasing nonconsumable.racecar"], ["purchased nonconsumable.racecar"],
      ])
    #expect(await collect(Transaction.all).map(\.productID) == ["nonconsumable.car", "nonconsumable.racecar"])
  }

  @Test func applicationUsernameIsTheAppAccountToken() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let store = await LegacyStoreTests.launch(session)
    let token = UUID()
    store.buy("nonconsumable.car", applicationUsername: token.uuidString)
    store.buy("nonconsumable.racecar", applicationUsername: "player-7")
    await session.waitForTransactionUpdates()
    let all = await collect(Transaction.all)
    #expect(all.map(\.appAccountToken) == [token, nil])
  }

  @Test func theReceiptFileIsTheReceiptTheCLIPrints() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    let store = await LegacyStoreTests.launch(session)
    store.buy("subscription.standard")
    store.buy("consumable.fuel.octane87")
    await session.waitForTransactionUpdates()
    let url = session.appStoreReceiptURL
    let receiptData = try Data(contentsOf: url).base64EncodedString()  // what an app sends

    let folder = try SessionFileTests.Folder()
    try session.save(to: folder.session)
    let (text, code) = folder.cli("receipt --json")
    #expect(code == 0)
    let printed = try Self.object(Data(text.utf8))
    #expect(printed["latest_receipt"] as? String == receiptData)
    let receipt = try Self.object(try #require(Data(base64Encoded: receiptData)))
    let inApp = try #require(receipt["in_app"] as? [[String: Any]])
    let ids = await collect(Transaction.all).filter { $0.productType != .consumable }.map { String($0.id) }
    #expect(inApp.compactMap { $0["transaction_id"] as? String } == ids)  // the finished fuel left it
    let printedReceipt = try #require(printed["receipt"] as? [String: Any])
    #expect(NSDictionary(dictionary: receipt).isEqual(to: printedReceipt))

    // A renewal rewrites it.
    try session.advance(by: 31 * Kit.day)
    let renewed = try Self.object(Data(contentsOf: url))
    #expect((renewed["in_app"] as? [[String: Any]])?.count == 2)
  }

  @Test func aReceiptRefreshWritesAMissingReceipt() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.appReceiptIsPresent = false
    let url = session.appStoreReceiptURL
    #expect(!FileManager.default.fileExists(atPath: url.path))
    try await session.setSimulatedError(.generic(.userCancelled), forAPI: .appStoreSync)
    let delegate = RefreshDelegate()
    let failing = SKReceiptRefreshRequest()
    failing.delegate = delegate
    failing.start()
    await session.waitForTransactionUpdates()
    #expect(delegate.error?.code == .paymentCancelled && !delegate.finished)
    #expect(!FileManager.default.fileExists(atPath: url.path))

    try await session.setSimulatedError(nil, forAPI: .appStoreSync)
    let refresh = SKReceiptRefreshRequest(receiptProperties: nil)
    refresh.delegate = delegate
    refresh.start()
    await session.waitForTransactionUpdates()
    #expect(delegate.finished)
    let receipt = try Self.object(Data(contentsOf: url))
    #expect((receipt["in_app"] as? [Any])?.isEmpty == true)
  }

  static func object(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }
}
