import Foundation
import StoreSim
import StoreSimServer

/// The details of the selected row, as the app and the server receive it: the decoded
/// transaction and renewal info in Apple's field names, the subscription's status, its
/// timeline (the `timeline` command's drawing), and the notifications it caused.
enum ManageDetails {
  /// The title of the details screen.
  static func title(_ model: ManageModel) -> String {
    guard let item = model.selectedItem else { return "< \(model.tab.title)" }
    return "< \(model.tab.title) / \(item.id)  \(item.productID)  (customer \(item.customer))"
  }

  /// Every line of the details (the screen shows a window of them).
  static func lines(_ model: ManageModel) -> [String] {
    guard let item = model.selectedItem else { return ["(nothing selected)"] }
    let store = model.store
    var out: [String]
    switch item.key {
    case .transaction(let customer, let id):
      guard let t = store.customer(customer)?.transaction(id) else { return ["(transaction \(id) is gone)"] }
      out = transaction(t, item: item, customer: customer, model: model)
    case .request(let id):
      guard let r = store.pendingRequests().first(where: { $0.id == id }) else { return ["(request \(id) is gone)"] }
      out = request(r)
    case .notification(let index):
      guard index < store.notifications.count else { return ["(notification #\(index) is gone)"] }
      out = notification(index, store: store)
    }
    return out.flatMap { wrap(TerminalText.field($0), model.width) }
  }

  /// A line longer than the screen, broken at spaces under its own indentation (+2); a part
  /// with no space to break at is cut.
  static func wrap(_ line: String, _ width: Int) -> [String] {
    guard line.count > width else { return [line] }
    let indent = String(repeating: " ", count: line.prefix { $0 == " " }.count + 2)
    var out: [String] = []
    var rest = Substring(line)
    var prefix = ""
    while (prefix + rest).count > width {
      let room = width - prefix.count
      let head = rest.prefix(room + 1)
      guard let space = head.lastIndex(of: " "), rest[..<space].contains(where: { $0 != " " }) else { break }
      out.append(prefix + rest[..<space])
      rest = rest[rest.index(after: space)...].drop { $0 == " " }
      prefix = indent
    }
    out.append(ManageScreen.fit(prefix + rest, width))
    return out
  }

  private static func transaction(
    _ t: Transaction, item: ManageItem, customer: CustomerID, model: ManageModel
  ) -> [String] {
    let store = model.store
    var out = ["STATE  " + item.badges]
    out += ([item.state] + item.flags).compactMap { why($0, t) }.map { "  " + $0 }
    out.append("")
    out.append("TRANSACTION  (the payload of Transaction.all and Transaction.updates)")
    out += fields(store.payload(t, customer: customer))
    guard let group = t.subscriptionGroupID else { return out }
    let statuses = store.statuses(forGroup: group, customer: customer)
    if let s = statuses.first(where: { $0.transaction.originalID == t.originalID }) ?? statuses.first {
      out.append("")
      out.append("STATUS  \(s.state.rawValue) (server status \(s.state.serverStatus))")
      out.append("RENEWAL INFO  (Product.SubscriptionInfo.RenewalInfo)")
      out += fields(store.payload(s.renewalInfo, customer: customer))
    }
    if let g = store.configuration.group(group) {
      out.append("")
      out.append("TIMELINE")
      if !model.hasNotifications { out.append("  (reading the notification log: grace and retry spans follow)") }
      let label = store.customerIDs.map { TerminalText.field($0.rawValue).count }.max() ?? 7
      let width = min(400, max(20, model.width - label - 6))
      out += Timeline.render(store: store, groups: [g], width: width, colour: false)
        .split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    }
    let related = store.notifications.enumerated().filter {
      $0.element.customer == customer && $0.element.transaction?.originalID == t.originalID
    }
    if !related.isEmpty {
      out.append("")
      out.append("NOTIFICATIONS  (press 2 for the log)")
      for (i, n) in related.suffix(20) {
        out.append("  #\(i)  \(ISO8601.string(n.signedDate))  \(n.name)")
      }
    }
    return out
  }

