import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

/// Draws subscription history as characters on a time axis.
enum Timeline {
  static let legend =
    "legend: t trial  o offer  = paid  g grace period  r billing retry  x refunded  | plan change  . not subscribed"

  static func render(store: Store, groups: [SubscriptionGroup], width: Int, colour: Bool) -> String {
    var out: [String] = []
    var drewCommitment = false
    for group in groups {
      var rows: [(CustomerID, [Transaction])] = []
      for name in store.customerIDs {
        let list = store.allTransactions(customer: name).filter { $0.subscriptionGroupID == group.id }
        if !list.isEmpty { rows.append((name, list)) }
      }
      guard !rows.isEmpty else {
        out.append(TerminalText.field("\(group.name): no subscriptions"))
        continue
      }
      let start = rows.flatMap { $0.1 }.map(\.purchaseDate).min()!
      let end = max(store.now, rows.flatMap { $0.1 }.compactMap(\.expirationDate).max() ?? store.now)
      let span = max(end.timeIntervalSince(start), 1)
      func column(_ d: Date) -> Int { min(width - 1, max(0, Int(d.timeIntervalSince(start) / span * Double(width)))) }
      let label = rows.map { TerminalText.field($0.0.rawValue).count }.max()! + 2
      out.append(TerminalText.field("\(group.name) (\(group.id))"))
      out.append(
        String(repeating: " ", count: label) + ISO8601.string(start).prefix(10)
          + String(repeating: " ", count: max(1, width - 20)) + ISO8601.string(end).prefix(10))
      for (name, list) in rows {
        var cells = [Character](repeating: ".", count: width)
        let sorted = list.sorted { $0.purchaseDate < $1.purchaseDate }
        for (i, t) in sorted.enumerated() {
          var stop = t.expirationDate ?? end
          if t.isUpgraded, i + 1 < sorted.count { stop = min(stop, sorted[i + 1].purchaseDate) }
          let ch: Character = t.isRevoked ? "x" : t.offer?.paymentMode == .freeTrial ? "t" : t.offer != nil ? "o" : "="
          let a = column(t.purchaseDate), b = max(a, column(stop) - (column(stop) > a ? 1 : 0))
          for c in a...b { cells[c] = ch }
          if i > 0, sorted[i - 1].productID != t.productID { cells[a] = "|" }
        }
        // Grace and retry spans from the notifications of this customer and group.
        var failingSince: (Date, Character)?
        for n in notifications(store: store, group: group, customer: name) {
          switch (n.notificationType, n.subtype) {
          case (.didFailToRenew, let sub): failingSince = (n.signedDate, sub == .gracePeriod ? "g" : "r")
          case (.gracePeriodExpired, _):
            if let (from, _) = failingSince { paint(&cells, column(from), column(n.signedDate), "g") }
            failingSince = (n.signedDate, "r")
          case (.didRenew, _), (.expired, _), (.refund, _):
            if let (from, ch) = failingSince { paint(&cells, column(from), column(n.signedDate), ch) }
            failingSince = nil
          default: break
          }
        }
        if let (from, ch) = failingSince { paint(&cells, column(from), column(store.now), ch) }
        let row = colour ? colourise(cells) : String(cells)
        out.append(TerminalText.field(name.rawValue).padding(toLength: label, withPad: " ", startingAt: 0) + row)
        // The second clock of a commitment plan: each commitment from its period 1 to its end.
        var commitment = [Character](repeating: " ", count: width)
        for t in sorted where t.commitmentInfo?.billingPeriodNumber == 1 {
          let a = column(t.purchaseDate), b = max(a, column(t.commitmentInfo!.expirationDate) - 1)
          paint(&commitment, a, b, "c")
          commitment[a] = "|"
        }
        if commitment.contains("c") {
          drewCommitment = true
          out.append(String(repeating: " ", count: label) + String(commitment))
        }
      }
      out.append("")
    }
    out.append(legend)
    if drewCommitment { out.append("c commitment (12 monthly billing periods, one row under the customer's)") }
    return out.joined(separator: "\n")
  }

