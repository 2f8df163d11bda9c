/// A length of time in calendar units, as StoreKit's `Product.SubscriptionPeriod`.
///
/// Written and read as ISO 8601 (`P1M`, `P3D`, `P1Y`), the form `.storekit` files and the
/// App Store Server API's `offerPeriod` use.
public struct SubscriptionPeriod: Sendable, Hashable, Codable, CustomStringConvertible {
  /// A calendar unit of a period.
  public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
    /// A day.
    case day
    /// A week (seven days).
    case week
    /// A calendar month.
    case month
    /// A calendar year.
    case year

    var letter: Character {
      switch self {
      case .day: return "D"
      case .week: return "W"
      case .month: return "M"
      case .year: return "Y"
      }
    }
  }

  /// How many units.
  public var value: Int
  /// The unit.
  public var unit: Unit

  /// Creates a period.
  public init(value: Int, unit: Unit) {
    self.value = value
    self.unit = unit
  }

  /// Parses `P<n>D|W|M|Y` (also the combined `P1Y2M`-free single-unit form only); nil otherwise.
  public init?(iso8601 text: String) {
    let upper = text.uppercased()
    guard upper.hasPrefix("P"), upper.count >= 3, let last = upper.last else { return nil }
    let digits = upper.dropFirst().dropLast()
    guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), n > 0, n <= 100_000
    else { return nil }
    switch last {
    case "D": self.init(value: n, unit: .day)
    case "W": self.init(value: n, unit: .week)
    case "M": self.init(value: n, unit: .month)
    case "Y": self.init(value: n, unit: .year)
    default: return nil
    }
  }

  /// The ISO 8601 form, e.g. `P1M`.
  public var iso8601: String { "P\(value)\(unit.letter)" }

  /// `P1M`.
  public var description: String { iso8601 }

  /// The period expressed in months when it is a whole number of months or years.
  public var months: Int? {
    switch unit {
    case .month: return value
    case .year: return value * 12
    default: return nil
    }
  }

  /// This period repeated `count` times.
  public func times(_ count: Int) -> SubscriptionPeriod {
    SubscriptionPeriod(value: value * max(count, 1), unit: unit)
  }
}
