import Foundation
import StoreSim

/// A product of the session's configuration, as StoreKit 2's `Product`.
///
/// As on a device, where there is one store, a kept product acts in the session in force when it
/// is used (`purchase(options:)`, `subscription?.status`): a product cached under an earlier
/// test's session buys into the current test's. With no session in reach, it acts in its own.
public struct Product: Identifiable, Sendable, Hashable {
  public typealias ID = String

  public let id: String
  public let type: ProductType
  public let displayName: String
  public let description: String
  public let price: Decimal
  public let displayPrice: String
  public let isFamilyShareable: Bool
  public let subscription: SubscriptionInfo?
  /// The storefront's currency code the prices are in.
  let currencyCode: String
  /// The session's locale with that currency (`priceFormatStyle.locale`).
  let priceLocale: Locale
  /// The session the value came from.
  let home: SessionCore
  /// Where the value acts: the session in force at the time of the call (as on a device, where
  /// there is one store), or, with none in reach, the one it came from (rule
  /// kept-values-act-in-the-current-session).
  var core: SessionCore { SessionResolver.resolve() ?? home }

  init(_ p: StoreSim.Product, store: Store, core: SessionCore) {
    id = p.id
    type = ProductType(p.type)
    let localization = p.localization(for: store.settings.locale)
    displayName = localization?.displayName ?? p.referenceName
    description = localization?.description ?? ""
    price = p.price
    let currency = (StoreSim.Storefront.named(store.settings.storefront) ?? .usa).currency
    displayPrice = Self.format(p.price, currency: currency)
    currencyCode = currency
    priceLocale = Locale(identifier: "\(store.settings.locale)@currency=\(currency)")
    isFamilyShareable = p.isFamilyShareable
    subscription = p.subscription.map { SubscriptionInfo($0, store: store, currency: currency, core: core) }
    home = core
  }

  public static func == (a: Product, b: Product) -> Bool {
    a.id == b.id && a.price == b.price && a.displayName == b.displayName && a.displayPrice == b.displayPrice
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(id) }

  /// The price as the CLI and the wire show it (`$1.99`, `€1.99`, `¥400`, `CA$1.99`): the
  /// engine's one price formatter.
  static func format(_ price: Decimal, currency: String) -> String {
    PriceFormatter.display(price, currency: currency)
  }

  /// The products with these identifiers; unknown identifiers are left out.
  public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
  where Identifiers.Element == Product.ID {
    let core = try SessionResolver.require("Product.products(for:)")
    let wanted = Set(identifiers)
    return try core.read { store in
      if let error = store.settings.simulatedError(forAPI: .loadProducts) { throw StoreKitError(simulated: error.name) }
      return store.configuration.products.filter { wanted.contains($0.id) }.map {
        Product($0, store: store, core: core)
      }
    }
  }

