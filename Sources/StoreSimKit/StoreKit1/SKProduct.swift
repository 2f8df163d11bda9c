import Foundation
import StoreSim

// Open, as in StoreKit (where it comes from Objective-C): an app's tests subclass it to make
// products of their own (`init()`, then overriding the properties they need). Unchecked only
// because of that: every value it holds is set once, in an initializer.
/// A product of the session's configuration, as StoreKit 1's `SKProduct` (what an
/// `SKProductsRequest` answers with). StoreKit 1 has no product type: a consumable and a
/// non-consumable look the same to the app.
open class SKProduct: NSObject, @unchecked Sendable {
  private let values: Values

  /// What the properties read; a product made by `init()` has the empty ones.
  private struct Values {
    var productIdentifier = ""
    var localizedTitle = ""
    var localizedDescription = ""
    var price = NSDecimalNumber.zero
    var priceLocale = Locale(identifier: "en_US@currency=USD")
    var subscriptionPeriod: SKProductSubscriptionPeriod?
    var introductoryPrice: SKProductDiscount?
    var discounts: [SKProductDiscount] = []
    var subscriptionGroupIdentifier: String?
    var isFamilyShareable = false
  }

  open var productIdentifier: String { values.productIdentifier }
  open var localizedTitle: String { values.localizedTitle }
  open var localizedDescription: String { values.localizedDescription }
  open var price: NSDecimalNumber { values.price }
  /// The session's locale with the storefront's currency (`en_US@currency=EUR`).
  open var priceLocale: Locale { values.priceLocale }
  open var subscriptionPeriod: SKProductSubscriptionPeriod? { values.subscriptionPeriod }
  open var introductoryPrice: SKProductDiscount? { values.introductoryPrice }
  /// The promotional offers.
  open var discounts: [SKProductDiscount] { values.discounts }
  open var subscriptionGroupIdentifier: String? { values.subscriptionGroupIdentifier }
  open var isFamilyShareable: Bool { values.isFamilyShareable }
  /// Hosted content is not simulated: always false.
  open var isDownloadable: Bool { false }
  open var downloadContentLengths: [NSNumber] { [] }
  open var contentVersion: String { "" }
  open var downloadContentVersion: String { "" }

  /// An empty product (identifier `""`, price 0), as `NSObject`'s `init()` makes one in StoreKit:
  /// for a subclass that overrides the properties it needs.
  public override init() {
    values = Values()
    super.init()
  }

  init(_ p: StoreSim.Product, store: Store) {
    var v = Values()
    v.productIdentifier = p.id
    let localization = p.localization(for: store.settings.locale)
    v.localizedTitle = localization?.displayName ?? p.referenceName
    v.localizedDescription = localization?.description ?? ""
    v.price = NSDecimalNumber(decimal: p.price)
    let locale = SKProduct.priceLocale(store)
    v.priceLocale = locale
    v.subscriptionPeriod = p.subscription.map { SKProductSubscriptionPeriod($0.period) }
    v.introductoryPrice = p.subscription?.introductoryOffer.map { SKProductDiscount($0, locale: locale) }
    v.discounts = (p.subscription?.promotionalOffers ?? []).map { SKProductDiscount($0, locale: locale) }
    v.subscriptionGroupIdentifier = p.subscription?.groupID
    v.isFamilyShareable = p.isFamilyShareable
    values = v
    super.init()
  }

  static func priceLocale(_ store: Store) -> Locale {
    let currency = (StoreSim.Storefront.named(store.settings.storefront) ?? .usa).currency
    return Locale(identifier: "\(store.settings.locale)@currency=\(currency)")
  }

  /// Units of a subscription period, as `SKProduct.PeriodUnit`.
  public enum PeriodUnit: UInt, Sendable, Hashable {
    case day = 0
    case week = 1
    case month = 2
    case year = 3
  }

  open override var description: String { "SKProduct(\(productIdentifier), \(price))" }
}

// Open, as in StoreKit, for the same reason as `SKProduct`.
/// A subscription period, as `SKProductSubscriptionPeriod`.
open class SKProductSubscriptionPeriod: NSObject, @unchecked Sendable {
  private let period: (numberOfUnits: Int, unit: SKProduct.PeriodUnit)

  open var numberOfUnits: Int { period.numberOfUnits }
  open var unit: SKProduct.PeriodUnit { period.unit }

  /// A period of 0 days, for a subclass that overrides the properties.
  public override init() {
    period = (0, .day)
    super.init()
  }

  init(_ p: SubscriptionPeriod) {
    switch p.unit {
    case .day: period = (p.value, .day)
    case .week: period = (p.value, .week)
    case .month: period = (p.value, .month)
    case .year: period = (p.value, .year)
    }
    super.init()
  }

  open override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? SKProductSubscriptionPeriod else { return false }
    return numberOfUnits == other.numberOfUnits && unit == other.unit
  }

  open override var hash: Int { numberOfUnits &* 4 &+ Int(unit.rawValue) }
}

// Open, as in StoreKit, for the same reason as `SKProduct`.
/// An introductory or promotional offer, as `SKProductDiscount`.
open class SKProductDiscount: NSObject, @unchecked Sendable {
  /// How an offer is paid, as `SKProductDiscount.PaymentMode`.
  public enum PaymentMode: UInt, Sendable, Hashable {
    case payAsYouGo = 0
    case payUpFront = 1
    case freeTrial = 2
  }

  /// Introductory or promotional (`subscription`), as `SKProductDiscount.Type`.
  public enum `Type`: UInt, Sendable, Hashable {
    case introductory = 0
    case subscription = 1
  }

  private let values: Values

  private struct Values {
    var price = NSDecimalNumber.zero
    var priceLocale = Locale(identifier: "en_US@currency=USD")
    var identifier: String?
    var subscriptionPeriod = SKProductSubscriptionPeriod()
    var numberOfPeriods = 0
    var paymentMode = PaymentMode.payAsYouGo
    var type: SKProductDiscount.`Type` = .introductory
  }

  open var price: NSDecimalNumber { values.price }
  open var priceLocale: Locale { values.priceLocale }
  /// The offer id; nil for the introductory offer.
  open var identifier: String? { values.identifier }
  open var subscriptionPeriod: SKProductSubscriptionPeriod { values.subscriptionPeriod }
  open var numberOfPeriods: Int { values.numberOfPeriods }
  open var paymentMode: PaymentMode { values.paymentMode }
  open var type: SKProductDiscount.`Type` { values.type }

  /// An empty offer (price 0, no periods), for a subclass that overrides the properties.
  public override init() {
    values = Values()
    super.init()
  }

  init(_ o: SubscriptionOffer, locale: Locale) {
    var v = Values()
    v.price = NSDecimalNumber(decimal: o.price)
    v.priceLocale = locale
    v.identifier = o.type == .introductory ? nil : o.id
    v.subscriptionPeriod = SKProductSubscriptionPeriod(o.period)
    v.numberOfPeriods = o.periodCount
    switch o.paymentMode {
    case .freeTrial: v.paymentMode = .freeTrial
    case .payUpFront, .oneTime: v.paymentMode = .payUpFront
    case .payAsYouGo: v.paymentMode = .payAsYouGo
    }
    v.type = o.type == .introductory ? .introductory : .subscription
    values = v
    super.init()
  }
}
