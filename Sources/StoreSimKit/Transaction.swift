import Foundation
import StoreSim

/// A purchase record, as StoreKit 2's `Transaction`.
public struct Transaction: Identifiable, Sendable, Hashable, JWSRepresentable {
  public let id: UInt64
  public let originalID: UInt64
  public let webOrderLineItemID: String?
  public let productID: String
  public let subscriptionGroupID: String?
  public let appBundleID: String
  public let purchaseDate: Date
  public let originalPurchaseDate: Date
  public let expirationDate: Date?
  public let purchasedQuantity: Int
  public let isUpgraded: Bool
  public let ownershipType: OwnershipType
  public let signedDate: Date
  public let revocationDate: Date?
  public let revocationReason: RevocationReason?
  /// How the transaction was revoked: a full or prorated refund or a Family Sharing
  /// revocation; nil while it is not revoked.
  public let revocationType: RevocationType?
  /// The refunded share, 0.0 to 100.0 (`40` for a 40 % prorated refund, `100` for a full
  /// refund); nil for a Family Sharing revocation and when not refunded.
  public let revocationPercentage: Decimal?
  /// How the period was billed (auto-renewables only).
  public let billingPlanType: Product.SubscriptionInfo.BillingPlanType?
  /// A commitment plan's billing period; nil up front.
  public let commitmentInfo: CommitmentInfo?
  public let productType: Product.ProductType
  public let appAccountToken: UUID?
  public let environment: AppStore.Environment
  public let reason: Reason
  public let storefront: Storefront
  public let offer: Offer?
  public let price: Decimal?
  /// The currency of `price`.
  public let currency: Locale.Currency?
  /// Not in StoreKit: the ISO 4217 code of `price`.
  public let currencyCode: String?
  public let appTransactionID: String
  /// The nonce of `deviceVerification` (one per transaction).
  public let deviceVerificationNonce: UUID
  /// SHA-384 of the lowercased nonce followed by the lowercased `AppStore.deviceVerificationID`.
  public let deviceVerification: Data
  public let jwsRepresentation: String
  /// The session the value came from.
  let home: SessionCore
  /// The live sequence that yielded the value, if one did.
  var link = SequenceLink()
  /// Where the value acts: the session in force at the time of the call (as on a device, where
  /// there is one store; for a value an update sequence yielded, that sequence's), or, with none
  /// in reach, the one it came from.
  var core: SessionCore { SessionResolver.resolve(yieldedBy: link) ?? home }

  init(_ t: StoreSim.Transaction, store: Store, customer: CustomerID, core: SessionCore) {
    id = t.id
    originalID = t.originalID
    webOrderLineItemID = t.webOrderLineItemID.map(String.init)
    productID = t.productID
    subscriptionGroupID = t.subscriptionGroupID
    appBundleID = store.state.bundleID
    purchaseDate = t.purchaseDate
    originalPurchaseDate = t.originalPurchaseDate
    expirationDate = t.expirationDate
    purchasedQuantity = t.purchasedQuantity
    isUpgraded = t.isUpgraded
    ownershipType = t.ownershipType == .familyShared ? .familyShared : .purchased
    signedDate = store.now
    revocationDate = t.revocationDate
    revocationReason = t.revocationReason.map { $0 == .developerIssue ? .developerIssue : .other }
    revocationType = t.revocationType.map { RevocationType(rawValue: $0.rawValue) }
    revocationPercentage = t.revocationPercentage.map { Decimal($0) / 1000 }
    billingPlanType = t.billingPlanType.map(Product.SubscriptionInfo.BillingPlanType.init)
    commitmentInfo = t.commitmentInfo.map(CommitmentInfo.init)
    productType = Product.ProductType(t.productType)
    appAccountToken = t.appAccountToken
    environment = AppStore.Environment(store.state.environment)
    reason = t.reason == .renewal ? .renewal : .purchase
    storefront = Storefront(countryCode: t.storefront, id: t.storefrontID, currencyCode: t.currency)
    offer = t.offer.map(Offer.init)
    price = t.price
    currency = Locale.Currency(t.currency)
    currencyCode = t.currency
    appTransactionID = store.customer(customer)?.appTransactionID ?? ""
    deviceVerificationNonce = DeviceVerification.nonce("transaction \(t.id)", core: core)
    deviceVerification = DeviceVerification.value(nonce: deviceVerificationNonce, core: core)
    jwsRepresentation = store.signed(t, customer: customer)
    home = core
  }

  public static func == (a: Transaction, b: Transaction) -> Bool {
    a.id == b.id && a.revocationDate == b.revocationDate && a.isUpgraded == b.isUpgraded
      && a.expirationDate == b.expirationDate && a.signedDate == b.signedDate
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(id) }

  /// The payload as JSON (`JWSTransactionDecodedPayload`).
  public var jsonRepresentation: Data { VerificationResult.verified(self).payloadData }

  /// Marks the transaction finished: it leaves `Transaction.unfinished`.
  public func finish() async {
    let core = core
    _ = try? core.mutate { (store: inout Store) throws(StoreError) in
      try store.finish(id, customer: core.customer)
    }
  }

  // MARK: Nested types

