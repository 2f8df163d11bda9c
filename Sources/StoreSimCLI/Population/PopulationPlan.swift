import Foundation
import StoreSim

/// What `populate` is asked for: how many customers, for how long, from which seed, which
/// products and how often each thing happens. Every rate is a percentage (0 to 100); the
/// defaults and the published figures behind them are in docs/populations.md.
struct PopulationPlan {
  /// The rates, each a percentage.
  struct Rates: Equatable {
    /// Subscribers who turn auto-renew off, per month of a paid period.
    var churn = 7.0
    /// Subscribers in an introductory offer who cancel before it ends.
    var introCancel = 62.0
    /// Renewals that fail for billing.
    var billingFailure = 6.0
    /// Failed renewals the customer resolves in grace or billing retry.
    var recovery = 53.0
    /// Purchased transactions refunded.
    var refund = 1.0
    /// Subscribers who change level in their group, per month.
    var planChange = 2.0
    /// Subscribers about to cancel who take a promotional offer instead (when the product has one).
    var promotional = 10.0
    /// Customers who organise a Family Sharing group (one to three members).
    var family = 5.0
    /// First purchases that wait for a parent's approval (Ask to Buy).
    var askToBuy = 2.0
    /// Ask to Buy requests the parent declines.
    var askToBuyDecline = 25.0
  }

  var customers: Int
  var months: Int
  var seed: UInt64
  /// Arrivals are spread over the first `arrivalMonths` months.
  var arrivalMonths: Int
  /// Products and their shares in thousandths of a percent (they sum to 100,000).
  var mix: [(product: ProductID, share: Int)]
  var rates: Rates
  /// The K-th (1-based) of N shards: customers whose number is K modulo N.
  var shard: (index: Int, count: Int) = (1, 1)

  /// Whether customer `number` belongs to this shard.
  func includes(_ number: Int) -> Bool {
    (number - 1) % shard.count == shard.index - 1
  }

  /// The product customer number's dice pick.
  func product(for roll: Int) -> ProductID {
    var left = roll
    for entry in mix {
      if left < entry.share { return entry.product }
      left -= entry.share
    }
    return mix[mix.count - 1].product
  }

  /// The default mix: every auto-renewable subscription in equal shares, or every product when
  /// the configuration has none.
  static func defaultMix(_ configuration: StoreConfiguration) -> [(product: ProductID, share: Int)] {
    let subscriptions = configuration.products.filter { $0.type == .autoRenewable }.map(\.id)
    let ids = subscriptions.isEmpty ? configuration.products.map(\.id) : subscriptions
    guard !ids.isEmpty else { return [] }
    let each = 100_000 / ids.count
    return ids.enumerated().map { i, id in (id, i == 0 ? 100_000 - each * (ids.count - 1) : each) }
  }

  /// `PRODUCT=SHARE,...`: known products, shares in percent that sum to 100.
  static func parseMix(_ text: String, configuration: StoreConfiguration) throws -> [(product: ProductID, share: Int)] {
    var mix: [(product: ProductID, share: Int)] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pieces.count == 2, let share = thousandths(String(pieces[1])) else {
        throw CLIError.usage(
          "--mix takes PRODUCT=SHARE,... with shares in percent (got '\(part)')", command: "populate")
      }
      let id = String(pieces[0])
      guard configuration.product(id) != nil else {
        let hint = Suggestion.closest(to: id, in: configuration.products.map(\.id)).map { "; did you mean '\($0)'?" }
        throw CLIError.usage(
          "--mix names '\(id)', which is not a product of the configuration\(hint ?? "")", command: "populate")
      }
      guard !mix.contains(where: { $0.product == id }) else {
        throw CLIError.usage("--mix names '\(id)' twice", command: "populate")
      }
      mix.append((id, share))
    }
    let total = mix.reduce(0) { $0 + $1.share }
    guard total == 100_000 else {
      throw CLIError.usage("--mix shares sum to \(Decimal(total) / 1000) %, not 100", command: "populate")
    }
    return mix
  }

  /// A percentage with at most three decimals, in thousandths (0...100,000); nil otherwise.
  static func thousandths(_ text: String) -> Int? {
    guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !text.isEmpty,
      text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), value >= 0, value <= 100
    else { return nil }
    var scaled = value * 1000
    var rounded = Decimal()
    NSDecimalRound(&rounded, &scaled, 0, .plain)
    guard rounded == scaled else { return nil }
    return NSDecimalNumber(decimal: rounded).intValue
  }

  /// A rate option (`--NAME`): a percentage from 0 to 100.
  static func rate(_ name: String) -> (String, ParseContext) throws -> Double {
    { text, context in
      guard let value = thousandths(text) else {
        throw CLIError.usage(
          "--\(name) is a percentage from 0 to 100 (at most three decimals), not '\(text)'", command: context.command)
      }
      return Double(value) / 1000
    }
  }

  /// `K/N` with 1 ≤ K ≤ N.
  static func shard(_ text: String, _ context: ParseContext) throws -> (index: Int, count: Int) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 1_000_000, k >= 1, k <= n
    else {
      throw CLIError.usage(
        "--shard takes K/N with 1 ≤ K ≤ N (the K-th of N parts), not '\(text)'", command: context.command)
    }
    return (k, n)
  }
}
