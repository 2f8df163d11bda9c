import Foundation
import StoreSim

/// What a row of `storesim manage` stands for; selection follows it across reloads.
enum ManageRowKey: Hashable, Sendable {
  case transaction(CustomerID, TransactionID)
  /// An Ask to Buy request or an interrupted purchase (its request id).
  case request(String)
  /// A server notification (its index in the outbox).
  case notification(Int)
}

/// One selectable row: a transaction, a pending request or a notification, with its state
/// badges in the words the filter's `state:` term matches.
struct ManageItem: Sendable {
  var key: ManageRowKey
  var customer: CustomerID
  /// The id shown (and given to the CLI): a transaction id, `request 3`, `#12`.
  var id: String
  var productID: ProductID
  var date: Date
  /// The first badge: the row's state (active, refunded, ask-to-buy, DID_RENEW, ...).
  var state: String
  /// The other badges (unfinished, refund-requested, family-shared, delivered, ...).
  var flags: [String]

  var badges: String { ([state] + flags).joined(separator: " ") }
}

/// Rows of one subscription group or one product, newest first.
struct ManageGroup: Sendable {
  var title: String
  var items: [ManageItem]
}

/// A line of a list: a group heading or a selectable item.
enum ManageRow: Sendable {
  case heading(String)
  case item(ManageItem)

  var item: ManageItem? {
    if case .item(let i) = self { return i }
    return nil
  }
}

/// Builds the rows of the lists from a store (pure: the same store gives the same rows).
enum ManageRows {
  /// Every customer's transactions and pending requests, newest first, grouped by
  /// subscription group (auto-renewables) or product (the others); groups ordered by their
  /// newest row.
  static func transactionGroups(_ store: Store) -> [ManageGroup] {
    var sorted: [(date: Date, order: UInt64, item: ManageItem, group: String)] = []
    let refundRequested = Set(store.refundRequests().map { $0.transactionID })
    let configuration = store.configuration
    for customerID in store.customerIDs {
      guard let customer = store.customer(customerID) else { continue }
      var latest: [SubscriptionGroupID: SubscriptionState] = [:]
      for s in customer.subscriptions { latest[s.groupID] = s }
      for t in customer.transactions {
        let item = transactionItem(
          t, customer: customerID, store: store, latest: latest, refundRequested: refundRequested)
        sorted.append((t.purchaseDate, t.id, item, groupKey(t.productID, t.subscriptionGroupID)))
      }
    }
    for r in store.pendingRequests() {
      let item = ManageItem(
        key: .request(r.id), customer: r.customer, id: "request \(r.id)", productID: r.productID, date: r.date,
        state: r.kind == .askToBuy ? "ask-to-buy" : "interrupted", flags: [])
      let group = configuration.product(r.productID)?.subscription?.groupID
      // Requests sort above transactions of the same instant.
      sorted.append((r.date, UInt64.max - UInt64(Int(r.id) ?? 0), item, groupKey(r.productID, group)))
    }
    sorted.sort { ($0.date, $0.order) > ($1.date, $1.order) }
    var index: [String: Int] = [:]
    var groups: [ManageGroup] = []
    for entry in sorted {
      if let i = index[entry.group] {
        groups[i].items.append(entry.item)
      } else {
        index[entry.group] = groups.count
        groups.append(ManageGroup(title: groupTitle(entry.group, configuration), items: [entry.item]))
      }
    }
    return groups
  }

  private static func groupKey(_ product: ProductID, _ group: SubscriptionGroupID?) -> String {
    group.map { "g:" + $0 } ?? "p:" + product
  }

  private static func groupTitle(_ key: String, _ configuration: StoreConfiguration) -> String {
    let id = String(key.dropFirst(2))
    if key.hasPrefix("g:") {
      return "\(configuration.group(id)?.name ?? id) (subscription group)"
    }
    let type = configuration.product(id)?.type.storeKitName ?? "product"
    return "\(id) (\(type))"
  }

  /// A transaction's state and flags.
  static func transactionItem(
    _ t: Transaction, customer: CustomerID, store: Store, latest: [SubscriptionGroupID: SubscriptionState],
    refundRequested: Set<TransactionID>
  ) -> ManageItem {
    var flags: [String] = []
    let state = primaryState(t, store: store, latest: latest)
    if t.isUpgraded && state != "upgraded" { flags.append("upgraded") }
    if refundRequested.contains(t.id) { flags.append("refund-requested") }
    if t.ownershipType == .familyShared { flags.append("family-shared") }
    if let group = t.subscriptionGroupID, let s = latest[group], s.latestTransactionID == t.id,
      t.ownershipType == .purchased, !s.isExpired, !s.isRevoked
    {
      if !s.willAutoRenew { flags.append("renew-off") }
      if s.priceIncreaseStatus == .pending { flags.append("price-increase") }
    }
    if !t.isFinished { flags.append("unfinished") }
    return ManageItem(
      key: .transaction(customer, t.id), customer: customer, id: String(t.id), productID: t.productID,
      date: t.purchaseDate, state: state, flags: flags)
  }

