import Foundation
import StoreSim

extension Product.SubscriptionInfo {
  /// How a subscription is billed: up front for each period, or monthly inside a 12-month
  /// commitment (`Product.SubscriptionInfo.BillingPlanType`).
  public struct BillingPlanType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let upFront = BillingPlanType(rawValue: "BILLED_UPFRONT")
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")

    init(_ type: StoreSim.BillingPlanType) { self.init(rawValue: type.rawValue) }
  }

  /// A commitment's terms on the product: its total price and length.
  public struct CommitmentInfo: Hashable, Sendable {
    /// The total cost of the full commitment.
    public let price: Decimal
    public let displayPrice: String
    /// The commitment's length (a year).
    public let period: Product.SubscriptionPeriod
  }

  /// One way to pay for the subscription (`pricingTerms`): every auto-renewable has the
  /// up-front entry; a one-year product with an enabled monthly plan also has a monthly one.
  public struct PricingTerms: Hashable, Sendable {
    public let billingPlanType: BillingPlanType
    /// The price charged at each billing event.
    public let billingPrice: Decimal
    public let billingDisplayPrice: String
    /// The period between charges.
    public let billingPeriod: Product.SubscriptionPeriod
    /// The commitment of a monthly plan; nil up front.
    public let commitmentInfo: CommitmentInfo?
    /// The offers of this billing plan (storesim configures offers on the up-front plan only).
    public let subscriptionOffers: [Product.SubscriptionOffer]

    /// The offers of one type.
    public subscript(offers type: Product.SubscriptionOffer.OfferType) -> [Product.SubscriptionOffer] {
      subscriptionOffers.filter { $0.type == type }
    }

    /// The 27.3 shape: one price per billing event, with the commitment.
    public var pricingModel: PricingModel {
      .singlePrice(
        SinglePrice(
          billingInfo: BillingInfo(price: billingPrice, displayPrice: billingDisplayPrice, period: billingPeriod),
          commitmentInfo: commitmentInfo))
    }

    /// How the terms charge.
    public enum PricingModel: Hashable, Sendable {
      case singlePrice(SinglePrice)
    }

    /// One price for each billing event.
    public struct SinglePrice: Hashable, Sendable {
      public let billingInfo: BillingInfo
      public let commitmentInfo: CommitmentInfo?
    }
  }

  /// The price charged at each billing event and the period between them.
  public struct BillingInfo: Hashable, Sendable {
    public let price: Decimal
    public let displayPrice: String
    public let period: Product.SubscriptionPeriod
  }

  /// The pricing terms of a product (rule commitment-plan-bills-monthly-inside-twelve-months).
  static func pricingTerms(
    _ product: StoreSim.Product, offers: [Product.SubscriptionOffer], currency: String
  ) -> [PricingTerms] {
    guard let s = product.subscription else { return [] }
    var terms = [
      PricingTerms(
        billingPlanType: .upFront, billingPrice: product.price,
        billingDisplayPrice: Product.format(product.price, currency: currency),
        billingPeriod: Product.SubscriptionPeriod(s.period), commitmentInfo: nil, subscriptionOffers: offers)
    ]
    if let plan = product.monthlyBillingPlan {
      let total = plan.totalCommitmentPrice
      terms.append(
        PricingTerms(
          billingPlanType: .monthly, billingPrice: plan.price,
          billingDisplayPrice: Product.format(plan.price, currency: currency), billingPeriod: .monthly,
          commitmentInfo: CommitmentInfo(
            price: total, displayPrice: Product.format(total, currency: currency), period: .yearly),
          subscriptionOffers: []))
    }
    return terms
  }
}

extension Transaction {
  /// A commitment plan's billing period (`Transaction.CommitmentInfo`).
  public struct CommitmentInfo: Hashable, Sendable {
    /// Which billing period this transaction pays for ("2 of 12").
    public let billingPeriodNumber: UInt64
    public let totalBillingPeriods: UInt64
    /// When the whole commitment ends (for display; entitlement follows `expirationDate`).
    public let expirationDate: Date
    /// The total cost of the full commitment.
    public let price: Decimal

    init(_ c: TransactionCommitment) {
      billingPeriodNumber = UInt64(c.billingPeriodNumber)
      totalBillingPeriods = UInt64(c.totalBillingPeriods)
      expirationDate = c.expirationDate
      price = c.price
    }
  }
}

extension Product.SubscriptionInfo.RenewalInfo {
  /// What renews when the commitment ends (`RenewalInfo.CommitmentInfo`).
  public struct CommitmentInfo: Hashable, Sendable {
    /// The product renewed into after the commitment.
    public let autoRenewPreference: String
    public let renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType
    /// When the commitment renews.
    public let renewalDate: Date
    /// One charge of the plan after the commitment.
    public let renewalPrice: Decimal
    /// Whether the commitment renews (turned off by cancelling; billing goes on).
    public let willAutoRenew: Bool

    init(_ c: RenewalCommitment) {
      autoRenewPreference = c.autoRenewProductID
      renewalBillingPlanType = .init(c.renewalBillingPlanType)
      renewalDate = c.renewalDate
      renewalPrice = c.renewalPrice
      willAutoRenew = c.willAutoRenew
    }
  }
}
