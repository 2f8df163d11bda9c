import Foundation

extension Product {
  /// The product as StoreKit 2 presents it (`Product` property names), localized and priced for
  /// a storefront.
  public func jsonRepresentation(locale: String, storefront: Storefront) -> JSONOutput {
    let localization = localization(for: locale)
    var dict: [String: JSONOutput] = [
      "id": .string(id),
      "type": .string(type.rawValue),
      "displayName": .string(localization?.displayName ?? ""),
      "description": .string(localization?.description ?? ""),
      "price": .decimal(price),
      "displayPrice": .string(PriceFormatter.display(price, currency: storefront.currency)),
      "currency": .string(storefront.currency),
      "isFamilyShareable": .bool(isFamilyShareable),
      "referenceName": .string(referenceName),
    ]
    if let s = subscription {
      var sub: [String: JSONOutput] = [
        "subscriptionGroupID": .string(s.groupID),
        "groupLevel": .int(Int64(s.groupLevel)),
        "subscriptionPeriod": .string(s.period.iso8601),
        "promotionalOffers": .array(s.promotionalOffers.map { $0.jsonRepresentation(currency: storefront.currency) }),
        "offerCodes": .array(s.offerCodes.map { $0.jsonRepresentation(currency: storefront.currency) }),
        "winBackOffers": .array(s.winBackOffers.map { $0.jsonRepresentation(currency: storefront.currency) }),
      ]
      if let intro = s.introductoryOffer {
        sub["introductoryOffer"] = intro.jsonRepresentation(currency: storefront.currency)
      }
      dict["subscription"] = .object(sub)
    }
    return .object(dict)
  }
}

extension SubscriptionOffer {
  /// The offer as `Product.SubscriptionOffer` presents it.
  public func jsonRepresentation(currency: String) -> JSONOutput {
    .object([
      "id": id.map(JSONOutput.string),
      "type": .string(type.storeKitName),
      "paymentMode": .string(paymentMode.storeKitName),
      "period": .string(period.iso8601),
      "periodCount": .int(Int64(periodCount)),
      "price": .decimal(price),
      "displayPrice": .string(PriceFormatter.display(price, currency: currency)),
      "eligibility": type == .code && !eligibility.isEmpty ? .array(eligibility.map { .string($0.rawValue) }) : nil,
      "isEligible": type == .winBack ? .bool(isEligible) : nil,
    ])
  }
}

/// Formats prices for people, independent of the machine's locale.
package enum PriceFormatter {
  private static let symbols: [String: String] = [
    "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "KRW": "₩", "INR": "₹",
    "RUB": "₽", "CAD": "CA$", "AUD": "A$", "NZD": "NZ$", "HKD": "HK$", "SGD": "S$",
    "TWD": "NT$", "MXN": "MX$", "BRL": "R$", "CHF": "CHF ", "PLN": "zł ", "TRY": "₺",
  ]
  private static let zeroDecimal: Set<String> = ["JPY", "KRW", "CLP", "VND", "IDR", "HUF", "COP", "KZT"]

  /// `$4.99`, `¥400`, `€0.99`, `$1,234.50`: as StoreKit shows prices on an English (United
  /// States) device, the locale StoreKit Testing in Xcode uses by default — the currency's
  /// symbol (or its code), thousands grouped with commas.
  package static func display(_ price: Decimal, currency: String) -> String {
    let digits = zeroDecimal.contains(currency) ? 0 : 2
    return (symbols[currency] ?? "\(currency) ") + grouped(plain(price, fractionDigits: digits))
  }

  /// `1234.50` → `1,234.50`; `-1234` → `-1,234`.
  static func grouped(_ amount: String) -> String {
    let negative = amount.hasPrefix("-")
    let unsigned = negative ? amount.dropFirst() : Substring(amount)
    let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    var whole = Array(parts[0])
    var index = whole.count - 3
    while index > 0 {
      whole.insert(",", at: index)
      index -= 3
    }
    let fraction = parts.count > 1 ? "." + parts[1] : ""
    return (negative ? "-" : "") + String(whole) + fraction
  }

  /// The amount with a fixed number of fraction digits, rounded half up: `4.99`.
  package static func plain(_ price: Decimal, fractionDigits: Int) -> String {
    var value = price
    var rounded = Decimal()
    NSDecimalRound(&rounded, &value, fractionDigits, .plain)
    let text = NSDecimalNumber(decimal: rounded).stringValue
    guard fractionDigits > 0 else { return text }
    let parts = text.split(separator: ".", maxSplits: 1)
    let whole = parts.first.map(String.init) ?? "0"
    var fraction = parts.count > 1 ? String(parts[1]) : ""
    while fraction.count < fractionDigits { fraction += "0" }
    return whole + "." + fraction
  }
}
