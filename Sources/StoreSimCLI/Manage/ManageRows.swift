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

/// Where a row's data is in the store: small and plain, so a list of 100,000 sorts, filters
/// and scrolls fast; the row's text (`ManageItem`) is made only when it is drawn or matched.
struct ManageRef: Sendable, Equatable {
  enum Kind: UInt8, Sendable { case transaction, request, notification }
  var kind: Kind
  /// The customer's index in the state (transactions).
  var customer: Int32
  /// The transaction's index in its customer, the request's or the notification's index.
  var index: Int32
  /// The transaction id, the request number or the notification index.
  var id: UInt64
  /// Epoch milliseconds of the row's date (the sort key).
  var ms: Int64
  /// A notification's deliveries: 0 none, n delivered (n attempts), -n failed n times.
  var delivery: Int32 = 0
  /// The group's index while the list is built.
  var group: Int32 = 0
}

/// Rows of one subscription group or one product, newest first.
struct ManageGroup: Sendable {
  var title: String
  var refs: [ManageRef]
}

/// A line of a list: a group heading or a selectable row.
enum ManageRow: Sendable {
  /// The heading of `groups[i]` (an index keeps rows plain values: 100,000 copy fast).
  case heading(Int)
  case item(ManageRef)

  var ref: ManageRef? {
    if case .item(let r) = self { return r }
    return nil
  }
}

/// Builds the rows of the lists from a store (pure: the same store gives the same rows).
enum ManageRows {
  /// Every customer's transactions and pending requests, newest first, grouped by
  /// subscription group (auto-renewables) or product (the others); groups ordered by their
  /// newest row.
  static func transactionGroups(_ store: Store) -> [ManageGroup] {
    // Each row's group is found first (by subscription group, else product), so that the sort
    // moves only plain values.
    var titles: [String] = []
    var byGroup: [SubscriptionGroupID: Int32] = [:]
    var byProduct: [ProductID: Int32] = [:]
    func groupIndex(_ product: ProductID, _ group: SubscriptionGroupID?) -> Int32 {
      if let group {
        if let i = byGroup[group] { return i }
        byGroup[group] = Int32(titles.count)
        titles.append("\(store.configuration.group(group)?.name ?? group) (subscription group)")
      } else {
        if let i = byProduct[product] { return i }
        byProduct[product] = Int32(titles.count)
        titles.append("\(product) (\(store.configuration.product(product)?.type.storeKitName ?? "product"))")
      }
      return Int32(titles.count - 1)
    }
    let state = store.state
    var refs: [ManageRef] = []
    refs.reserveCapacity(state.customers.reduce(state.pendingRequests.count) { $0 + $1.transactions.count })
    for (ci, customer) in state.customers.enumerated() {
      var last: (ProductID, Int32)?
      for (ti, t) in customer.transactions.enumerated() {
        let product = t.productID
        let group: Int32
        if let (p, g) = last, p == product {
          group = g
        } else {
          group = groupIndex(product, t.subscriptionGroupID)
          last = (product, group)
        }
        refs.append(
          ManageRef(
            kind: .transaction, customer: Int32(ci), index: Int32(ti), id: t.id, ms: t.purchaseDate.epochMilliseconds,
            group: group))
      }
    }
    for (ri, r) in state.pendingRequests.enumerated() {
      let group = groupIndex(r.productID, store.configuration.product(r.productID)?.subscription?.groupID)
      refs.append(
        ManageRef(
          kind: .request, customer: -1, index: Int32(ri), id: UInt64(r.id) ?? 0, ms: r.date.epochMilliseconds,
          group: group))
    }
    // Newest first; at one instant, requests above transactions, later ids above earlier ones.
    refs.sort { a, b in
      if a.ms != b.ms { return a.ms > b.ms }
      if a.kind != b.kind { return a.kind == .request }
      return a.id > b.id
    }
    // Groups in the order of their newest row.
    var order = [Int32](repeating: -1, count: titles.count)
    var groups: [ManageGroup] = []
    for ref in refs {
      var at = order[Int(ref.group)]
      if at < 0 {
        at = Int32(groups.count)
        order[Int(ref.group)] = at
        groups.append(ManageGroup(title: titles[Int(ref.group)], refs: []))
      }
      groups[Int(at)].refs.append(ref)
    }
    return groups
  }

  /// The notification outbox, newest first, each with its deliveries (one pass over the log).
  static func notificationRefs(_ store: Store) -> [ManageRef] {
    var attempts = [Int32](repeating: 0, count: store.notifications.count)
    var delivered = [Bool](repeating: false, count: store.notifications.count)
    for a in store.state.deliveryLog ?? [] where attempts.indices.contains(a.index) {
      attempts[a.index] += 1
      delivered[a.index] = delivered[a.index] || a.succeeded
    }
    return store.notifications.indices.reversed().map {
      ManageRef(
        kind: .notification, customer: -1, index: Int32($0), id: UInt64($0),
        ms: store.notifications[$0].signedDate.epochMilliseconds,
        delivery: delivered[$0] ? attempts[$0] : -attempts[$0])
    }
  }

