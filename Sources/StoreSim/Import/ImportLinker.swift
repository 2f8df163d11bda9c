import Foundation

/// Links imported transactions into customers and rebuilds their subscriptions and the
/// notifications already sent (the second half of `Store.importAppleData`, after every check).
struct ImportLinker {
  let items: ImportedItems
  let configuration: StoreConfiguration
  /// The renewal infos and the notifications with a transaction, by original transaction.
  private let renewalsByOriginal: [TransactionID: [ImportedItems.Renewal]]
  private let notificationsByOriginal: [TransactionID: [ImportedItems.Notification]]

  init(items: ImportedItems, configuration: StoreConfiguration) {
    self.items = items
    self.configuration = configuration
    renewalsByOriginal = Dictionary(grouping: items.renewals, by: \.info.originalTransactionID)
    var notifications: [TransactionID: [ImportedItems.Notification]] = [:]
    for n in items.notifications {
      if let t = n.transaction { notifications[t.fields.purchase.originalID, default: []].append(n) }
    }
    notificationsByOriginal = notifications
  }

  struct Counts {
    var customers: [CustomerID] = []
    var transactions = 0
    var subscriptions = 0
    var notifications = 0
  }

  /// Union–find over the keys that tie transactions to one customer.
  private struct Links {
    var parent: [String: String] = [:]
    mutating func root(_ k: String) -> String {
      var k = k
      while let p = parent[k], p != k {
        parent[k] = parent[p] ?? p
        k = p
      }
      parent[k] = k
      return k
    }
    mutating func join(_ a: String, _ b: String) {
      let (ra, rb) = (root(a), root(b))
      if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
  }

