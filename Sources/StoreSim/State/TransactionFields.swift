import Foundation

/// One field of a transaction as its shapes name it: the model's name, the App Store's wire
/// name (`JWSTransactionDecodedPayload`; nil for what the App Store never sends) and whether
/// session rows written before the field existed end without it.
package struct TransactionField: Sendable, Hashable {
  /// The name in the model (`Transaction`'s property).
  package let name: String
  /// The wire name, nil when the field is storesim's own bookkeeping.
  package let wireName: String?
  /// Written last in a session row, in brackets and only when set (absent from older files).
  package let isTrailing: Bool

  init(_ name: String, wire: String?, trailing: Bool = false) {
    self.name = name
    self.wireName = wire
    self.isTrailing = trailing
  }
}

/// Something that walks a transaction's fields: a writer reads each value, a reader replaces
/// it. Every shape of a transaction (the session row, the wire payload, the list of wire names
/// a scenario may check) is one of these over `Transaction.Fields.visitRow`, so a field added
/// to the declaration reaches all of them, and a field of a new type is a compile error in each.
package protocol TransactionFieldVisitor {
  associatedtype Failure: Error
  mutating func visit(_ field: TransactionField, _ value: inout UInt64) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout UInt64?) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout Int) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout Bool) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout String) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout String?) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout Date) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout Date?) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout Decimal) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout UUID?) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout TransactionOffer?) throws(Failure)
  // The named types, each its own requirement rather than one generic over `RawRepresentable`:
  // `visitRow` is not specialized in the modules that visit, and a generic requirement called
  // from it looks its type's metadata up at run time, for every such field of every transaction
  // a session file holds (most of the time of reading one).
  mutating func visit(_ field: TransactionField, _ value: inout ProductType) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout OwnershipType) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout TransactionReason) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout CustomerID?) throws(Failure)
  mutating func visit(_ field: TransactionField, _ value: inout RevocationReason?) throws(Failure)
}

/// A visitor of the declaration alone (each field's names and kind of value), never of a value:
/// it implements one method and the value-typed ones all call it.
package protocol TransactionFieldListVisitor: TransactionFieldVisitor where Failure == Never {
  mutating func visit(_ field: TransactionField, kind: TransactionField.Kind)
}

extension TransactionField {
  /// What a field holds, as far as a list of fields cares: a date, an offer (which the wire
  /// spreads over four names) or any other value.
  package enum Kind: Sendable { case value, date, offer }
}

extension TransactionFieldListVisitor {
  package mutating func visit(_ field: TransactionField, _ value: inout UInt64) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout UInt64?) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout Int) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout Bool) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout String) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout String?) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout Date) { visit(field, kind: .date) }
  package mutating func visit(_ field: TransactionField, _ value: inout Date?) { visit(field, kind: .date) }
  package mutating func visit(_ field: TransactionField, _ value: inout Decimal) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout UUID?) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout TransactionOffer?) {
    visit(field, kind: .offer)
  }
  package mutating func visit(_ field: TransactionField, _ value: inout ProductType) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout OwnershipType) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout TransactionReason) {
    visit(field, kind: .value)
  }
  package mutating func visit(_ field: TransactionField, _ value: inout CustomerID?) { visit(field, kind: .value) }
  package mutating func visit(_ field: TransactionField, _ value: inout RevocationReason?) {
    visit(field, kind: .value)
  }
}