  private static func primaryState(
    _ t: Transaction, store: Store, latest: [SubscriptionGroupID: SubscriptionState]
  ) -> String {
    if t.revocationDate != nil { return t.isFamilyRevocation ? "revoked" : "refunded" }
    switch t.productType {
    case .consumable, .nonConsumable:
      return "purchased"
    case .nonRenewable:
      return (t.expirationDate.map { $0 <= store.now } ?? false) ? "expired" : "active"
    case .autoRenewable:
      if let group = t.subscriptionGroupID, let s = latest[group], s.latestTransactionID == t.id,
        t.ownershipType == .purchased
      {
        switch s.state {
        case .subscribed: return "active"
        case .inGracePeriod: return "grace-period"
        case .inBillingRetryPeriod: return "billing-retry"
        case .expired: return "expired"
        case .revoked: return "revoked"
        }
      }
      if let e = t.expirationDate, e <= store.now { return "expired" }
      return t.isUpgraded ? "upgraded" : "active"
    }
  }

  /// The notification outbox, newest first, each with its delivery.
  static func notificationItems(_ store: Store) -> [ManageItem] {
    var attempts: [Int: (count: Int, delivered: Bool)] = [:]
    for a in store.state.deliveryLog ?? [] {
      var entry = attempts[a.index] ?? (0, false)
      entry.count += 1
      entry.delivered = entry.delivered || a.succeeded
      attempts[a.index] = entry
    }
    var items: [ManageItem] = []
    items.reserveCapacity(store.notifications.count)
    for (index, n) in store.notifications.enumerated().reversed() {
      var flags: [String] = []
      if let a = attempts[index] { flags.append(a.delivered ? "delivered" : "failed x\(a.count)") }
      items.append(
        ManageItem(
          key: .notification(index), customer: n.customer, id: "#\(index)", productID: n.transaction?.productID ?? "",
          date: n.signedDate, state: n.name, flags: flags))
    }
    return items
  }
}

/// The `/` filter: words that must all match. `customer:NAME`, `product:TEXT`, `state:BADGE`
/// and `type:NAME` match that field (a part of it, any case); a plain word matches the id or
/// the product (and a notification's type).
struct ManageFilter: Equatable, Sendable {
  var text: String

  private var terms: [(field: String?, value: String)] {
    text.lowercased().split(separator: " ").map { word -> (field: String?, value: String) in
      let parts = word.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      if parts.count == 2, ["customer", "product", "state", "type"].contains(String(parts[0])) {
        return (String(parts[0]), String(parts[1]))
      }
      return (nil, String(word))
    }
  }

  var isEmpty: Bool { text.trimmingCharacters(in: .whitespaces).isEmpty }

  func matches(_ item: ManageItem) -> Bool {
    for (field, value) in terms {
      let ok: Bool
      switch field {
      case "customer": ok = item.customer.rawValue.lowercased().contains(value)
      case "product": ok = item.productID.lowercased().contains(value)
      case "state", "type": ok = item.badges.lowercased().contains(value)
      default:
        // A plain word: the id or the product (and on the notification log, the type).
        var notification = false
        if case .notification = item.key { notification = true }
        ok =
          item.id.lowercased().contains(value) || item.productID.lowercased().contains(value)
          || (notification && item.state.lowercased().contains(value))
      }
      if !ok { return false }
    }
    return true
  }

  /// The rows of `groups` that match, each group under its heading (groups with no match are
  /// left out).
  func rows(_ groups: [ManageGroup]) -> [ManageRow] {
    var rows: [ManageRow] = []
    let all = isEmpty
    for g in groups {
      let items = all ? g.items : g.items.filter(matches)
      guard !items.isEmpty else { continue }
      rows.append(.heading(g.title))
      for i in items { rows.append(.item(i)) }
    }
    return rows
  }

  func rows(_ items: [ManageItem]) -> [ManageRow] {
    (isEmpty ? items : items.filter(matches)).map { .item($0) }
  }
}
