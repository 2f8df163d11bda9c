import Foundation

/// Which kind of offer a transaction redeemed, as `Transaction.OfferType`.
///
/// Raw values are the App Store Server API `offerType` integers.
public enum OfferType: Int, Sendable, Hashable, Codable, CaseIterable {
  /// An introductory offer.
  case introductory = 1
  /// A promotional offer (`adHocOffers` in the file).
  case promotional = 2
  /// An offer code (`codeOffers` in the file).
  case code = 3
  /// A win-back offer.
  case winBack = 4

  /// The StoreKit 2 case name.
  public var storeKitName: String {
    switch self {
    case .introductory: return "introductory"
    case .promotional: return "promotional"
    case .code: return "code"
    case .winBack: return "winBack"
    }
  }
}

/// How an offer is paid, as `Transaction.Offer.PaymentMode`.
///
/// Raw values are the App Store Server API `offerDiscountType` strings.
public enum PaymentMode: String, Sendable, Hashable, Codable, CaseIterable {
  /// Free for the offer's duration.
  case freeTrial = "FREE_TRIAL"
  /// A discounted price each period for a number of periods.
  case payAsYouGo = "PAY_AS_YOU_GO"
  /// One discounted payment covering the whole offer.
  case payUpFront = "PAY_UP_FRONT"
  /// An offer code on a one-time product.
  case oneTime = "ONE_TIME"

  /// The StoreKit 2 case name.
  public var storeKitName: String {
    switch self {
    case .freeTrial: return "freeTrial"
    case .payAsYouGo: return "payAsYouGo"
    case .payUpFront: return "payUpFront"
    case .oneTime: return "oneTime"
    }
  }
}

/// A subscription offer configured for a product (`Product.SubscriptionOffer`).
public struct SubscriptionOffer: Sendable, Hashable, Codable {
  /// Which kind of offer.
  public var type: OfferType
  /// The offer id: `offerID` for promotional and win-back offers, the reference name for offer
  /// codes, nil for introductory offers.
  public var id: String?
  /// How it is paid.
  public var paymentMode: PaymentMode
  /// The length of one offer period.
  public var period: SubscriptionPeriod
  /// How many periods the offer lasts (`periodCount`).
  public var periodCount: Int
  /// The offer price: per period for pay as you go, for the whole offer when paid up front,
  /// zero for free trials.
  public var price: Decimal
  /// Offer codes: which customers may redeem; empty means all.
  public var eligibility: [OfferCodeEligibility]
  /// Win-back offers: Xcode's Eligible switch.
  public var isEligible: Bool

  /// Creates an offer.
  public init(
    type: OfferType, id: String? = nil, paymentMode: PaymentMode, period: SubscriptionPeriod,
    periodCount: Int = 1, price: Decimal = 0, eligibility: [OfferCodeEligibility] = [], isEligible: Bool = true
  ) {
    self.type = type
    self.id = id
    self.paymentMode = paymentMode
    self.period = period
    self.periodCount = periodCount
    self.price = price
    self.eligibility = eligibility
    self.isEligible = isEligible
  }

  /// The whole length of the offer (`offerPeriod` on the wire): period × count for every
  /// payment mode, so 3 × 1 month pay as you go is `P3M` (rule offer-period-is-the-whole-offer).
  public var totalPeriod: SubscriptionPeriod {
    period.times(periodCount)
  }
}

/// Which customers may redeem an offer code, as App Store Connect's customer eligibility. Raw
/// values are the `eligibility` strings of `.storekit` files.
public enum OfferCodeEligibility: String, Sendable, Hashable, Codable, CaseIterable {
  /// Customers who never subscribed in the group.
  case new
  /// Customers with an active subscription in the group.
  case existing
  /// Customers whose subscription in the group has expired.
  case expired
}
