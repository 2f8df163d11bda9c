import Foundation
import StoreSim

/// Signed data: the result of verifying a JWS, as StoreKit's `VerificationResult`.
///
/// storesim signs with HS256 under a key derived from the bundle id; a value is `.unverified`
/// only when a `.verification` error is simulated (`SKTestSession.setSimulatedError`).
public enum VerificationResult<SignedType: Sendable>: Sendable {
  /// The data failed verification.
  case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
  /// The data passed verification.
  case verified(SignedType)

  /// Why verification failed.
  public enum VerificationError: Error, Sendable, Hashable {
    case revokedCertificate
    case invalidCertificateChain
    case invalidDeviceVerification
    case invalidEncoding
    case invalidSignature
    case missingRequiredProperties

    init(simulated name: String) {
      switch name {
      case "revokedCertificate": self = .revokedCertificate
      case "invalidCertificateChain": self = .invalidCertificateChain
      case "invalidDeviceVerification": self = .invalidDeviceVerification
      case "invalidEncoding": self = .invalidEncoding
      case "missingRequiredProperties": self = .missingRequiredProperties
      default: self = .invalidSignature
      }
    }
  }

  /// The verified value, or the verification error thrown.
  public var payloadValue: SignedType {
    get throws {
      switch self {
      case .verified(let value): return value
      case .unverified(_, let error): throw error
      }
    }
  }

  /// The value whether or not it was verified.
  public var unsafePayloadValue: SignedType {
    switch self {
    case .verified(let value), .unverified(let value, _): return value
    }
  }
}

extension VerificationResult: Equatable where SignedType: Equatable {}
extension VerificationResult: Hashable where SignedType: Hashable {}

/// A value that comes from compact JWS.
public protocol JWSRepresentable: Sendable {
  /// The compact JWS (`header.payload.signature`) the value was decoded from.
  var jwsRepresentation: String { get }
}

extension VerificationResult where SignedType: JWSRepresentable {
  /// The compact JWS of the signed value.
  public var jwsRepresentation: String { unsafePayloadValue.jwsRepresentation }

  /// The JWS payload bytes (the JSON object).
  public var payloadData: Data {
    let parts = jwsRepresentation.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return Data() }
    var text = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    return Data(base64Encoded: text) ?? Data()
  }
}

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
  public let productType: Product.ProductType
  public let appAccountToken: UUID?
  public let environment: AppStore.Environment
  public let reason: Reason
  public let storefront: Storefront
  public let offer: Offer?
  public let price: Decimal?
  /// ISO 4217 code of `price` (StoreKit: `currency` as `Locale.Currency`).
  public let currencyCode: String?
  public let appTransactionID: String
  public let jwsRepresentation: String
  let core: SessionCore

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
    productType = Product.ProductType(t.productType)
    appAccountToken = t.appAccountToken
    environment = AppStore.Environment(store.state.environment)
    reason = t.reason == .renewal ? .renewal : .purchase
    storefront = Storefront(countryCode: t.storefront, id: t.storefrontID, currencyCode: t.currency)
    offer = t.offer.map(Offer.init)
    price = t.price
    currencyCode = t.currency
    appTransactionID = store.customer(customer)?.appTransactionID ?? ""
    jwsRepresentation = store.signed(t, customer: customer)
    self.core = core
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
  /// approvals, refunds, upgrades, `SKTestSession.buyProduct`), plus unfinished transactions
  /// once for the first listener of a session.
  ///
  /// The sequence is bound to the session current where this property is read; iterate it from
  /// any task, detached included.
  public static var updates: Transactions {
    guard let core = SessionResolver.resolve() else {
      UnboundWarning.once()
      return Transactions(snapshot: [])
    }
    return Transactions(live: ListenerHandle(core: core, listener: core.addListener()))
  }

  /// Every transaction except finished consumables, oldest first.
  public static var all: Transactions {
    snapshot { core, store in store.allTransactions(customer: core.customer) }
  }

  /// Transactions that entitle the customer now.
  public static var currentEntitlements: Transactions {
    snapshot { core, store in store.currentEntitlements(customer: core.customer) }
  }

  /// The current entitlements for one product.
  public static func currentEntitlements(for productID: String) -> Transactions {
    snapshot { core, store in store.currentEntitlements(customer: core.customer).filter { $0.productID == productID } }
  }

  /// The current entitlement for one product (the older, single-value form).
  public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
    for await result in currentEntitlements(for: productID) { return result }
    return nil
  }

  /// Transactions not yet finished.
  public static var unfinished: Transactions {
    snapshot { core, store in store.unfinishedTransactions(customer: core.customer) }
  }

  /// Every transaction of one product.
  public static func all(for productID: String) -> Transactions {
    snapshot { core, store in store.allTransactions(customer: core.customer).filter { $0.productID == productID } }
  }

  /// The most recent transaction for a product.
  public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
    guard let core = SessionResolver.resolve() else { return nil }
    return core.read { store in
      store.latestTransaction(for: productID, customer: core.customer).map { core.verified($0, in: store) }
    }
  }

  static func snapshot(_ pick: (SessionCore, Store) -> [StoreSim.Transaction]) -> Transactions {
    guard let core = SessionResolver.resolve() else { return Transactions(snapshot: []) }
    return Transactions(snapshot: core.read { store in pick(core, store).map { core.verified($0, in: store) } })
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

    init(live: ListenerHandle<Element>) {
      items = []
      self.live = live
    }

    public func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(items: items, live: live, iteration: live.map(IterationToken.init))
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
      var items: [Element]
      var index = 0
      let live: ListenerHandle<Element>?
      /// Tells the session when this iterator is gone (a loop that ended is not waited for).
      let iteration: IterationToken?
      var binding: BindingToken?

      public mutating func next() async -> Element? {
        guard let live else {
          guard index < items.count else { return nil }
          defer { index += 1 }
          return items[index]
        }
        if binding == nil { binding = TaskBindings.shared.bindCurrentTask(to: live.core) }
        return await live.core.next(live.listener)
      }
    }
  }
}

