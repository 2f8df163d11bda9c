import Foundation
import StoreSim

/// The answer key of a population: per calendar month (UTC) and product, what a correct
/// analytics pipeline computes from the transactions and the notifications
/// (docs/populations.md defines every column). Only PURCHASED transactions count: a family
/// member's copy is neither revenue nor a subscriber.
struct AnswerKey {
  static let header =
    "month,productId,activeAtEnd,purchases,renewals,refunds,grossRevenue,refundedRevenue,mrr,churned"
  /// The mean Gregorian month in milliseconds (30.436875 days), over which MRR spreads a price.
  static let month: Int64 = 2_629_746_000

  struct Row: Equatable {
    var activeAtEnd = 0
    var purchases = 0
    var renewals = 0
    var refunds = 0
    var grossRevenue: Int64 = 0
    var refundedRevenue: Int64 = 0
    var mrr: Int64 = 0
    var churned = 0
  }

  /// The first millisecond of each month from the start's month to the one after the end's.
  let monthStarts: [Int64]
  let products: [ProductID]
  var rows: [[Row]]

  /// The key of the customers `customers` over `[start, end)`.
  init(store: Store, customers: [CustomerID], start: Date, end: Date) {
    let first = Self.firstOfMonth(start)
    var starts: [Int64] = []
    var k = 0
    repeat {
      starts.append(UTCCalendar.adding(months: k, to: first).epochMilliseconds)
      k += 1
    } while starts[starts.count - 1] < end.epochMilliseconds
    monthStarts = starts
    products = store.configuration.products.map(\.id)
    let productIndex = Dictionary(products.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    let monthCount = starts.count - 1
    rows = Array(repeating: Array(repeating: Row(), count: products.count), count: monthCount)
    for id in customers {
      guard let customer = store.customer(id) else { continue }
      // Per subscription (original transaction id): the transaction in force at each month's end.
      var inForce: [TransactionID: [(purchase: Int64, id: TransactionID, product: Int, mrr: Int64)?]] = [:]
      for t in customer.transactions where t.ownershipType == .purchased {
        guard let p = productIndex[t.productID] else { continue }
        let price = Self.milliunits(t.price)
        let purchase = t.purchaseDate.epochMilliseconds
        if let m = month(of: purchase) {
          if t.reason == .renewal { rows[m][p].renewals += 1 } else { rows[m][p].purchases += 1 }
          rows[m][p].grossRevenue += price
        }
        let revoked = t.revocationDate?.epochMilliseconds
        if let revoked, let m = month(of: revoked) {
          rows[m][p].refunds += 1
          rows[m][p].refundedRevenue += price
        }
        guard t.productType == .autoRenewable, let expires = t.expirationDate?.epochMilliseconds, expires > purchase
        else { continue }
        let mrr = price * Self.month / (expires - purchase)
        var slots = inForce[t.originalID] ?? Array(repeating: nil, count: monthCount)
        for m in 0..<monthCount {
          let monthEnd = starts[m + 1] - 1
          guard purchase <= monthEnd, expires > monthEnd, !(revoked.map { $0 <= monthEnd } ?? false) else { continue }
          if let held = slots[m], (held.purchase, held.id) > (purchase, t.id) { continue }
          slots[m] = (purchase, t.id, p, mrr)
        }
        inForce[t.originalID] = slots
      }
      for slots in inForce.values {
        for m in 0..<monthCount {
          if let held = slots[m] {
            rows[m][held.product].activeAtEnd += 1
            rows[m][held.product].mrr += held.mrr
          } else if m > 0, let before = slots[m - 1] {
            rows[m][before.product].churned += 1
          }
        }
      }
    }
  }

  /// The month (index) a date falls in, if inside the key.
  func month(of date: Int64) -> Int? {
    guard date >= monthStarts[0], date < monthStarts[monthStarts.count - 1] else { return nil }
    var low = 0
    var high = monthStarts.count - 1
    while high - low > 1 {
      let mid = (low + high) / 2
      if monthStarts[mid] <= date { low = mid } else { high = mid }
    }
    return low
  }

  /// The CSV: the header, then one line per month and product, months in order, products in
  /// the configuration's order.
  var csv: String {
    var out = Self.header + "\n"
    for (m, row) in rows.enumerated() {
      let label = ISO8601.string(Date(epochMilliseconds: monthStarts[m])).prefix(7)
      for (p, r) in row.enumerated() {
        out += "\(label),\(products[p]),\(r.activeAtEnd),\(r.purchases),\(r.renewals),\(r.refunds),"
        out += "\(r.grossRevenue),\(r.refundedRevenue),\(r.mrr),\(r.churned)\n"
      }
    }
    return out
  }

  /// The first millisecond of the date's month (UTC).
  static func firstOfMonth(_ date: Date) -> Date {
    let text = ISO8601.string(date)  // YYYY-MM-DDThh:mm:ssZ
    let year = Int64(text.prefix(4)) ?? 1970
    let month = Int64(text.dropFirst(5).prefix(2)) ?? 1
    return Date(epochMilliseconds: UTCCalendar.daysFromCivil(year: year, month: month, day: 1) * 86_400_000)
  }

  /// Currency units to milliunits, as the transaction payloads carry them (`4.99` → `4990`).
  static func milliunits(_ price: Decimal) -> Int64 {
    var value = price * 1000
    var rounded = Decimal()
    NSDecimalRound(&rounded, &value, 0, .plain)
    return NSDecimalNumber(decimal: rounded).int64Value
  }
}