  func apply(to state: inout StoreState, options: ImportOptions) -> Counts {
    // One record per transaction id: the most recently signed copy (a later refund wins).
    var byID: [TransactionID: ImportedItems.Item] = [:]
    // Where each transaction first stood in the data: a history lists them in Apple's order of
    // modification, which the imported ones keep.
    var firstSeen: [TransactionID: Int] = [:]
    for (i, t) in items.transactions.enumerated() {
      let id = t.fields.purchase.id
      if firstSeen[id] == nil { firstSeen[id] = i }
      if let old = byID[id], (old.signedDate ?? .distantPast) > (t.signedDate ?? .distantPast) { continue }
      byID[id] = t
    }
    var links = Links()
    func key(_ t: ImportedItems.Item) -> String { "o\(t.fields.purchase.originalID)" }
    // Every copy links (a history's copy and a statuses' later one tie both responses).
    for t in items.transactions {
      _ = links.root(key(t))
      // One App Store account's transactions in the app carry its app transaction id.
      for k in t.accountKeys.dropFirst() { links.join(key(t), k) }
      if let response = t.response { links.join(key(t), "r\(response)") }
    }
    for r in items.renewals {
      if let response = r.response { links.join("o\(r.info.originalTransactionID)", "r\(response)") }
    }
    var groups: [String: [ImportedItems.Item]] = [:]
    for t in byID.values { groups[links.root(key(t)), default: []].append(t) }
    let ordered = groups.values.map { $0.sorted { $0.fields.purchase.id < $1.fields.purchase.id } }
      .sorted { $0[0].fields.purchase.originalID < $1[0].fields.purchase.originalID }
    let finished = ImportHistory.finishedConsumables(items: items, byID: byID, configuration: configuration)

    let newest = newestTime()
    // A session with no data of its own takes the data's time, earlier or not; one with data
    // never goes back.
    let hasData = state.customers.contains { !$0.transactions.isEmpty } || !state.notifications.isEmpty
    // Data with no time in it (nothing was imported) leaves the clock where it was.
    let isEmpty = items.transactions.isEmpty && items.renewals.isEmpty && items.notifications.isEmpty
    state.now = options.now ?? (isEmpty ? state.now : hasData ? max(state.now, newest) : newest)
    // When the app was first downloaded (App Transaction Info, a receipt): the session's start.
    if let first = items.appPurchaseDates.map(\.date).min() {
      state.startDate = hasData ? min(state.startDate, first) : first
    }
    state.startDate = min(state.startDate, state.now)
    var counts = Counts()
    let defaultIsEmpty = state.customers.first { $0.id == .default }.map { $0.transactions.isEmpty } ?? false
    var customerOf: [TransactionID: CustomerID] = [:]
    var purchasers: [(chain: [ImportedItems.Item], member: CustomerID)] = []
    var index: [CustomerID: Int] = [:]
    for (i, c) in state.customers.enumerated() { index[c.id] = i }
    for list in ordered {
      let name: CustomerID =
        ordered.count == 1 && defaultIsEmpty
        ? .default : CustomerID("customer-\(list.map(\.fields.purchase.originalID).min() ?? 0)")
      var customer = customerRecord(list, name: name, finished: finished, state: state)
      // A family-shared subscription is the stand-in purchaser's (ImportFamily), not the member's own.
      let shared = sharedChains(list)
      let sharedIDs = Set(shared.joined().map(\.fields.purchase.id))
      customer.subscriptions = subscriptions(
        of: list.filter { !sharedIDs.contains($0.fields.purchase.id) }, now: state.now)
      for chain in shared { purchasers.append((chain, name)) }
      for t in list { customerOf[t.fields.purchase.originalID] = name }
      if let i = index[name] {
        customer.transactions = (state.customers[i].transactions + customer.transactions).sorted { $0.id < $1.id }
        customer.subscriptions = state.customers[i].subscriptions + customer.subscriptions
        state.customers[i] = customer
      } else {
        index[name] = state.customers.count
        state.customers.append(customer)
      }
      counts.customers.append(name)
      counts.transactions += list.count
      counts.subscriptions += customer.subscriptions.count
    }
    // New ids go on after the imported ones.
    let ids = byID.keys
    if let top = ids.max(), top >= state.nextTransactionID { state.nextTransactionID = top + 1 }
    if let top = byID.values.compactMap(\.fields.purchase.webOrderLineItemID).max(), top >= state.nextWebOrderLineItemID
    {
      state.nextWebOrderLineItemID = top + 1
    }
    // A family-shared subscription's purchaser: the customer whose own purchase has its web
    // order line item id, or a stand-in, taking ids after the imported ones.
    var purchases = purchasesByWebOrder(state, imported: Set(byID.keys))
    for p in purchasers {
      if let owner = purchaser(of: p.chain, member: p.member, in: purchases) {
        share(p.chain, member: p.member, from: owner, purchases: purchases, state: &state)
      } else {
        let name = addPurchaser(of: p.chain, member: p.member, state: &state)
        addPurchases(of: name, state: state, to: &purchases)
        counts.customers.append(name)
        counts.subscriptions += 1
      }
    }
    var order = state.lastModificationOrder ?? 0
    // Apple's order of modification, as the history answers list it (ImportHistory).
    var rank: [TransactionID: Int] = [:]
    let answers = items.historyOrder.compactMap { items.histories[$0]?.ids }
    for (i, id) in ImportHistory.modificationOrder(firstSeen: firstSeen, answers: answers).enumerated() { rank[id] = i }
    var places: [(seen: Int, customer: Int, index: Int)] = []
    for i in state.customers.indices {
      for (j, t) in state.customers[i].transactions.enumerated() where t.modificationOrder == 0 {
        places.append((rank[t.id] ?? Int.max, i, j))
      }
    }
    for place in places.sorted(by: { $0.seen < $1.seen }) {
      order += 1
      state.customers[place.customer].transactions[place.index].modificationOrder = order
    }
    state.lastModificationOrder = order == 0 ? nil : order
    var byAppTransaction: [String: CustomerID] = [:]
    for c in state.customers.reversed() { byAppTransaction[c.appTransactionID] = c.id }
    for n in items.notifications.sorted(by: { $0.signedDate < $1.signedDate }) {
      // Its transaction's customer; or, for appData alone, the customer of that app transaction
      // (made, with no transactions, when the data has no other trace of them).
      var owner = n.transaction.flatMap { customerOf[$0.fields.purchase.originalID] } ?? .default
      if n.transaction == nil, let app = n.appTransactionID {
        if let c = byAppTransaction[app] {
          owner = c
        } else {
          owner = CustomerID("customer-app-\(app)")
          state.customers.append(
            Customer(
              id: owner, transactions: [], subscriptions: [], introductoryOfferUsedGroups: [], familyID: nil,
              appTransactionID: app))
          byAppTransaction[app] = owner
          counts.customers.append(owner)
        }
      }
      var record = ServerNotification(
        notificationType: n.type, subtype: n.subtype, sequence: state.notifications.count, signedDate: n.signedDate,
        customer: owner, transaction: n.transaction.map { Transaction(fields: $0.fields) },
        renewalInfo: n.renewal?.info, status: n.status.flatMap(Self.renewalState))
      // As Apple sent it: its JWS and notificationUUID (none under --redact).
      if let jws = n.signedPayload {
        record.original = OriginalNotification(signedPayload: jws, notificationUUID: n.uuid)
      }
      state.notifications.append(record)
      // Its send attempts, as Get Notification History listed them: to the team's server, no
      // URL of the session's (so `notifications deliver --retry` leaves them).
      for a in n.attempts {
        if state.deliveryLog == nil { state.deliveryLog = [] }
        state.deliveryLog?.append(
          NotificationDelivery(
            index: state.notifications.count - 1, url: "", httpStatus: a.result == "SUCCESS" ? 200 : nil,
            error: nil, date: a.date, result: a.result))
      }
      counts.notifications += 1
    }
    return counts
  }

