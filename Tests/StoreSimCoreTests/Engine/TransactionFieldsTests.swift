import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// A transaction's fields are declared once (`Transaction.Fields.visitRow`); the session row,
/// the wire payload and the names a scenario may check are made from that declaration.
@Suite struct TransactionFieldsTests {
  /// Records the model names a visit passes, in order.
  struct Names: RecordFieldListVisitor {
    var names: [String] = []
    mutating func visit(_ f: RecordField, kind: RecordField.Kind) { names.append(f.name) }
  }

  /// The stored fields by the name of the property they hold (a `@Rare` field's storage
  /// `_offer` is `offer`).
  static func stored(_ value: Any) -> [String] {
    Mirror(reflecting: value).children.compactMap(\.label).map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 }
  }

  @Test func theRowVisitsEveryStoredFieldOnceUnderItsOwnName() {
    var fields = Transaction.Fields.blank
    var v = Names()
    fields.visitRow(&v)
    let declared = Self.stored(fields.purchase) + Self.stored(fields.status)
    #expect(v.names.count == declared.count)
    #expect(Set(v.names) == Set(declared))
  }

  @Test func theReferenceRowVisitsExactlyWhatCanChangeAfterThePurchase() {
    var fields = Transaction.Fields.blank
    var v = Names()
    fields.visitStatus(&v)
    #expect(v.names.count == Self.stored(fields.status).count)
    #expect(Set(v.names) == Set(Self.stored(fields.status)))
  }

  /// A transaction with every optional field set: an offer with an id, an expiration, a
  /// refund, an upgrade, a token and a web order line item.
  static func everythingSet() -> Transaction {
    var fields = Transaction.Fields.blank
    fields.purchase.id = 7
    fields.purchase.originalID = 5
    fields.purchase.webOrderLineItemID = 9
    fields.purchase.productID = "pro"
    fields.purchase.productType = .autoRenewable
    fields.purchase.subscriptionGroupID = "g"
    fields.purchase.appAccountToken = UUID(uuidString: "6F1E1C38-8B0A-4A8E-9C39-2B2A1E0C9D11")
    fields.purchase.offer = TransactionOffer(
      type: .promotional, id: "p", paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .month))
    fields.purchase.price = Decimal(string: "4.99")!
    fields.purchase.currency = "USD"
    fields.purchase.storefront = "USA"
    fields.purchase.storefrontID = "143441"
    fields.purchase.sharedFrom = "mum"
    fields.purchase.sharedTransactionID = 3
    fields.status.expirationDate = Date(timeIntervalSince1970: 2_000_000)
    fields.status.revocationDate = Date(timeIntervalSince1970: 1_000_000)
    fields.status.revocationReason = .developerIssue
    fields.status.isUpgraded = true
    fields.status.isFinished = true
    fields.status.modificationOrder = 4
    fields.purchase.billingPeriodNumber = 2
    fields.purchase.commitmentExpiresDate = 3_000_000
    fields.purchase.commitmentPrice = 119_880
    return Transaction(fields: fields)
  }

  @Test func thePayloadOfAFullTransactionHoldsEveryWireNameAndNoOther() {
    let payload = TransactionPayload(
      Self.everythingSet(), bundleID: "b", environment: .xcode, signedDate: Date(timeIntervalSince1970: 3),
      appTransactionID: "a"
    ).json
    guard case .object(let object) = payload else { Issue.record("not an object"); return }
    #expect(Set(object.keys) == Set(TransactionPayload.wireNames))
    #expect(TransactionPayload.wireNames.count == Set(TransactionPayload.wireNames).count)
    #expect(object["transactionId"] == .string("7"))
    #expect(object["webOrderLineItemId"] == .string("9"))
    #expect(object["appAccountToken"] == .string("6f1e1c38-8b0a-4a8e-9c39-2b2a1e0c9d11"))
    #expect(object["revocationReason"] == .int(1))
    #expect(object["offerIdentifier"] == .string("p"))
    #expect(object["type"] == .string("Auto-Renewable Subscription"))
  }

  @Test func storesimsOwnBookkeepingNeverReachesTheWire() {
    let names = Set(TransactionPayload.wireNames)
    for own in ["isFinished", "sharedFrom", "sharedTransactionID", "modificationOrder", "isFamilyRevocation"] {
      #expect(!names.contains(own))
    }
  }

  @Test func theDateFieldsAScenarioReadsAsDatesAreTheDeclaredDates() {
    #expect(
      Set(TransactionPayload.dateNames)
        == ["purchaseDate", "originalPurchaseDate", "expiresDate", "revocationDate", "signedDate"])
  }
}

/// A transaction's versions (the customer's, and each notification's copy as it was then)
/// share the purchase they recorded: a change of status copies the status only.
@Suite struct TransactionVersionTests {
  @Test func aTransactionVersionSharesItsPurchase() throws {
    var store = Fixtures.store()
    let bought = try store.buyProduct("monthly")
    try store.finish(bought.id)
    let sent = try #require(store.notifications.last?.transaction)
    let stored = try #require(store.customer()?.transaction(bought.id))
    #expect(stored.isFinished && !sent.isFinished)
    #expect(stored.fields.sharesPurchase(with: sent.fields))
    // What a changed version costs: its status and a pointer, not a whole record.
    #expect(MemoryLayout<Transaction.Fields>.size <= MemoryLayout<Transaction.Fields.Status>.size + 8)
  }
}