  /// The key that finds the row again in a later state of the session.
  static func key(_ ref: ManageRef, _ store: Store) -> ManageRowKey {
    switch ref.kind {
    case .transaction: return .transaction(store.state.customers[Int(ref.customer)].id, ref.id)
    case .request: return .request(store.state.pendingRequests[Int(ref.index)].id)
    case .notification: return .notification(Int(ref.index))
    }
  }

  /// Whether `ref` is the row `key` names.
  static func matches(_ ref: ManageRef, _ key: ManageRowKey, _ store: Store) -> Bool {
    switch (key, ref.kind) {
    case (.transaction(let c, let id), .transaction):
      return ref.id == id && store.state.customers[Int(ref.customer)].id == c
    case (.request(let id), .request): return store.state.pendingRequests[Int(ref.index)].id == id
    case (.notification(let i), .notification): return Int(ref.index) == i
    default: return false
    }
  }

  /// The text of a row: its id, customer, product, date and badges.
  static func item(_ ref: ManageRef, _ store: Store) -> ManageItem {
    switch ref.kind {
    case .transaction:
      let customer = store.state.customers[Int(ref.customer)]
      let t = customer.transactions[Int(ref.index)]
      return transactionItem(t, customer: customer, store: store)
    case .request:
      let r = store.state.pendingRequests[Int(ref.index)]
      return ManageItem(
        key: .request(r.id), customer: r.customer, id: "request \(r.id)", productID: r.productID, date: r.date,
        state: r.kind == .askToBuy ? "ask-to-buy" : "interrupted", flags: [])
    case .notification:
      return notificationItem(Int(ref.index), delivery: ref.delivery, store)
    }
  }

  /// A transaction's state and flags.
  static func transactionItem(_ t: Transaction, customer: Customer, store: Store) -> ManageItem {
    var flags: [String] = []
    let latest = t.subscriptionGroupID.flatMap { customer.subscription($0) }
    let state = primaryState(t, customer: customer.id, store: store, latest: latest)
    if t.isUpgraded && state != "upgraded" { flags.append("upgraded") }
    if store.state.refundRequests?.contains(where: { $0.transactionID == t.id }) == true {
      flags.append("refund-requested")
    }
    if t.ownershipType == .familyShared { flags.append("family-shared") }
    if let s = latest, s.latestTransactionID == t.id,
      t.ownershipType == .purchased, !s.isExpired, !s.isRevoked
    {
      if !s.willAutoRenew { flags.append("renew-off") }
      if s.priceIncreaseStatus == .pending { flags.append("price-increase") }
    }
    if !t.isFinished { flags.append("unfinished") }
    return ManageItem(
      key: .transaction(customer.id, t.id), customer: customer.id, id: String(t.id), productID: t.productID,
      date: t.purchaseDate, state: state, flags: flags)
  }

  private static func primaryState(
    _ t: Transaction, customer: CustomerID, store: Store, latest: SubscriptionState?
  ) -> String {
    if t.revocationDate != nil { return t.isFamilyRevocation ? "revoked" : "refunded" }
    switch t.productType {
    case .consumable, .nonConsumable:
      return "purchased"
    case .nonRenewable:
      return (t.expirationDate.map { $0 <= store.now } ?? false) ? "expired" : "active"
    case .autoRenewable:
      if let s = latest, s.latestTransactionID == t.id, t.ownershipType == .purchased { return badge(s.state) }
      // A family member's copy is in the state of the purchaser's subscription, as the
      // member's status (`status --customer`) says.
      if t.ownershipType == .familyShared, let group = t.subscriptionGroupID,
        let shared = store.statuses(forGroup: group, customer: customer).first(where: {
          $0.isFamilyShared && $0.transaction.id == t.id
        })
      {
        return badge(shared.state)
      }
      if let e = t.expirationDate, e <= store.now { return "expired" }
      return t.isUpgraded ? "upgraded" : "active"
    }
  }

  private static func badge(_ state: RenewalState) -> String {
    switch state {
    case .subscribed: "active"
    case .inGracePeriod: "grace-period"
    case .inBillingRetryPeriod: "billing-retry"
    case .expired: "expired"
    case .revoked: "revoked"
    }
  }

  /// A notification, with its delivery.
  static func notificationItem(_ index: Int, delivery: Int32, _ store: Store) -> ManageItem {
    let n = store.notifications[index]
    var flags: [String] = []
    if delivery != 0 { flags.append(delivery > 0 ? "delivered" : "failed x\(-delivery)") }
    return ManageItem(
      key: .notification(index), customer: n.customer, id: "#\(index)", productID: n.transaction?.productID ?? "",
      date: n.signedDate, state: n.name, flags: flags)
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
  func rows(_ groups: [ManageGroup], _ store: Store) -> [ManageRow] {
    var rows: [ManageRow] = []
    let all = isEmpty
    if all { rows.reserveCapacity(groups.reduce(groups.count) { $0 + $1.refs.count }) }
    for (i, g) in groups.enumerated() {
      let refs = all ? g.refs : g.refs.filter { matches(ManageRows.item($0, store)) }
      guard !refs.isEmpty else { continue }
      rows.append(.heading(i))
      for r in refs { rows.append(.item(r)) }
    }
    return rows
  }

  func rows(_ refs: [ManageRef], _ store: Store) -> [ManageRow] {
    (isEmpty ? refs : refs.filter { matches(ManageRows.item($0, store)) }).map { .item($0) }
  }
}