  /// Why a badge is there, and what to press about it.
  private static func why(_ badge: String, _ t: Transaction) -> String? {
    switch badge {
    case "unfinished": return "unfinished: the app has not called finish(); Transaction.unfinished lists it (f)"
    case "refund-requested": return "refund-requested: waiting for the App Store's answer (a approve, d decline)"
    case "refunded": return "refunded: revocationDate is set; it left the entitlements (v reverses)"
    case "revoked": return "revoked: Family Sharing access ended, or the subscription was revoked"
    case "upgraded": return "upgraded: replaced by a higher level of the group (isUpgraded)"
    case "family-shared": return "family-shared: shared by \(t.sharedFrom?.rawValue ?? "a family member")"
    case "billing-retry": return "billing-retry: the renewal failed; no access while the App Store retries (i)"
    case "grace-period": return "grace-period: the renewal failed; access continues for now (i resolves)"
    case "expired": return "expired: the period ended"
    case "renew-off": return "renew-off: auto-renew is off; it ends at the period end (u resumes)"
    case "price-increase": return "price-increase: waiting for the customer's consent (p)"
    default: return nil
    }
  }

  private static func request(_ r: PendingRequest) -> [String] {
    var out = [
      "REQUEST  \(r.kind == .askToBuy ? "ask-to-buy" : "interrupted")",
      r.kind == .askToBuy
        ? "  the app got Product.PurchaseResult.pending; a approves (the transaction arrives on Transaction.updates), d declines"
        : "  the purchase was interrupted; i resolves it (the transaction arrives on Transaction.updates)",
      "",
      "  requestId              \(r.id)",
      "  customer               \(r.customer)",
      "  productId              \(r.productID)",
      "  date                   \(ISO8601.string(r.date))",
      "  quantity               \(r.options.quantity)",
    ]
    if let token = r.options.appAccountToken { out.append("  appAccountToken        \(token.uuidString.lowercased())") }
    if let offer = r.options.offer { out.append("  offer                  \(offer)") }
    return out
  }

  private static func notification(_ index: Int, store: Store) -> [String] {
    let n = store.notifications[index]
    var out = [
      "NOTIFICATION #\(index)  \(n.name)  (customer \(n.customer))",
      "  decoded: data.transactionInfo and data.renewalInfo are the signed fields, decoded",
      "",
    ]
    out += fields(store.decodedPayload(n))
    let attempts = (store.state.deliveryLog ?? []).filter { $0.index == index }
    out.append("")
    out.append("DELIVERY  " + (attempts.isEmpty ? "not delivered (no deliver-url)" : "\(attempts.count) attempt(s)"))
    for a in attempts {
      out.append(
        "  \(ISO8601.string(a.date))  \(a.url)  \(a.outcome)  \(ServerAPI.sendAttemptResult(a))\(a.label)"
          + (a.nextAttempt.map { ", next \(ISO8601.string($0))" } ?? ""))
    }
    return out
  }

  /// A JSON object as `key  value` lines, nested objects as `a.b`; epoch-millisecond dates
  /// also in ISO 8601; long signed values shortened (the decoded fields follow them).
  static func fields(_ json: JSONOutput, indent: String = "  ") -> [String] {
    guard case .object(let d) = json else { return [] }
    var out: [String] = []
    var nested: [String] = []
    for key in d.keys.sorted() {
      let name = key
      switch d[key]! {
      case .object:
        nested.append(indent + key)
        nested += fields(d[key]!, indent: indent + "  ")
      case .string(let s):
        let shown = s.count > 48 && key.hasPrefix("signed") ? String(s.prefix(40)) + "... (JWS)" : s
        out.append(line(name, shown, indent))
      case .int(let v):
        let date = key.hasSuffix("Date") && v > 100_000_000_000
        out.append(line(name, String(v) + (date ? "  " + ISO8601.string(Date(epochMilliseconds: v)) : ""), indent))
      case .array(let items):
        out.append(line(name, items.map { $0.rendered(pretty: false) }.joined(separator: ", "), indent))
      case let other:
        out.append(line(name, other.rendered(pretty: false), indent))
      }
    }
    return out + nested
  }

  /// `key` in a column of 30 from the left edge, then the value.
  private static func line(_ key: String, _ value: String, _ indent: String) -> String {
    indent + key.padding(toLength: max(30 - indent.count, key.count + 1), withPad: " ", startingAt: 0) + value
  }
}