extension Transaction {
  /// The stored fields: the one declaration of what a transaction holds. `purchase` is what the
  /// purchase recorded; `status` is what can change afterwards and what a notification's copy
  /// of a stored transaction carries (a reference row in a session file).
  package struct Fields: Sendable, Hashable, Codable {
    package var purchase: Purchase
    package var status: Status

    package init(purchase: Purchase, status: Status) {
      self.purchase = purchase
      self.status = status
    }

    // One flat object, as before the split (both halves write into the same keyed container).
    package init(from decoder: any Decoder) throws {
      purchase = try Purchase(from: decoder)
      status = try Status(from: decoder)
    }

    package func encode(to encoder: any Encoder) throws {
      try purchase.encode(to: encoder)
      try status.encode(to: encoder)
    }

    /// A transaction with every field empty, for a reader to fill.
    package static let blank = Fields(
      purchase: Purchase(
        id: 0, originalID: 0, webOrderLineItemID: nil, productID: "", productType: .consumable,
        subscriptionGroupID: nil, purchaseDate: Date(timeIntervalSince1970: 0),
        originalPurchaseDate: Date(timeIntervalSince1970: 0), purchasedQuantity: 1, appAccountToken: nil,
        ownershipType: .purchased, offer: nil, reason: .purchase, price: 0, currency: "", storefront: "",
        storefrontID: "", sharedFrom: nil, sharedTransactionID: nil),
      status: Status(
        expirationDate: nil, revocationDate: nil, revocationReason: nil, isFamilyRevocation: false,
        isUpgraded: false, isFinished: false, modificationOrder: nil, revocationPercentage: nil))

    /// What the purchase recorded (the app account token can also be set later through the
    /// server API; a notification then carries the whole transaction).
    package struct Purchase: Sendable, Hashable, Codable {
      var id: TransactionID
      var originalID: TransactionID
      var webOrderLineItemID: UInt64?
      var productID: ProductID
      var productType: ProductType
      var subscriptionGroupID: SubscriptionGroupID?
      var purchaseDate: Date
      var originalPurchaseDate: Date
      var purchasedQuantity: Int
      var appAccountToken: UUID?
      var ownershipType: OwnershipType
      var offer: TransactionOffer?
      var reason: TransactionReason
      var price: Decimal
      var currency: String
      var storefront: String
      var storefrontID: String
      var sharedFrom: CustomerID?
      var sharedTransactionID: TransactionID?
      /// A commitment plan's billing period (1...12), the commitment's end (epoch ms) and price
      /// (milliunits); nil on other transactions (absent in older sessions).
      var billingPeriodNumber: UInt64? = nil
      var commitmentExpiresDate: UInt64? = nil
      var commitmentPrice: UInt64? = nil
    }

    /// What can change after the purchase.
    package struct Status: Sendable, Hashable, Codable {
      var expirationDate: Date?
      var revocationDate: Date?
      var revocationReason: RevocationReason?
      var isFamilyRevocation: Bool
      var isUpgraded: Bool
      var isFinished: Bool
      /// See `modificationOrder` (absent in older sessions).
      var modificationOrder: UInt64?
      /// A prorated refund's share in milliunits of a percent (`40000` is 40 %); nil for a full
      /// refund and while not refunded (absent in older sessions).
      var revocationPercentage: UInt64?
    }

    /// Every field, in the order of a session row.
    package mutating func visitRow<V: TransactionFieldVisitor>(_ v: inout V) throws(V.Failure) {
      try v.visit(TransactionField("id", wire: "transactionId"), &purchase.id)
      try v.visit(TransactionField("originalID", wire: "originalTransactionId"), &purchase.originalID)
      try v.visit(TransactionField("webOrderLineItemID", wire: "webOrderLineItemId"), &purchase.webOrderLineItemID)
      try v.visit(TransactionField("productID", wire: "productId"), &purchase.productID)
      try v.visit(TransactionField("productType", wire: "type"), &purchase.productType)
      try v.visit(
        TransactionField("subscriptionGroupID", wire: "subscriptionGroupIdentifier"), &purchase.subscriptionGroupID)
      try v.visit(TransactionField("purchaseDate", wire: "purchaseDate"), &purchase.purchaseDate)
      try v.visit(
        TransactionField("originalPurchaseDate", wire: "originalPurchaseDate"), &purchase.originalPurchaseDate)
      try v.visit(.expirationDate, &status.expirationDate)
      try v.visit(TransactionField("purchasedQuantity", wire: "quantity"), &purchase.purchasedQuantity)
      try v.visit(TransactionField("appAccountToken", wire: "appAccountToken"), &purchase.appAccountToken)
      try v.visit(TransactionField("ownershipType", wire: "inAppOwnershipType"), &purchase.ownershipType)
      try v.visit(.revocationDate, &status.revocationDate)
      try v.visit(.revocationReason, &status.revocationReason)
      try v.visit(.isFamilyRevocation, &status.isFamilyRevocation)
      try v.visit(.isUpgraded, &status.isUpgraded)
      try v.visit(TransactionField("offer", wire: nil), &purchase.offer)
      try v.visit(TransactionField("reason", wire: "transactionReason"), &purchase.reason)
      try v.visit(TransactionField("price", wire: "price"), &purchase.price)
      try v.visit(TransactionField("currency", wire: "currency"), &purchase.currency)
      try v.visit(TransactionField("storefront", wire: "storefront"), &purchase.storefront)
      try v.visit(TransactionField("storefrontID", wire: "storefrontId"), &purchase.storefrontID)
      try v.visit(.isFinished, &status.isFinished)
      try v.visit(TransactionField("sharedFrom", wire: nil), &purchase.sharedFrom)
      try v.visit(TransactionField("sharedTransactionID", wire: nil), &purchase.sharedTransactionID)
      try v.visit(.modificationOrder, &status.modificationOrder)
      try v.visit(.revocationPercentage, &status.revocationPercentage)
      // On the wire inside `commitmentInfo` (`TransactionPayload`).
      try v.visit(TransactionField("billingPeriodNumber", wire: nil, trailing: true), &purchase.billingPeriodNumber)
      try v.visit(
        TransactionField("commitmentExpiresDate", wire: nil, trailing: true), &purchase.commitmentExpiresDate)
      try v.visit(TransactionField("commitmentPrice", wire: nil, trailing: true), &purchase.commitmentPrice)
    }

    /// The fields of `status`, in the order of a reference row.
    package mutating func visitStatus<V: TransactionFieldVisitor>(_ v: inout V) throws(V.Failure) {
      try v.visit(.isFinished, &status.isFinished)
      try v.visit(.isUpgraded, &status.isUpgraded)
      try v.visit(.revocationDate, &status.revocationDate)
      try v.visit(.revocationReason, &status.revocationReason)
      try v.visit(.isFamilyRevocation, &status.isFamilyRevocation)
      try v.visit(.expirationDate, &status.expirationDate)
      try v.visit(.modificationOrder, &status.modificationOrder)
      try v.visit(.revocationPercentage, &status.revocationPercentage)
    }
  }
}

// The fields of `Status`, which both rows hold (in different orders).
extension TransactionField {
  static let expirationDate = TransactionField("expirationDate", wire: "expiresDate")
  static let revocationDate = TransactionField("revocationDate", wire: "revocationDate")
  static let revocationReason = TransactionField("revocationReason", wire: "revocationReason")
  static let isFamilyRevocation = TransactionField("isFamilyRevocation", wire: nil)
  static let isUpgraded = TransactionField("isUpgraded", wire: "isUpgraded")
  static let isFinished = TransactionField("isFinished", wire: nil)
  static let modificationOrder = TransactionField("modificationOrder", wire: nil, trailing: true)
  // On the wire with `revocationType` (`TransactionPayload`), as a number.
  static let revocationPercentage = TransactionField("revocationPercentage", wire: nil, trailing: true)
}