  /// How the customer got the transaction.
  public struct OwnershipType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let purchased = OwnershipType(rawValue: "PURCHASED")
    public static let familyShared = OwnershipType(rawValue: "FAMILY_SHARED")
  }

  /// Why the App Store refunded or revoked a transaction.
  public struct RevocationReason: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let developerIssue = RevocationReason(rawValue: 1)
    public static let other = RevocationReason(rawValue: 0)
  }

  /// How the App Store revoked a transaction (raw values are the App Store Server API's).
  public struct RevocationType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let fullRefund = RevocationType(rawValue: "REFUND_FULL")
    public static let proratedRefund = RevocationType(rawValue: "REFUND_PRORATED")
    public static let familyRevocation = RevocationType(rawValue: "FAMILY_REVOKE")
  }

  /// Purchase or renewal.
  public struct Reason: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let purchase = Reason(rawValue: "PURCHASE")
    public static let renewal = Reason(rawValue: "RENEWAL")
  }

  /// Offer types (shared by `Transaction.Offer` and `Product.SubscriptionOffer`).
  public struct OfferType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let introductory = OfferType(rawValue: 1)
    public static let promotional = OfferType(rawValue: 2)
    public static let code = OfferType(rawValue: 3)
    public static let winBack = OfferType(rawValue: 4)
  }

  /// The offer a transaction used.
  public struct Offer: Hashable, Sendable {
    public let type: OfferType
    public let id: String?
    public let paymentMode: PaymentMode?
    public let period: Product.SubscriptionPeriod?

    public typealias PaymentMode = Product.SubscriptionOffer.PaymentMode

    init(_ o: TransactionOffer) {
      type = OfferType(rawValue: o.type.rawValue)
      id = o.id
      paymentMode = PaymentMode(o.paymentMode)
      period = Product.SubscriptionPeriod(o.period)
    }
  }

  // MARK: Static queries

  /// Transactions created or changed outside a same-device `purchase()` (renewals, Ask to Buy
  /// approvals, refunds, upgrades, `SKTestSession.buyProduct`). Nothing is missed, however late
  /// the sequence is read: the first listener of a session also gets the unfinished
  /// transactions the app was not handed by `purchase()`, and a listener gets what was emitted
  /// while none was listening.
  ///
  /// The sequence is bound to the session in reach where this property is read; iterate it from
  /// any task, detached included.
  public static var updates: Transactions {
    Transactions(live: ListenerHandle.open("Transaction.updates") { $0.addListener(since: $1) })
  }

  /// Every transaction except finished consumables, oldest first.
  public static var all: Transactions {
    snapshot("Transaction.all") { core, store in store.allTransactions(customer: core.customer) }
  }

  /// Transactions that entitle the customer now.
  public static var currentEntitlements: Transactions {
    snapshot("Transaction.currentEntitlements") { core, store in store.currentEntitlements(customer: core.customer) }
  }

  /// The current entitlements for one product.
  public static func currentEntitlements(for productID: String) -> Transactions {
    snapshot("Transaction.currentEntitlements(for:)") { core, store in
      store.currentEntitlements(customer: core.customer).filter { $0.productID == productID }
    }
  }

  /// The current entitlement for one product (the older, single-value form).
  public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
    for await result in currentEntitlements(for: productID) { return result }
    return nil
  }

  /// Transactions not yet finished.
  public static var unfinished: Transactions {
    snapshot("Transaction.unfinished") { core, store in store.unfinishedTransactions(customer: core.customer) }
  }

  /// Every transaction of one product.
  public static func all(for productID: String) -> Transactions {
    snapshot("Transaction.all(for:)") { core, store in
      store.allTransactions(customer: core.customer).filter { $0.productID == productID }
    }
  }

  /// The most recent transaction for a product.
  public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
    guard let core = SessionResolver.resolveOrWarn("Transaction.latest(for:)") else { return nil }
    return latest(for: productID, in: core)
  }

  static func latest(for productID: String, in core: SessionCore) -> VerificationResult<Transaction>? {
    core.read { store in
      store.latestTransaction(for: productID, customer: core.customer).map { core.verified($0, in: store) }
    }
  }

  static func snapshot(_ api: String, _ pick: (SessionCore, Store) -> [StoreSim.Transaction]) -> Transactions {
    guard let core = SessionResolver.resolveOrWarn(api) else { return Transactions(snapshot: []) }
    return snapshot(in: core, pick)
  }

  static func snapshot(in core: SessionCore, _ pick: (SessionCore, Store) -> [StoreSim.Transaction]) -> Transactions {
    Transactions(snapshot: core.read { store in pick(core, store).map { core.verified($0, in: store) } })
  }

  /// An asynchronous sequence of verified transactions: a snapshot (`all`,
  /// `currentEntitlements`, `unfinished`) or live (`updates`).
  public struct Transactions: AsyncSequence, Sendable {
    public typealias Element = VerificationResult<Transaction>
    let items: [Element]
    let live: ListenerHandle<Element>?

    init(snapshot: [Element]) {
      items = snapshot
      live = nil
    }

    init(live: ListenerHandle<Element>?) {
      items = []
      self.live = live
    }

    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(items: items, cursor: live.map { LiveCursor($0) })
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
      var items: [Element]
      var index = 0
      var cursor: LiveCursor<Element>?

      public mutating func next() async -> Element? {
        guard cursor != nil else {
          guard index < items.count else { return nil }
          defer { index += 1 }
          return items[index]
        }
        return await cursor?.next()
      }
    }
  }
}