  /// Buys the product.
  ///
  /// - Returns: `.success` with the transaction (not also delivered on `Transaction.updates`),
  ///   `.pending` for Ask to Buy or an interrupted purchase, `.userCancelled`.
  /// - Throws: `Product.PurchaseError` or `StoreKitError`, as StoreKit (simulated errors,
  ///   ineligible or unknown offers, a quantity outside 1...10).
  public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
    let engineOptions = try PurchaseOption.engineOptions(options)
    let core = core
    let cancel = core.userCancelsPurchases
    let result: StoreSim.PurchaseResult
    do {
      result = try core.mutate { (store: inout Store) throws(StoreError) in
        try store.purchase(
          id, options: engineOptions.options, customer: core.customer, cancel: cancel, at: engineOptions.date)
      }
    } catch {
      throw StoreKitError.unknown
    }
    switch result {
    case .success(let t, _):
      return .success(core.read { core.verified($0.customer(core.customer)?.transaction(t.id) ?? t, in: $0) })
    case .pending: return .pending
    case .userCancelled: return .userCancelled
    case .failed(let failure): throw Self.purchaseFailure(failure)
    }
  }

  /// The StoreKit error a failed purchase throws (a legacy `SKError` becomes `StoreKitError.unknown`).
  static func purchaseFailure(_ failure: PurchaseFailure) -> any Error {
    switch failure {
    case .invalidQuantity: return PurchaseError.invalidQuantity
    case .invalidOfferIdentifier: return PurchaseError.invalidOfferIdentifier
    case .ineligibleForOffer: return PurchaseError.ineligibleForOffer
    case .invalidOfferSignature: return PurchaseError.invalidOfferSignature
    case .simulated(let error) where error.family == .purchase: return PurchaseError(simulated: error.name)
    case .simulated(let error) where error.family == .generic: return StoreKitError(simulated: error.name)
    case .simulated, .skError: return StoreKitError.unknown
    }
  }

  // MARK: Nested types

  /// The four product types.
  public struct ProductType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let consumable = ProductType(rawValue: "Consumable")
    public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
    public static let autoRenewable = ProductType(rawValue: "Auto-Renewable Subscription")
    public static let nonRenewable = ProductType(rawValue: "Non-Renewing Subscription")

    init(_ t: StoreSim.ProductType) { self.init(rawValue: t.rawValue) }
  }

  /// What `purchase(options:)` returned.
  public enum PurchaseResult: Sendable {
    case success(VerificationResult<Transaction>)
    case userCancelled
    case pending
  }

  /// Errors a purchase throws.
  public enum PurchaseError: Error, Sendable, Hashable {
    case invalidQuantity
    case productUnavailable
    case purchaseNotAllowed
    case ineligibleForOffer
    case invalidOfferIdentifier
    case invalidOfferPrice
    case invalidOfferSignature
    case missingOfferParameters

    init(simulated name: String) {
      switch name {
      case "invalidQuantity": self = .invalidQuantity
      case "productUnavailable": self = .productUnavailable
      case "purchaseNotAllowed": self = .purchaseNotAllowed
      case "ineligibleForOffer": self = .ineligibleForOffer
      case "invalidOfferIdentifier": self = .invalidOfferIdentifier
      case "invalidOfferPrice": self = .invalidOfferPrice
      case "invalidOfferSignature": self = .invalidOfferSignature
      default: self = .missingOfferParameters
      }
    }
  }

  /// A purchase option.
  public struct PurchaseOption: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
      case appAccountToken(UUID)
      case quantity(Int)
      case promotionalOffer(String)
      case signedPromotionalOffer(String, OfferSignature)
      case introductoryOfferEligibility(String)
      case codeOffer(String)
      case winBackOffer(String)
      case purchaseDate(Date)
      case simulatesAskToBuyInSandbox(Bool)
      case custom(String, CustomValue)
      case billingPlanType(String)
    }
    let kind: Kind

    /// Ties the transaction to an account of the app.
    public static func appAccountToken(_ token: UUID) -> PurchaseOption { .init(kind: .appAccountToken(token)) }
    /// How many to buy (consumables; 1...10).
    public static func quantity(_ quantity: Int) -> PurchaseOption { .init(kind: .quantity(quantity)) }
    /// A signed promotional offer: the signature (Base64 DER, as `signature`'s bytes or text) is
    /// checked with the configuration's `subscriptionOffersKeyPair` or the session's team key; a bad one fails the
    /// purchase with `PurchaseError.invalidOfferSignature`.
    public static func promotionalOffer(
      offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int
    ) -> PurchaseOption {
      let text = String(data: signature, encoding: .utf8).flatMap { Data(base64Encoded: $0) == nil ? nil : $0 }
      let base64 = text ?? signature.base64EncodedString()
      return .init(
        kind: .signedPromotionalOffer(
          offerID, .separated(keyID: keyID, nonce: nonce, timestamp: Int64(timestamp), signature: base64)))
    }
    /// A promotional offer with a compact JWS signature, checked with the configuration's
    /// `subscriptionOffersKeyPair` (`kid`, `aud` promotional-offer, `bid`, `productId`,
    /// `offerIdentifier`, a nonce used once, `iat` within 24 hours, no `exp`).
    public static func promotionalOffer(_ offerID: String, compactJWS: String) -> PurchaseOption {
      .init(kind: .signedPromotionalOffer(offerID, .compactJWS(compactJWS)))
    }
    /// Sets the eligibility for the introductory offer for this purchase: a compact JWS the
    /// developer signed (`aud` introductory-offer-eligibility, `productId`,
    /// `allowIntroductoryOffer`, `transactionId` of the customer's, a nonce used once, `iat`
    /// within 24 hours, no `exp`) with the configuration's `subscriptionOffersKeyPair` or the
    /// session's team key. One that does not verify is ignored (normal eligibility applies), or
    /// fails the purchase with `invalidOfferSignature` under
    /// `SKTestSession.strictIntroductoryOfferEligibility`.
    public static func introductoryOfferEligibility(compactJWS: String) -> PurchaseOption {
      .init(kind: .introductoryOfferEligibility(compactJWS))
    }
    /// Test environment: a promotional offer without a signature.
    public static func promotionalOffer(id: String) -> PurchaseOption { .init(kind: .promotionalOffer(id)) }
    /// Test environment: redeems an offer code of the configuration (by its offer id).
    public static func codeOffer(referenceName: String) -> PurchaseOption { .init(kind: .codeOffer(referenceName)) }
    /// A win-back offer.
    public static func winBackOffer(_ offer: Product.SubscriptionOffer) -> PurchaseOption {
      .init(kind: .winBackOffer(offer.id ?? ""))
    }
    /// Test environment: a back-dated purchase; renewals are filled in up to now.
    public static func purchaseDate(_ date: Date) -> PurchaseOption { .init(kind: .purchaseDate(date)) }
    /// Sandbox only; no effect here (use `SKTestSession.askToBuyEnabled`).
    public static func simulatesAskToBuyInSandbox(_ value: Bool) -> PurchaseOption {
      .init(kind: .simulatesAskToBuyInSandbox(value))
    }
    /// Buys the product on a billing plan: `.monthly` is the commitment plan.
    public static func billingPlanType(_ type: Product.SubscriptionInfo.BillingPlanType) -> PurchaseOption {
      .init(kind: .billingPlanType(type.rawValue))
    }
    /// A custom key and value; no effect (the other value types are in Product+PurchaseOptions.swift).
    public static func custom(key: String, value: String) -> PurchaseOption {
      .init(kind: .custom(key, .string(value)))
    }

    static func engineOptions(_ options: Set<PurchaseOption>) throws -> (options: PurchaseOptions, date: Date?) {
      var result = PurchaseOptions()
      var date: Date?
      var offers = 0
      for option in options {
        switch option.kind {
        case .appAccountToken(let t): result.appAccountToken = t
        case .quantity(let q): result.quantity = q
        case .promotionalOffer(let id): result.offer = .promotional(id); offers += 1
        case .signedPromotionalOffer(let id, let signature):
          result.offer = .promotional(id)
          result.offerSignature = signature
          offers += 1
        case .introductoryOfferEligibility(let jws): result.introductoryOfferEligibility = jws
        case .codeOffer(let id): result.offer = .code(id); offers += 1
        case .winBackOffer(let id): result.offer = .winBack(id); offers += 1
        case .purchaseDate(let d): date = d
        case .billingPlanType(let raw):
          result.billingPlanType = raw == BillingPlanType.monthly.rawValue ? .monthly : nil
        case .simulatesAskToBuyInSandbox, .custom: break
        }
      }
      if offers > 1 { throw PurchaseError.invalidOfferIdentifier }
      return (result, date)
    }
  }

  /// A subscription period.
  public struct SubscriptionPeriod: Hashable, Sendable {
    public let unit: Unit
    public let value: Int

    public enum Unit: Int, Hashable, Sendable {
      case day, week, month, year
    }

    init(value: Int, unit: Unit) {
      self.value = value
      self.unit = unit
    }

    public static let everyThreeDays = SubscriptionPeriod(value: 3, unit: .day)
    public static let weekly = SubscriptionPeriod(value: 1, unit: .week)
    public static let everyTwoWeeks = SubscriptionPeriod(value: 2, unit: .week)
    public static let monthly = SubscriptionPeriod(value: 1, unit: .month)
    public static let everyTwoMonths = SubscriptionPeriod(value: 2, unit: .month)
    public static let everyThreeMonths = SubscriptionPeriod(value: 3, unit: .month)
    public static let everySixMonths = SubscriptionPeriod(value: 6, unit: .month)
    public static let yearly = SubscriptionPeriod(value: 1, unit: .year)

    init(_ p: StoreSim.SubscriptionPeriod) {
      value = p.value
      switch p.unit {
      case .day: unit = .day
      case .week: unit = .week
      case .month: unit = .month
      case .year: unit = .year
      }
    }
  }

  /// A subscription offer of the configuration.
  public struct SubscriptionOffer: Hashable, Sendable {
    public typealias OfferType = Transaction.OfferType

    public let id: String?
    public let type: OfferType
    public let price: Decimal
    public let displayPrice: String
    public let period: SubscriptionPeriod
    public let periodCount: Int
    public let paymentMode: PaymentMode

    /// How an offer is paid.
    public struct PaymentMode: RawRepresentable, Hashable, Sendable {
      public let rawValue: String
      public init(rawValue: String) { self.rawValue = rawValue }
      public static let freeTrial = PaymentMode(rawValue: "FREE_TRIAL")
      public static let payAsYouGo = PaymentMode(rawValue: "PAY_AS_YOU_GO")
      public static let payUpFront = PaymentMode(rawValue: "PAY_UP_FRONT")

      init(_ m: StoreSim.PaymentMode) { self.init(rawValue: m.rawValue) }
    }

    init(_ o: StoreSim.SubscriptionOffer, currency: String) {
      id = o.id
      type = OfferType(rawValue: o.type.rawValue)
      price = o.price
      displayPrice = Product.format(o.price, currency: currency)
      period = SubscriptionPeriod(o.period)
      periodCount = o.periodCount
      paymentMode = PaymentMode(o.paymentMode)
    }
  }
}
