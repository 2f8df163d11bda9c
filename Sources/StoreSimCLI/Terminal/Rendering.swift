import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

/// Text for people: aligned columns, ISO 8601 UTC dates, one line per event.
enum Render {
  static func date(_ d: Date?) -> String { d.map(ISO8601.string) ?? "-" }

  static func price(_ t: Transaction) -> String { PriceFormatter.display(t.price, currency: t.currency) }

  static func flags(_ t: Transaction) -> String {
    var f: [String] = []
    if let o = t.offer { f.append("\(o.type.storeKitName) \(o.paymentMode.storeKitName) \(o.period)") }
    if t.reason == .renewal { f.append("renewal") }
    if t.purchasedQuantity > 1 { f.append("×\(t.purchasedQuantity)") }
    if t.isUpgraded { f.append("upgraded") }
    if t.ownershipType == .familyShared { f.append("family shared from \(t.sharedFrom ?? "?")") }
    if let r = t.revocationDate {
      f.append(
        (t.isFamilyRevocation ? "family revoked " : "refunded ") + ISO8601.string(r)
          + (t.revocationReason == .developerIssue ? " (developer issue)" : "")
          + (t.revocationType == .refundProrated ? " (prorated \(percentText(t.revocationPercentage ?? 0)))" : ""))
    }
    if !t.isFinished { f.append("unfinished") }
    return f.joined(separator: ", ")
  }

  /// Milliunits of a percent as a percentage (`40000` → `40%`, `67932` → `67.932%`).
  static func percentText(_ milliunits: UInt64) -> String {
    let fraction = milliunits % 1000
    guard fraction != 0 else { return "\(milliunits / 1000)%" }
    var decimals = String(fraction)
    decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
    while decimals.hasSuffix("0") { decimals.removeLast() }
    return "\(milliunits / 1000).\(decimals)%"
  }

  /// A table of transactions; `orders` adds each purchase's order id (Look Up Order ID).
  static func transactions(_ list: [Transaction], orders: Bool = false) -> String {
    if list.isEmpty { return "(none)" }
    var rows = [["TRANSACTION", "PRODUCT", "PURCHASED", "EXPIRES", "PRICE"] + (orders ? ["ORDER"] : []) + ["NOTES"]]
    for t in list {
      rows.append(
        [String(t.id), t.productID, date(t.purchaseDate), t.expirationDate.map(ISO8601.string) ?? "", price(t)]
          + (orders ? [OrderID.of(t) ?? "-"] : []) + [flags(t)])
    }
    return Table.render(rows)
  }

  /// One line for a store event.
  static func event(_ e: StoreEvent) -> String? {
    let who = e.customer.map { $0 == .default ? "" : "[\($0)] " } ?? ""
    let text: String
    switch e.kind {
    case .transactionCreated(let id, let product, let delivery):
      text = "transaction \(id) for \(product)" + (delivery == .updates ? " (via Transaction.updates)" : "")
    case .transactionRevoked(let id, let product): text = "transaction \(id) for \(product) revoked"
    case .transactionUpgraded(let id, let product): text = "transaction \(id) for \(product) marked isUpgraded"
    case .subscriptionRenewed(_, let id, let product): text = "renewed \(product): transaction \(id)"
    case .renewalFailed(_, let product, let grace):
      text =
        "renewal of \(product) failed: "
        + (grace.map { "grace period until \(ISO8601.string($0))" } ?? "billing retry, no access")
    case .gracePeriodExpired(_, let product): text = "grace period of \(product) ended; billing retry continues"
    case .subscriptionExpired(_, let product, let reason): text = "\(product) expired (\(reason.storeKitName))"
    case .renewalPreferenceChanged(_, let product): text = "will renew as \(product)"
    case .autoRenewStatusChanged(_, let product, let on): text = "auto-renew \(on ? "on" : "off") for \(product)"
    case .priceIncreaseStatusChanged(_, let product, let status):
      text = "price increase for \(product): \(status.rawValue)"
    case .offerRedeemed(_, let product, let type, let id):
      text = "\(type.storeKitName) offer \(id ?? "") redeemed for \(product) from the next renewal"
    case .askToBuyRequested(let id, let product): text = "Ask to Buy request \(id) for \(product)"
    case .askToBuyDeclined(let id, let product): text = "Ask to Buy request \(id) for \(product) declined"
    case .purchaseInterrupted(let id, let product):
      text = "purchase of \(product) interrupted (request \(id)); run 'resolve \(product)'"
    case .refundRequested(let id, let tid, let product):
      text = "refund request \(id) for transaction \(tid) (\(product)) waits for the App Store's answer"
    case .refundDeclined(let id, let tid, _): text = "refund request \(id) for transaction \(tid) declined"
    case .refundReversed(let tid, let product):
      text = "refund of transaction \(tid) for \(product) reversed; access restored"
    case .notificationSent(_, let type, let subtype): text = "notification " + ServerNotification.name(type, subtype)
    case .clockAdvanced: return nil
    }
    return TerminalText.field("\(ISO8601.string(e.date))  \(who)\(text)")
  }