  /// One stretch of a customer's subscription: a transaction's period (`paid`, `trial`,
  /// `offer`, `refunded`) or a failing renewal's (`grace`, `billingRetry`).
  struct Period {
    var kind: String
    var transaction: Transaction?
    var start: Date
    var end: Date
  }

  /// A customer's periods in one group: every transaction's, in purchase order (an upgraded one
  /// ends where the next begins), then the grace and retry spans the notifications tell.
  static func periods(store: Store, group: SubscriptionGroup, customer name: CustomerID) -> [Period] {
    let sorted = store.allTransactions(customer: name).filter { $0.subscriptionGroupID == group.id }.sorted {
      $0.purchaseDate < $1.purchaseDate
    }
    guard !sorted.isEmpty else { return [] }
    var periods: [Period] = []
    for (i, t) in sorted.enumerated() {
      var stop = t.expirationDate ?? store.now
      if t.isUpgraded, i + 1 < sorted.count { stop = min(stop, sorted[i + 1].purchaseDate) }
      let kind =
        t.isRevoked ? "refunded" : t.offer?.paymentMode == .freeTrial ? "trial" : t.offer != nil ? "offer" : "paid"
      periods.append(Period(kind: kind, transaction: t, start: t.purchaseDate, end: stop))
    }
    var failingSince: (Date, String)?
    func close(_ end: Date) {
      if let (from, kind) = failingSince { periods.append(Period(kind: kind, start: from, end: end)) }
    }
    for n in notifications(store: store, group: group, customer: name) {
      switch (n.notificationType, n.subtype) {
      case (.didFailToRenew, let sub):
        failingSince = (n.signedDate, sub == .gracePeriod ? "grace" : "billingRetry")
      case (.gracePeriodExpired, _):
        close(n.signedDate)
        failingSince = (n.signedDate, "billingRetry")
      case (.didRenew, _), (.expired, _), (.refund, _):
        close(n.signedDate)
        failingSince = nil
      default: break
      }
    }
    close(store.now)
    return periods
  }

  /// The notifications about a customer's subscriptions in one group, in the order sent.
  static func notifications(store: Store, group: SubscriptionGroup, customer name: CustomerID) -> [ServerNotification] {
    store.notifications.filter { $0.customer == name && $0.transaction?.subscriptionGroupID == group.id }
  }

  /// The same periods as data: per group and customer, each period's kind, product,
  /// transaction and start and end (epoch milliseconds, like the wire shapes).
  static func json(store: Store, groups: [SubscriptionGroup]) -> JSONOutput {
    func ms(_ d: Date) -> JSONOutput { .int(d.epochMilliseconds) }
    var items: [JSONOutput] = []
    for group in groups {
      var customers: [JSONOutput] = []
      for name in store.customerIDs {
        let periods = Self.periods(store: store, group: group, customer: name)
        guard !periods.isEmpty else { continue }
        let rows: [JSONOutput] = periods.map { p in
          .object([
            "kind": .string(p.kind), "productId": p.transaction.map { .string($0.productID) },
            "transactionId": p.transaction.map { .string(String($0.id)) }, "start": ms(p.start), "end": ms(p.end),
          ])
        }
        customers.append(.object(["customer": .string(name.rawValue), "periods": .array(rows)]))
      }
      items.append(
        .object([
          "subscriptionGroupIdentifier": .string(group.id), "name": .string(group.name), "customers": .array(customers),
        ]))
    }
    return .object(["now": ms(store.now), "groups": .array(items)])
  }

  static func paint(_ cells: inout [Character], _ a: Int, _ b: Int, _ ch: Character) {
    guard a <= b else { return }
    for c in a..<max(a + 1, b) where c < cells.count { cells[c] = ch }
  }

  static func colourise(_ cells: [Character]) -> String {
    let codes: [Character: String] = ["=": "32", "t": "36", "o": "36", "g": "33", "r": "31", "x": "35", "|": "1"]
    return cells.map { ch in codes[ch].map { "\u{1B}[\($0)m\(ch)\u{1B}[0m" } ?? String(ch) }.joined()
  }
}