/// Lives as long as an iterator of a live sequence (and its copies).
final class IterationToken: Sendable {
  let core: SessionCore
  let listener: ListenerBase
  init<Element>(_ handle: ListenerHandle<Element>) {
    core = handle.core
    listener = handle.listener
    core.iteratorStarted(listener)
  }
  deinit { core.iteratorEnded(listener) }
}

/// Keeps a live listener registered while its sequence or an iterator exists.
final class ListenerHandle<Element: Sendable>: Sendable {
  let core: SessionCore
  let listener: Listener<Element>
  init(core: SessionCore, listener: Listener<Element>) {
    self.core = core
    self.listener = listener
  }
  deinit { core.removeListener(listener) }
}

/// A storefront, as StoreKit's `Storefront`.
public struct Storefront: Hashable, Sendable {
  /// ISO 3166-1 alpha-3 code.
  public let countryCode: String
  /// The App Store storefront id.
  public let id: String
  /// The storefront's currency code (StoreKit: `currency` as `Locale.Currency`).
  public let currencyCode: String

  /// The current storefront of the session.
  public static var current: Storefront? {
    get async {
      guard let core = SessionResolver.resolve() else { return nil }
      return core.read { store in
        let s = StoreSim.Storefront.named(store.settings.storefront) ?? .usa
        return Storefront(countryCode: s.countryCode, id: s.id, currencyCode: s.currency)
      }
    }
  }
}

/// App Store actions and values, as StoreKit's `AppStore`.
public enum AppStore {
  /// The server environment of signed data.
  public struct Environment: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let production = Environment(rawValue: "Production")
    public static let sandbox = Environment(rawValue: "Sandbox")
    public static let xcode = Environment(rawValue: "Xcode")

    init(_ e: StoreEnvironment) { self.init(rawValue: e.rawValue) }
  }

  /// Syncs transactions with the App Store; throws a simulated `.appStoreSync` error.
  public static func sync() async throws {
    guard let core = SessionResolver.resolve() else { throw StoreKitError.unknown }
    if let error = core.read({ $0.settings.simulatedError(forAPI: .appStoreSync) }) {
      throw StoreKitError(simulated: error.name)
    }
  }

  /// Whether the customer may pay (always true in a session).
  public static var canMakePayments: Bool { true }
}

/// One line on standard error the first time `Transaction.updates` is read with no session in
/// reach (typically inside `Task.detached`), since the empty sequence it gets is easy to miss.
enum UnboundWarning {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var warned = false

  static func once() {
    lock.lock()
    let first = !warned
    warned = true
    lock.unlock()
    guard first else { return }
    FileHandle.standardError.write(
      Data(
        ("StoreSimKit: Transaction.updates was read with no SKTestSession in reach (inside Task.detached?); "
          + "it is empty. Read it before detaching, or inside SKTestSession.run.\n").utf8))
  }
}
