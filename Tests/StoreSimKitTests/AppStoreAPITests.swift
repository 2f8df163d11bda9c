import Foundation
import StoreSimCrypto
import StoreSimKitTesting
import Testing

@testable import StoreSim
@testable import StoreSimKit

/// The app transaction, device verification, refund requests from the app, the sheets and the
/// simulated errors of every failable API.
@Suite("AppTransaction, refund requests and sheets", .isolatedTestSession)
struct AppStoreAPITests {
  @Test func theAppTransaction() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample, startDate: Kit.start)
    let bought = try await session.buyProduct(identifier: "nonconsumable.car")
    let result = try await AppTransaction.shared
    guard case .verified(let app) = result else { Issue.record("unverified"); return }
    #expect(app.originalAppVersion == "1")
    #expect(app.appVersion == "1")
    #expect(app.originalPurchaseDate == Kit.start)
    #expect(app.environment == .xcode)
    #expect(app.appTransactionID == bought.appTransactionID)
    #expect(!app.appTransactionID.isEmpty)
    #expect(app.bundleID == bought.appBundleID)
    #expect(app.originalPlatform == .iOS)
    #expect(app.appID == nil && app.preorderDate == nil)
    let payload = try JSONSerialization.jsonObject(with: app.jsonRepresentation) as? [String: Any]
    #expect(payload?["originalApplicationVersion"] as? String == "1")
    #expect(payload?["appTransactionId"] as? String == app.appTransactionID)

    session.originalAppVersion = "2.1"
    session.appVersion = "3.0"
    let refreshed = try await AppTransaction.refresh().payloadValue
    #expect(refreshed.originalAppVersion == "2.1")
    #expect(refreshed.appVersion == "3.0")

    try await session.setSimulatedError(
      .generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appTransaction)
    #expect(await session.simulatedErrorName(forAPI: .appTransaction) == "generic.networkError")
    await #expect(throws: StoreKitError.self) { try await AppTransaction.shared }
    try await session.setSimulatedError(nil, forAPI: .appTransaction)
    try await session.setSimulatedError(.verification(.invalidSignature), forAPI: .verification)
    guard case .unverified(_, .invalidSignature) = try await AppTransaction.shared else {
      Issue.record("expected unverified"); return
    }
  }

  @Test func deviceVerification() async throws {
    // FIPS 180-4's example.
    #expect(
      SHA384.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let id = try #require(AppStore.deviceVerificationID)
    #expect(AppStore.deviceVerificationID == id)
    let t = try await session.buyProduct(identifier: "nonconsumable.car")
    func expected(_ nonce: UUID) -> Data {
      Data(SHA384.hash(Array((nonce.uuidString.lowercased() + id.uuidString.lowercased()).utf8)))
    }
    #expect(t.deviceVerification == expected(t.deviceVerificationNonce))
    #expect(t.deviceVerification.count == 48)
    let again = try #require(await Transaction.latest(for: t.productID))
    #expect(again.deviceVerificationNonce == t.deviceVerificationNonce)
    #expect(again.deviceVerification == t.deviceVerification)
    let app = try await AppTransaction.shared
    #expect(app.deviceVerification == expected(app.deviceVerificationNonce))
    #expect(app.deviceVerificationNonce != t.deviceVerificationNonce)
  }

  @Test func aRefundRequestFromTheAppWaitsForTheTestsAnswer() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    guard case .success(.verified(let t)) = try await car.purchase() else { Issue.record("not bought"); return }
    await t.finish()
    #expect(try await t.beginRefundRequest(in: ()) == .success)
    #expect(session.pendingRefundRequests == [UInt(t.id)])
    await #expect(throws: Transaction.RefundRequestError.duplicateRequest) { try await t.beginRefundRequest(in: ()) }
    // Declined: nothing changes.
    try session.declineRefundRequestForTransaction(identifier: UInt(t.id))
    #expect(session.pendingRefundRequests.isEmpty)
    #expect(session.notificationNames().last == "REFUND_DECLINED")
    #expect(await Transaction.currentEntitlements.productIDs == [car.id])
    // Asked again and granted: the refund reaches Transaction.updates.
    #expect(try await Transaction.beginRefundRequest(for: t.id, in: ()) == .success)
    try session.approveRefundRequestForTransaction(identifier: UInt(t.id))
    #expect(session.notificationNames().last == "REFUND")
    var updates = Transaction.updates.makeAsyncIterator()
    let refunded = await updates.next()?.unsafePayloadValue
    #expect(refunded?.id == t.id && refunded?.revocationDate != nil)
    #expect(await Transaction.currentEntitlements.isEmptySequence)
    #expect(throws: SKTestError(.noTransactionFound, "")) {
      try session.approveRefundRequestForTransaction(identifier: UInt(t.id))
    }
  }

  @Test func everyFailableAPIFailsAsTold() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let t = try await session.buyProduct(identifier: "nonconsumable.car")
    try await AppStore.showManageSubscriptions(in: ())
    try await AppStore.presentOfferCodeRedeemSheet(in: ())
    try await AppStore.sync()

    try await session.setSimulatedError(.generic(.notEntitled), forAPI: .manageSubscriptions)
    await #expect(throws: StoreKitError.self) { try await AppStore.showManageSubscriptions(in: ()) }
    await #expect(throws: StoreKitError.self) {
      try await AppStore.showManageSubscriptions(in: (), subscriptionGroupID: "5A1E6001")
    }
    try await session.setSimulatedError(.generic(.unknown), forAPI: .offerCodeRedeem)
    await #expect(throws: StoreKitError.self) { try await AppStore.presentOfferCodeRedeemSheet(in: ()) }
    try await session.setSimulatedError(.refundRequest(.failed), forAPI: .refundRequest)
    await #expect(throws: Transaction.RefundRequestError.failed) { try await t.beginRefundRequest(in: ()) }
    try await session.setSimulatedError(.generic(.userCancelled), forAPI: .refundRequest)
    await #expect(throws: StoreKitError.self) { try await t.beginRefundRequest(in: ()) }
    #expect(session.pendingRefundRequests.isEmpty)
    try await session.setSimulatedError(.generic(.unknown), forAPI: .appStoreSync)
    await #expect(throws: StoreKitError.self) { try await AppStore.sync() }

    for (api, name) in [
      (await session.simulatedErrorName(forAPI: .manageSubscriptions), "generic.notEntitled"),
      (await session.simulatedErrorName(forAPI: .offerCodeRedeem), "generic.unknown"),
      (await session.simulatedErrorName(forAPI: .refundRequest), "generic.userCancelled"),
    ] {
      #expect(api == name)
    }
    try await session.setSimulatedError(nil, forAPI: .manageSubscriptions)
    try await AppStore.showManageSubscriptions(in: ())
  }
}