  /// The newest time the data holds: purchases, revocations, signatures, notifications.
  private func newestTime() -> Date {
    var newest = Date(timeIntervalSince1970: 0)
    for t in items.transactions {
      newest = max(
        newest, t.fields.purchase.purchaseDate, t.signedDate ?? newest, t.fields.status.revocationDate ?? newest)
    }
    for r in items.renewals { newest = max(newest, r.info.signedDate) }
    for n in items.notifications { newest = max(newest, n.signedDate, n.attempts.map(\.date).max() ?? newest) }
    return newest
  }

  static func renewalState(_ status: Int) -> RenewalState? {
    RenewalState.allCases.first { $0.serverStatus == status }
  }

  private func customerRecord(
    _ list: [ImportedItems.Item], name: CustomerID, finished: Set<TransactionID>, state: StoreState
  ) -> Customer {
    let transactions = list.map { item -> Transaction in
      var fields = item.fields
      if finished.contains(fields.purchase.id) { fields.status.isFinished = true }
      if let product = configuration.product(fields.purchase.productID) {
        fields.purchase.productType = product.type
        if let group = product.subscription?.groupID { fields.purchase.subscriptionGroupID = group }
        if let offer = fields.purchase.offer, offer.period.value == 0, let period = product.subscription?.period {
          fields.purchase.offer = TransactionOffer(
            type: offer.type, id: offer.id, paymentMode: offer.paymentMode, period: period)
        }
      }
      return Transaction(fields: fields)
    }
    let introGroups = Set(
      transactions.compactMap { t in t.offer?.type == .introductory ? t.subscriptionGroupID : nil })
    let appTransactionID =
      list.compactMap(\.appTransactionID).first ?? String(704_000_000_000_000_000 + UInt64(state.customers.count + 1))
    return Customer(
      id: name, transactions: transactions, subscriptions: [], introductoryOfferUsedGroups: introGroups, familyID: nil,
      appTransactionID: appTransactionID)
  }