  static func events(_ list: [StoreEvent]) -> String {
    list.compactMap { event($0) }.joined(separator: "\n")
  }

  static func eventJSON(_ e: StoreEvent) -> JSONOutput {
    var d: [String: JSONOutput] = ["date": .int(e.date.epochMilliseconds)]
    if let customer = e.customer { d["customer"] = .string(customer.rawValue) }
    switch e.kind {
    case .transactionCreated(let id, let p, let delivery):
      d["event"] = .string("transactionCreated"); d["transactionId"] = .string(String(id)); d["productId"] = .string(p);
      d["delivery"] = .string(delivery.rawValue)
    case .transactionRevoked(let id, let p):
      d["event"] = .string("transactionRevoked"); d["transactionId"] = .string(String(id)); d["productId"] = .string(p)
    case .transactionUpgraded(let id, let p):
      d["event"] = .string("transactionUpgraded"); d["transactionId"] = .string(String(id)); d["productId"] = .string(p)
    case .subscriptionRenewed(let g, let id, let p):
      d["event"] = .string("subscriptionRenewed"); d["subscriptionGroupIdentifier"] = .string(g);
      d["transactionId"] = .string(String(id)); d["productId"] = .string(p)
    case .renewalFailed(let g, let p, let grace):
      d["event"] = .string("renewalFailed"); d["subscriptionGroupIdentifier"] = .string(g); d["productId"] = .string(p)
      if let grace { d["gracePeriodExpiresDate"] = .int(grace.epochMilliseconds) }
    case .gracePeriodExpired(let g, let p):
      d["event"] = .string("gracePeriodExpired"); d["subscriptionGroupIdentifier"] = .string(g);
      d["productId"] = .string(p)
    case .subscriptionExpired(let g, let p, let reason):
      d["event"] = .string("subscriptionExpired"); d["subscriptionGroupIdentifier"] = .string(g);
      d["productId"] = .string(p); d["expirationIntent"] = .int(Int64(reason.rawValue))
    case .renewalPreferenceChanged(let g, let p):
      d["event"] = .string("renewalPreferenceChanged"); d["subscriptionGroupIdentifier"] = .string(g);
      d["autoRenewProductId"] = .string(p)
    case .autoRenewStatusChanged(let g, let p, let on):
      d["event"] = .string("autoRenewStatusChanged"); d["subscriptionGroupIdentifier"] = .string(g);
      d["productId"] = .string(p); d["autoRenewStatus"] = .int(on ? 1 : 0)
    case .priceIncreaseStatusChanged(let g, let p, let status):
      d["event"] = .string("priceIncreaseStatusChanged"); d["subscriptionGroupIdentifier"] = .string(g);
      d["productId"] = .string(p); d["priceIncreaseStatus"] = .string(status.rawValue)
    case .offerRedeemed(let g, let p, let type, let id):
      d["event"] = .string("offerRedeemed"); d["subscriptionGroupIdentifier"] = .string(g); d["productId"] = .string(p);
      d["offerType"] = .int(Int64(type.rawValue))
      if let id { d["offerIdentifier"] = .string(id) }
    case .askToBuyRequested(let id, let p):
      d["event"] = .string("askToBuyRequested"); d["requestId"] = .string(id); d["productId"] = .string(p)
    case .askToBuyDeclined(let id, let p):
      d["event"] = .string("askToBuyDeclined"); d["requestId"] = .string(id); d["productId"] = .string(p)
    case .purchaseInterrupted(let id, let p):
      d["event"] = .string("purchaseInterrupted"); d["requestId"] = .string(id); d["productId"] = .string(p)
    case .refundRequested(let id, let tid, let p):
      d["event"] = .string("refundRequested"); d["requestId"] = .string(id); d["transactionId"] = .string(String(tid));
      d["productId"] = .string(p)
    case .refundDeclined(let id, let tid, let p):
      d["event"] = .string("refundDeclined"); d["requestId"] = .string(id); d["transactionId"] = .string(String(tid));
      d["productId"] = .string(p)
    case .refundReversed(let tid, let p):
      d["event"] = .string("refundReversed"); d["transactionId"] = .string(String(tid)); d["productId"] = .string(p)
    case .notificationSent(let index, let type, let subtype):
      d["event"] = .string("notificationSent"); d["index"] = .int(Int64(index));
      d["notificationType"] = .string(type.rawValue)
      if let subtype { d["subtype"] = .string(subtype.rawValue) }
    case .clockAdvanced(let to):
      d["event"] = .string("clockAdvanced"); d["to"] = .int(to.epochMilliseconds)
    }
    return .object(d)
  }
}
