import Foundation

extension Transaction {
  /// The stored fields: the one declaration of what a transaction holds. `purchase` is what the
  /// purchase recorded; `status` is what can change afterwards and what a notification's copy
  /// of a stored transaction carries (a reference row in a session file).
  package struct Fields: Sendable, Hashable, Codable, DeclaredRecord {
    /// `purchase` in a box of its own, shared by every version of the transaction: a change of
    /// status (finished, refunded, upgraded…) copies only `status`, so each notification's copy
    /// of the transaction as it was costs a status, not a whole record (a population's memory:
    /// docs/performance.md).
    private var purchaseBox: CopyOnWrite<Purchase>
    package var purchase: Purchase {
      _read { yield purchaseBox.fields }
      _modify { yield &purchaseBox.fields }
    }
    package var status: Status

    package init(purchase: Purchase, status: Status) {
      purchaseBox = CopyOnWrite(purchase)
      self.status = status
    }

    // One flat object, as before the split (both halves write into the same keyed container).
    package init(from decoder: any Decoder) throws {
      purchaseBox = CopyOnWrite(try Purchase(from: decoder))
      status = try Status(from: decoder)
    }

    /// Whether `other`'s purchase is this one's box, not only equal (for tests of the sharing).
    package func sharesPurchase(with other: Fields) -> Bool { purchaseBox.isSameBox(as: other.purchaseBox) }

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

    // A field with a `///` comment is also a public property of `Transaction` with that comment
    // (`public package(set)`), forwarded in Transaction+Forwarding.swift, which
    // Scripts/generate-forwarding.sh writes from these declarations; a field with a `//` comment
    // is reached only through the accessor `Transaction` writes for it.

    /// What the purchase recorded (the app account token can also be set later through the
    /// server API; a notification then carries the whole transaction). The fields few
    /// transactions have are `@Rare`, a pointer each: a renewal's record is a fifth smaller.
    package struct Purchase: Sendable, Hashable, Codable {
      /// Unique id.
      var id: TransactionID
      /// The id of the first purchase this transaction descends from (`originalID`).
      var originalID: TransactionID
      /// One value per paid subscription period; auto-renewables only.
      var webOrderLineItemID: UInt64?
      /// The product.
      var productID: ProductID
      /// The product's type.
      var productType: ProductType
      /// The subscription group, auto-renewables only.
      var subscriptionGroupID: SubscriptionGroupID?
      /// When the account was charged (or the renewal period began).
      var purchaseDate: Date
      /// The `purchaseDate` of the original transaction.
      var originalPurchaseDate: Date
      /// Quantity bought.
      var purchasedQuantity: Int
      /// The app's account token from the purchase options.
      var appAccountToken: UUID?
      /// Bought or family shared.
      var ownershipType: OwnershipType
      /// The offer of this period.
      @Rare var offer: TransactionOffer?
      /// Purchase or renewal.
      var reason: TransactionReason
      /// Total price in currency units (after offer, times quantity).
      var price: Decimal
      /// ISO 4217 currency.
      var currency: String
      /// Storefront country code at purchase time.
      var storefront: String
      /// Apple's storefront id.
      var storefrontID: String
      /// The customer whose purchase was shared into this one (family copies only).
      @Rare var sharedFrom: CustomerID?
      /// The purchaser's transaction this family copy mirrors.
      @Rare var sharedTransactionID: TransactionID?
      // A commitment plan's billing period (1...12), the commitment's end (epoch ms) and price
      // (milliunits); nil on other transactions (absent in older sessions). See `commitmentInfo`.
      @Rare var billingPeriodNumber: UInt64? = nil
      @Rare var commitmentExpiresDate: UInt64? = nil
      @Rare var commitmentPrice: UInt64? = nil
    }

    /// What can change after the purchase.
    package struct Status: Sendable, Hashable, Codable {
      /// End of the period this transaction pays for; auto-renewables only.
      var expirationDate: Date?
      /// When refunded or revoked.
      var revocationDate: Date?
      /// Why refunded or revoked.
      var revocationReason: RevocationReason?
      /// Whether family access was revoked (server `revocationType` `FAMILY_REVOKE`) rather than refunded.
      var isFamilyRevocation: Bool
      /// Superseded by an immediate upgrade or crossgrade.
      var isUpgraded: Bool
      /// Whether the app has called `finish()`.
      var isFinished: Bool
      // See `modificationOrder` (absent in older sessions).
      var modificationOrder: UInt64?
      // A prorated refund's share in milliunits of a percent (`40000` is 40 %); nil for a full
      // refund and while not refunded (absent in older sessions). See `revocationPercentage`.
      var revocationPercentage: UInt64?
    }

    /// Every field, in the order of a session row.
    package mutating func visitRow<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure) {
      try v.visit(RecordField("id", wire: "transactionId"), &purchase.id)
      try v.visit(RecordField("originalID", wire: "originalTransactionId"), &purchase.originalID)
      try v.visit(RecordField("webOrderLineItemID", wire: "webOrderLineItemId"), &purchase.webOrderLineItemID)
      try v.visit(RecordField("productID", wire: "productId"), &purchase.productID)
      try v.visit(RecordField("productType", wire: "type"), &purchase.productType)
      try v.visit(
        RecordField("subscriptionGroupID", wire: "subscriptionGroupIdentifier"), &purchase.subscriptionGroupID)
      try v.visit(RecordField("purchaseDate", wire: "purchaseDate"), &purchase.purchaseDate)
      try v.visit(
        RecordField("originalPurchaseDate", wire: "originalPurchaseDate"), &purchase.originalPurchaseDate)
      try v.visit(.expirationDate, &status.expirationDate)
      try v.visit(RecordField("purchasedQuantity", wire: "quantity"), &purchase.purchasedQuantity)
      try v.visit(RecordField("appAccountToken", wire: "appAccountToken"), &purchase.appAccountToken)
      try v.visit(RecordField("ownershipType", wire: "inAppOwnershipType"), &purchase.ownershipType)
      try v.visit(.revocationDate, &status.revocationDate)
      try v.visit(.revocationReason, &status.revocationReason)
      try v.visit(.isFamilyRevocation, &status.isFamilyRevocation)
      try v.visit(.isUpgraded, &status.isUpgraded)
      try v.visit(RecordField("offer", wire: nil), &purchase.offer)
      try v.visit(RecordField("reason", wire: "transactionReason"), &purchase.reason)
      try v.visit(RecordField("price", wire: "price"), &purchase.price)
      try v.visit(RecordField("currency", wire: "currency"), &purchase.currency)
      try v.visit(RecordField("storefront", wire: "storefront"), &purchase.storefront)
      try v.visit(RecordField("storefrontID", wire: "storefrontId"), &purchase.storefrontID)
      try v.visit(.isFinished, &status.isFinished)
      try v.visit(RecordField("sharedFrom", wire: nil), &purchase.sharedFrom)
      try v.visit(RecordField("sharedTransactionID", wire: nil), &purchase.sharedTransactionID)
      try v.visit(.modificationOrder, &status.modificationOrder)
      try v.visit(.revocationPercentage, &status.revocationPercentage)
      // On the wire inside `commitmentInfo` (`TransactionPayload`).
      try v.visit(RecordField("billingPeriodNumber", wire: nil, trailing: .bracketed), &purchase.billingPeriodNumber)
      try v.visit(
        RecordField("commitmentExpiresDate", wire: nil, trailing: .bracketed), &purchase.commitmentExpiresDate)
      try v.visit(RecordField("commitmentPrice", wire: nil, trailing: .bracketed), &purchase.commitmentPrice)
    }

    /// The fields of `status`, in the order of a reference row.
    package mutating func visitStatus<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure) {
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

// A transaction's `Status` fields, which both its rows hold (in different orders).
extension RecordField {
  static let expirationDate = RecordField("expirationDate", wire: "expiresDate")
  static let revocationDate = RecordField("revocationDate", wire: "revocationDate")
  static let revocationReason = RecordField("revocationReason", wire: "revocationReason")
  static let isFamilyRevocation = RecordField("isFamilyRevocation", wire: nil)
  static let isUpgraded = RecordField("isUpgraded", wire: "isUpgraded")
  static let isFinished = RecordField("isFinished", wire: nil)
  static let modificationOrder = RecordField("modificationOrder", wire: nil, trailing: .bracketed)
  // On the wire with `revocationType` (`TransactionPayload`), as a number.
  static let revocationPercentage = RecordField("revocationPercentage", wire: nil, trailing: .bracketed)
}
