import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// StoreKit API that wrapper libraries call, beyond the app flows.
@Suite("API wrappers use", .isolatedTestSession)
struct WrapperAPITests {
  /// (rule sk-error-bridges-to-nserror-in-skerrordomain)
  @Test func skErrorBridgesToNSErrorInSKErrorDomain() {
    let error = SKError(.paymentCancelled, userInfo: ["reason": "closed"])
    let nsError = error as NSError
    #expect(nsError.domain == SKErrorDomain && SKErrorDomain == "SKErrorDomain")
    #expect(nsError.code == 2)
    #expect(nsError.userInfo["reason"] as? String == "closed")
    let back = SKError(_nsError: nsError)
    #expect(back.code == .paymentCancelled)
    #expect(back.userInfo["reason"] as? String == "closed")
    #expect(error._nsError.domain == SKErrorDomain)
  }

  /// (rule purchase-intents-deliver-promoted-purchases)
  @Test func purchaseIntentsDeliverPromotedPurchases() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    try session.simulatePromotedPurchase(productIdentifier: "nonconsumable.car")  // before the app listens: kept
    var intents = PurchaseIntent.intents.makeAsyncIterator()
    let first = await intents.next()
    #expect(first?.id == "nonconsumable.car" && first?.product.id == "nonconsumable.car")
    try session.simulatePromotedPurchase(productIdentifier: "nonconsumable.racecar")
    #expect(await intents.next()?.id == "nonconsumable.racecar")
    guard case .success = try await #require(first).product.purchase() else { throw CancellationError() }
    #expect(session.allTransactions().map(\.productIdentifier) == ["nonconsumable.car"])
  }

  @Test func resetToDefaultStateAlsoResetsStoreSimKitsOwnControls() throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.userCancelsPurchases = true
    session.canMakePayments = false
    session.appVersion = "2"
    session.originalAppVersion = "0.9"
    session.appReceiptIsPresent = false
    session.resetToDefaultState()
    #expect(!session.userCancelsPurchases && session.canMakePayments && session.appReceiptIsPresent)
    #expect(session.appVersion == "1" && session.originalAppVersion == "1")
  }

  @Test func customPurchaseOptionsTakeEveryValueTypeStoreKitTakes() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    let options: Set<Product.PurchaseOption> = [
      .custom(key: "s", value: "text"), .custom(key: "b", value: true), .custom(key: "d", value: 1.5),
      .custom(key: "data", value: Data([1])), .custom(key: "u", value: UUID()),
    ]
    #expect(options.count == 5)
    guard case .success = try await car.purchase(options: options) else { throw CancellationError() }
    #expect(session.allTransactions().count == 1)
  }

  @Test func purchaseAndRefundErrorsDescribeThemselves() {
    let errors: [any LocalizedError] = [
      Product.PurchaseError.invalidQuantity, Product.PurchaseError.ineligibleForOffer,
      Transaction.RefundRequestError.duplicateRequest, Transaction.RefundRequestError.failed,
    ]
    let descriptions = errors.map { $0.errorDescription ?? "" }
    #expect(descriptions.allSatisfy { !$0.isEmpty } && Set(descriptions).count == 4)
    #expect((Product.PurchaseError.invalidQuantity as any Error).localizedDescription == descriptions[0])
  }

  @Test func priceFormatStyleCarriesTheSessionsLocaleAndStorefrontCurrency() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.storefront = "FRA"
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    #expect(car.priceFormatStyle.locale.identifier == "en_US@currency=EUR")
    #expect(car.priceFormatStyle.currencyCode == "EUR")
    #expect(car.price.formatted(car.priceFormatStyle) == car.displayPrice)
  }

  @Test func failureErrorIsTheCodeFailingTransactionsCarry() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.failTransactionsEnabled = true
    session.failureError = .invalidOfferPrice
    #expect(session.failureError == .invalidOfferPrice)
    let observer = RecordingObserver(finishes: true)
    SKPaymentQueue.default().add(observer)
    SKPaymentQueue.default().add(
      SKPayment(product: try await PaymentQueueRuleTests.product("nonconsumable.car", session)))
    await session.waitForTransactionUpdates()
    #expect((observer.updated.last?.transaction.error as? SKError)?.code == .invalidOfferPrice)
  }
}

@Suite("Signed values as wrappers read them", .isolatedTestSession)
struct SignedPartsTests {
  @Test func aVerificationResultGivesItsJWSHeaderSignatureAndSignedBytes() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    let options: Set<Product.PurchaseOption> = [.onStorefrontChange { _ in true }]
    guard case .success(let result) = try await car.purchase(options: options) else { throw CancellationError() }
    let parts = result.jwsRepresentation.split(separator: ".").map(String.init)
    #expect(parts.count == 3)
    let header = try #require(try JSONSerialization.jsonObject(with: result.headerData) as? [String: Any])
    #expect(header["alg"] is String)
    #expect(!result.signatureData.isEmpty)
    #expect(result.signedData == Data((parts[0] + "." + parts[1]).utf8))
    #expect(session.allTransactions().count == 1)
  }
}
