import Foundation
import StoreSim

extension Product {
  /// The style of `displayPrice` for numbers derived from `price`: `(price * 2).formatted(priceFormatStyle)`.
  public var priceFormatStyle: PriceFormatStyle { PriceFormatStyle(currencyCode: currencyCode, locale: priceLocale) }

  /// The style of subscription periods: "1 month", "3 days".
  public var subscriptionPeriodFormatStyle: SubscriptionPeriod.FormatStyle { SubscriptionPeriod.FormatStyle() }

  /// The style of subscription period units: "month".
  public var subscriptionPeriodUnitFormatStyle: SubscriptionPeriod.Unit.FormatStyle {
    SubscriptionPeriod.Unit.FormatStyle()
  }

  /// The most recent transaction for the product, in the product's session.
  public var latestTransaction: VerificationResult<Transaction>? {
    get async { Transaction.latest(for: id, in: core) }
  }

  /// The transaction that entitles the customer to the product, if any (the older form).
  public var currentEntitlement: VerificationResult<Transaction>? {
    get async {
      for await result in currentEntitlements { return result }
      return nil
    }
  }

  /// The transactions that entitle the customer to the product.
  public var currentEntitlements: Transaction.Transactions {
    Transaction.snapshot(in: core) { core, store in
      store.currentEntitlements(customer: core.customer).filter { $0.productID == id }
    }
  }

  /// A price formatted as `displayPrice` is, by the engine's one price formatter (the CLI's and
  /// the wire's). StoreKit's is `Decimal.FormatStyle.Currency`; see the README.
  public struct PriceFormatStyle: Foundation.FormatStyle, Sendable {
    /// The ISO 4217 currency code.
    public let currencyCode: String
    /// The session's locale with the storefront's currency (`en_US@currency=EUR`), as
    /// StoreKit's style carries the device's: what wrappers read the currency symbol and
    /// grouping from.
    public let locale: Locale

    public init(currencyCode: String, locale: Locale = .current) {
      self.currencyCode = currencyCode
      self.locale = locale
    }

    public func format(_ value: Decimal) -> String { PriceFormatter.display(value, currency: currencyCode) }
  }
}

extension Product.SubscriptionPeriod {
  /// The period in words: "1 month", "2 weeks".
  public func formatted<S: Foundation.FormatStyle>(_ style: S) -> S.FormatOutput
  where S.FormatInput == Product.SubscriptionPeriod {
    style.format(self)
  }

  /// Formats subscription periods in English: "1 month", "3 days".
  public struct FormatStyle: Foundation.FormatStyle, Sendable {
    public init() {}

    public func format(_ value: Product.SubscriptionPeriod) -> String {
      "\(value.value) \(Unit.FormatStyle().format(value.unit))\(value.value == 1 ? "" : "s")"
    }
  }
}

extension Product.SubscriptionPeriod.Unit {
  /// The unit in words: "month".
  public func formatted<S: Foundation.FormatStyle>(_ style: S) -> S.FormatOutput
  where S.FormatInput == Product.SubscriptionPeriod.Unit {
    style.format(self)
  }

  /// Formats subscription period units in English: "day", "week", "month", "year".
  public struct FormatStyle: Foundation.FormatStyle, Sendable {
    public init() {}

    public func format(_ value: Product.SubscriptionPeriod.Unit) -> String {
      switch value {
      case .day: return "day"
      case .week: return "week"
      case .month: return "month"
      case .year: return "year"
      }
    }
  }
}
