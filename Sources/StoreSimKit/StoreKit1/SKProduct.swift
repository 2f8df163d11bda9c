import Foundation
import StoreSim

/// A product of the session's configuration, as StoreKit 1's `SKProduct` (what an
/// `SKProductsRequest` answers with). StoreKit 1 has no product type: a consumable and a
/// non-consumable look the same to the app.
public final class SKProduct: NSObject, @unchecked Sendable {
  public let productIdentifier: String
  public let localizedTitle: String
  public let localizedDescription: String
  public let price: NSDecimalNumber
  /// The session's locale with the storefront's currency (`en_US@currency=EUR`).
  public let priceLocale: Locale
  public let subscriptionPeriod: SKProductSubscriptionPeriod?
  public let introductoryPrice: SKProductDiscount?
  /// The promotional offers.
  public let discounts: [SKProductDiscount]
  public let subscriptionGroupIdentifier: String?
  public let isFamilyShareable: Bool
  /// Hosted content is not simulated: always false.
  public let isDownloadable = false
  public let downloadContentLengths: [NSNumber] = []
  public let contentVersion = ""
  public let downloadContentVersion = ""

  init(_ p: StoreSim.Product, store: Store) {
    productIdentifier = p.id
    let localization = p.localization(for: store.settings.locale)
    localizedTitle = localization?.displayName ?? p.referenceName
    localizedDescription = localization?.description ?? ""
    price = NSDecimalNumber(decimal: p.price)
    let locale = SKProduct.priceLocale(store)
    priceLocale = locale
    subscriptionPeriod = p.subscription.map { SKProductSubscriptionPeriod($0.period) }
    introductoryPrice = p.subscription?.introductoryOffer.map { SKProductDiscount($0, locale: locale) }
    discounts = (p.subscription?.promotionalOffers ?? []).map { SKProductDiscount($0, locale: locale) }
    subscriptionGroupIdentifier = p.subscription?.groupID
    isFamilyShareable = p.isFamilyShareable
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

  public override var description: String { "SKProduct(\(productIdentifier), \(price))" }
}

/// A subscription period, as `SKProductSubscriptionPeriod`.
public final class SKProductSubscriptionPeriod: NSObject, @unchecked Sendable {
  public let numberOfUnits: Int
  public let unit: SKProduct.PeriodUnit

  init(_ p: SubscriptionPeriod) {
    numberOfUnits = p.value
    switch p.unit {
    case .day: unit = .day
    case .week: unit = .week
    case .month: unit = .month
    case .year: unit = .year
    }
    super.init()
  }

  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? SKProductSubscriptionPeriod else { return false }
    return numberOfUnits == other.numberOfUnits && unit == other.unit
  }

  public override var hash: Int { numberOfUnits &* 4 &+ Int(unit.rawValue) }
}

/// An introductory or promotional offer, as `SKProductDiscount`.
public final class SKProductDiscount: NSObject, @unchecked Sendable {
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

  public let price: NSDecimalNumber
  public let priceLocale: Locale
  /// The offer id; nil for the introductory offer.
  public let identifier: String?
  public let subscriptionPeriod: SKProductSubscriptionPeriod
  public let numberOfPeriods: Int
  public let paymentMode: PaymentMode
  public let type: SKProductDiscount.`Type`

  init(_ o: SubscriptionOffer, locale: Locale) {
    price = NSDecimalNumber(decimal: o.price)
    priceLocale = locale
    identifier = o.type == .introductory ? nil : o.id
    subscriptionPeriod = SKProductSubscriptionPeriod(o.period)
    numberOfPeriods = o.periodCount
    switch o.paymentMode {
    case .freeTrial: paymentMode = .freeTrial
    case .payUpFront, .oneTime: paymentMode = .payUpFront
    case .payAsYouGo: paymentMode = .payAsYouGo
    }
    type = o.type == .introductory ? .introductory : .subscription
    super.init()
  }
}