  /// One state per group: from its latest transaction, the newest renewal info and status of its
  /// original transaction.
  func subscriptions(of list: [ImportedItems.Item], now: Date) -> [SubscriptionState] {
    var result: [SubscriptionState] = []
    let renewables = list.filter { configuration.product($0.fields.purchase.productID)?.subscription != nil }
    var groupOrder: [SubscriptionGroupID] = []
    var byGroup: [SubscriptionGroupID: [ImportedItems.Item]] = [:]
    for t in renewables {
      let group = configuration.product(t.fields.purchase.productID)?.subscription?.groupID ?? ""
      if byGroup[group] == nil { groupOrder.append(group) }
      byGroup[group, default: []].append(t)
    }
    for group in groupOrder {
      let ts = byGroup[group] ?? []
      guard
        let latest = ts.max(by: {
          ($0.fields.purchase.purchaseDate, $0.fields.purchase.id) < (
            $1.fields.purchase.purchaseDate, $1.fields.purchase.id
          )
        })
      else { continue }
      let originals = Set(ts.map(\.fields.purchase.originalID))
      // The newest; of two signed at once, the later in the data (a notification's order).
      let renewal = originals.sorted().flatMap { renewalsByOriginal[$0] ?? [] }
        .reduce(nil) { (best: ImportedItems.Renewal?, r) in
          best.map { r.info.signedDate >= $0.info.signedDate ? r : $0 } ?? r
        }
      let status =
        renewal?.status
        ?? originals.sorted().flatMap { notificationsByOriginal[$0] ?? [] }
        .reduce(nil) { (best: ImportedItems.Notification?, n) in
          best.map { n.signedDate >= $0.signedDate ? n : $0 } ?? n
        }?
        .status
      let p = latest.fields.purchase
      let expiration = latest.fields.status.expirationDate ?? p.purchaseDate
      let isRevoked = latest.fields.status.revocationDate != nil
      var billing = BillingState.healthy
      if let r = renewal?.info, r.isInBillingRetry {
        let retryEnd = expiration.addingTimeInterval(60 * 86_400)
        if let grace = r.gracePeriodExpirationDate, grace > now {
          billing = .gracePeriod(gracePeriodExpirationDate: grace, retryEndDate: retryEnd)
        } else {
          billing = .billingRetry(retryEndDate: retryEnd)
        }
      }
      let isExpired =
        status.map { $0 == RenewalState.expired.serverStatus }
        ?? (!isRevoked && billing == .healthy && expiration <= now)
      let info = renewal?.info
      let willAutoRenew = info?.willAutoRenew ?? !isExpired
      let increase = info?.priceIncreaseStatus ?? .noIncreasePending
      let first = ts.map(\.fields.purchase.purchaseDate).min() ?? p.purchaseDate
      // A commitment plan: the period's commitment from the transaction, what renews from the
      // renewal info's commitmentInfo.
      var commitment: SubscriptionCommitment?
      if let n = p.billingPeriodNumber, let end = p.commitmentExpiresDate, let total = p.commitmentPrice {
        commitment = SubscriptionCommitment(
          billingPeriodNumber: Int(n), expirationDate: Date(epochMilliseconds: Int64(end)),
          willAutoRenew: info?.commitment?.willAutoRenew ?? willAutoRenew,
          autoRenewProductID: info?.commitment?.autoRenewProductID ?? p.productID, monthlyPrice: p.price,
          price: Decimal(total) / 1000)
      }
      // The offer of the next renewal: pending, or running with periods left.
      let chain = ts.filter { $0.fields.purchase.originalID == p.originalID }
        .sorted { $0.fields.purchase.purchaseDate > $1.fields.purchase.purchaseDate }.map(\.fields)
      let offer = info.flatMap { ImportedOffer($0, chain: chain, configuration: configuration) }
      result.append(
        SubscriptionState(
          groupID: group, originalID: p.originalID, currentProductID: p.productID,
          autoRenewProductID: info.map { $0.autoRenewProductID.isEmpty ? p.productID : $0.autoRenewProductID }
            ?? p.productID,
          willAutoRenew: willAutoRenew, expirationDate: expiration, latestTransactionID: p.id, billing: billing,
          expirationReason: info?.expirationReason ?? (isExpired && !willAutoRenew ? .autoRenewDisabled : nil),
          isExpired: isExpired, isRevoked: isRevoked, priceIncreaseStatus: increase,
          pendingOffer: offer?.periodsLeft == nil ? offer?.offer : nil,
          runningOffer: offer?.periodsLeft == nil ? nil : offer?.offer,
          runningOfferPeriodsLeft: offer?.periodsLeft ?? 0,
          recentSubscriptionStartDate: info?.recentSubscriptionStartDate ?? first,
          renewalCount: ts.filter { $0.fields.purchase.reason == .renewal }.count,
          appAccountToken: p.appAccountToken,
          increasedPrice: increase == .noIncreasePending ? nil : info?.renewalPrice, commitment: commitment))
    }
    return result
  }
}
