import Foundation

extension Store {
  // MARK: The clock

  /// Moves the clock forward by a number of seconds, running everything due on the way.
  @discardableResult
  public mutating func advance(by seconds: TimeInterval) throws(StoreError) -> Outcome<Void> {
    try advance(to: state.now.addingTimeInterval(seconds))
  }

  /// Moves the clock to a date, running everything due on the way in time order.
  ///
  /// - Throws: `clockCannotMoveBackward` for a date before now.
  @discardableResult
  public mutating func advance(to date: Date) throws(StoreError) -> Outcome<Void> {
    guard date >= state.now else { throw .clockCannotMoveBackward(now: state.now, requested: date) }
    return atomically { (store: inout Store) -> Void in
      store.runDue(through: date)
      store.state.now = date
      store.emit(-1, .clockAdvanced(to: date))
    }
  }

  /// Moves the clock to the next due event and runs it. The value is the date the clock moved
  /// to; nil (and no events) when nothing is scheduled.
  @discardableResult
  public mutating func advanceToNextEvent() throws(StoreError) -> Outcome<Date?> {
    guard let next = nextDue() else { return Outcome(value: nil, events: []) }
    let date = max(next.date, state.now)
    return Outcome(value: date, events: try advance(to: date).events)
  }

  /// The date of the next scheduled lifecycle event, if any.
  public var nextEventDate: Date? { nextDue()?.date }

  /// The earliest current deadline, ordered by (date, rank, customer, group); rank 1 is grace
  /// and retry deadlines, rank 2 period ends (a deadline and a period end at the same instant run
  /// in that order).
  func nextDue() -> Due? {
    schedule.items.filter(isCurrent).min(by: <)
  }

  func deadline(_ sub: SubscriptionState) -> (Date, Int)? {
    if sub.isExpired || sub.isRevoked { return nil }
    switch sub.billing {
    case .healthy: return (sub.expirationDate, 2)
    case .gracePeriod(let grace, let retry): return (min(grace, retry), 1)
    case .billingRetry(let retry): return (retry, 1)
    }
  }

  /// Runs every deadline at or before `date`, in (date, rank, customer, group) order. Deadlines
  /// before now (a back-dated purchase) run at their own dates without moving the clock back.
  ///
  /// Deadlines are taken from the queue sixteen at a time and their subscriptions read together
  /// first: on a large session each lives in memory no cache holds any more, and sixteen
  /// independent reads wait for memory about once instead of sixteen times. The order is unchanged: a
  /// deadline queued while the batch runs that comes before the rest of the batch sends the
  /// rest back to the queue.
  /// After each batch, `afterBatch` takes the events so far; when it answers
  /// false the run stops there and returns false.
  @discardableResult
  mutating func runDue(through date: Date, afterBatch: (inout [StoreEvent]) -> Bool = { _ in true }) -> Bool {
    let saved = state.now
    var batch: [Due] = []
    batch.reserveCapacity(16)
    while true {
      batch.removeAll(keepingCapacity: true)
      while batch.count < 16, let due = schedule.peek(), due.date <= date {
        schedule.pop()
        batch.append(due)
      }
      if batch.isEmpty { break }
      warm(batch)
      var k = 0
      while k < batch.count {
        let due = batch[k]
        if let top = schedule.peek(), top < due {
          for rest in batch[k...] { schedule.push(rest) }
          break
        }
        k += 1
        guard isCurrent(due) else { continue }
        state.now = due.date
        process(due)  // queues the subscription's next deadline, if it has one
      }
      if !afterBatch(&events) {
        state.now = max(saved, state.now)
        return false
      }
    }
    state.now = max(saved, state.now)
    return true
  }

  /// Reads what processing the batch will read first, so the memory loads overlap.
  mutating func warm(_ batch: [Due]) {
    var sink: UInt64 = 0
    for due in batch where due.customer < state.customers.count {
      let count = state.customers[due.customer].subscriptions.count
      sink &+= UInt64(count) &+ UInt64(state.customers[due.customer].transactions.count)
    }
    for due in batch
    where due.customer < state.customers.count && due.subscription < state.customers[due.customer].subscriptions.count {
      sink &+= state.customers[due.customer].subscriptions[due.subscription].latestTransactionID
      sink &+= UInt64(state.customers[due.customer].subscriptions[due.subscription].renewalCount)
      // The slot the next transaction is appended after (the pointer only, not the transaction).
      state.customers[due.customer].transactions.withUnsafeBufferPointer { buffer in
        if let last = buffer.baseAddress.map({ $0 + buffer.count - 1 }), buffer.count > 0 {
          sink &+= UInt64(UnsafeRawPointer(last).load(as: UInt.self))
        }
      }
    }
    warmed &+= sink
  }

  /// Whether a queued deadline still is the subscription's deadline.
  func isCurrent(_ due: Due) -> Bool {
    guard due.customer < state.customers.count, due.subscription < state.customers[due.customer].subscriptions.count,
      let (d, rank) = deadline(state.customers[due.customer].subscriptions[due.subscription])
    else { return false }
    return d == due.date && rank == due.rank
  }

  /// Queues the current deadline of a subscription (call after changing its dates or billing).
  mutating func scheduleDeadline(_ ci: Int, _ si: Int) {
    if let (d, rank) = deadline(state.customers[ci].subscriptions[si]) {
      schedule.push(Due(date: d, rank: rank, customer: ci, subscription: si))
    }
  }

  /// Rebuilds the queue from the state (after loading, or when subscriptions are removed).
  mutating func rebuildSchedule() {
    schedule = DueQueue()
    for ci in state.customers.indices {
      for si in state.customers[ci].subscriptions.indices { scheduleDeadline(ci, si) }
    }
  }

  mutating func process(_ due: Due) {
    let ci = due.customer, si = due.subscription
    switch state.customers[ci].subscriptions[si].billing {
    case .gracePeriod(_, let retry):
      if state.now >= retry {
        expire(ci, si, reason: .billingError, subtype: .billingRetry)
      } else {
        state.customers[ci].subscriptions[si].billing = .billingRetry(retryEndDate: retry)
        scheduleDeadline(ci, si)
        let sub = state.customers[ci].subscriptions[si]
        emit(ci, .gracePeriodExpired(sub.groupID, sub.currentProductID))
        notify(ci, .gracePeriodExpired, nil, transaction: latestTransaction(ci, si), group: sub.groupID)
        notifyFamily(ci, si, .gracePeriodExpired, nil)
      }
    case .billingRetry:
      expire(ci, si, reason: .billingError, subtype: .billingRetry)
    case .healthy:
      periodEnded(ci, si)
    }
  }

  func latestTransaction(_ ci: Int, _ si: Int) -> Transaction? {
    state.customers[ci].transaction(state.customers[ci].subscriptions[si].latestTransactionID)
  }

  /// A period reached its end: renew, fail into billing retry, or expire (rule
  /// renewal-is-a-new-transaction-with-the-same-original-id, rule
  /// grace-period-keeps-access-and-ends-in-billing-retry, rule price-increase-consent-decides-the-renewal).
  ///
  /// The subscription is read field by field and changed in place: it is copy-on-write, and a
  /// copy held across a change would duplicate it.
  mutating func periodEnded(_ ci: Int, _ si: Int) {
    let willAutoRenew = state.customers[ci].subscriptions[si].willAutoRenew
    let priceIncrease = state.customers[ci].subscriptions[si].priceIncreaseStatus
    if !willAutoRenew {
      expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
    } else if priceIncrease == .pending {
      expire(ci, si, reason: .didNotConsentToPriceIncrease, subtype: .priceIncrease)
    } else if !state.configuration.hasProduct(state.customers[ci].subscriptions[si].autoRenewProductID) {
      expire(ci, si, reason: .productUnavailable, subtype: .productNotForSale)
    } else if state.environment == .sandbox && state.customers[ci].subscriptions[si].renewalCount >= 12 {
      // The sandbox turns auto-renew off at the 13th renewal (rule sandbox-stops-after-twelve-renewals).
      state.customers[ci].subscriptions[si].willAutoRenew = false
      expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
    } else if state.settings.shouldEnterBillingRetryOnRenewal {
      failRenewal(ci, si)
    } else {
      renew(ci, si, start: state.customers[ci].subscriptions[si].expirationDate, recovery: false)
    }
  }

  /// The offer of the period about to start, taking it from the subscription's pending or
  /// running offer.
  mutating func takeRenewalOffer(_ ci: Int, _ si: Int) -> SubscriptionOffer? {
    guard state.customers[ci].subscriptions[si].hasOffer else { return nil }
    if let pending = state.customers[ci].subscriptions[si].pendingOffer {
      state.customers[ci].subscriptions[si].pendingOffer = nil
      state.customers[ci].subscriptions[si].runningOffer =
        pending.paymentMode == .payAsYouGo && pending.periodCount > 1 ? pending : nil
      state.customers[ci].subscriptions[si].runningOfferPeriodsLeft =
        pending.paymentMode == .payAsYouGo ? max(pending.periodCount - 1, 0) : 0
      return pending
    }
    if let running = state.customers[ci].subscriptions[si].runningOffer,
      state.customers[ci].subscriptions[si].runningOfferPeriodsLeft > 0
    {
      state.customers[ci].subscriptions[si].runningOfferPeriodsLeft -= 1
      if state.customers[ci].subscriptions[si].runningOfferPeriodsLeft == 0 {
        state.customers[ci].subscriptions[si].runningOffer = nil
      }
      return running
    }
    state.customers[ci].subscriptions[si].runningOffer = nil
    return nil
  }

  /// Creates the renewal transaction of the next period starting at `start`.
  mutating func renew(_ ci: Int, _ si: Int, start: Date, recovery: Bool) {
    guard let pi = state.configuration.position(of: state.customers[ci].subscriptions[si].autoRenewProductID) else {
      return
    }
    // The original purchase date without reading the previous transaction (cold in memory).
    let originalDate =
      state.customers[ci].subscriptions[si].cachedOriginalPurchaseDate
      ?? latestTransaction(ci, si)?.originalPurchaseDate
    let offer = takeRenewalOffer(ci, si)
    let originalID = state.customers[ci].subscriptions[si].originalID
    let token = state.customers[ci].subscriptions[si].appAccountToken
    let product = state.configuration.products[pi]
    var t = newTransaction(product, quantity: 1, token: token, at: start)
    t.reason = .renewal
    t.webOrderLineItemID = newWebOrderLineItemID()
    // Each period ends at the anniversary start + n periods, never at the previous expiry +
    // one period (rule renewals-keep-the-anniversary); a recovery after grace or a forced
    // renewal starts off the anniversary chain and so starts a new one.
    // (Read into locals first: an argument that reads `state` makes the call copy the store.)
    let previousAnchor = state.customers[ci].subscriptions[si].anniversaryDate
    let increased = state.customers[ci].subscriptions[si].increasedPrice
    let anchor = applyPeriod(&t, product: product, offer: offer, anchor: previousAnchor)
    // An accepted price increase is charged from the next renewal on (rule
    // price-increase-changes-the-renewal-price).
    if offer == nil, let increased { t.price = increased }
    t = record(ci, consume t, delivery: .updates, originalID: originalID, originalPurchaseDate: originalDate)
    let group = updateSubscription(ci, si) { sub in
      sub.anniversaryDate = anchor
      sub.cachedOriginalPurchaseDate = t.originalPurchaseDate
      sub.currentProductID = t.productID
      sub.expirationDate = t.expirationDate!
      sub.latestTransactionID = t.id
      sub.renewalCount += 1
      sub.billing = .healthy
      sub.expirationReason = nil
      if sub.priceIncreaseStatus == .agreed { sub.priceIncreaseStatus = .noIncreasePending }
      return sub.groupID
    }
    scheduleDeadline(ci, si)
    emit(ci, .subscriptionRenewed(group, t.id, t.productID))
    notify(ci, .didRenew, recovery ? .billingRecovery : nil, transaction: t, group: group)
    shareWithFamily(ci, t, renewalSubtype: recovery ? .billingRecovery : nil)
  }

  /// Changes a subscription in place (no copy of its storage).
  mutating func updateSubscription<R>(_ ci: Int, _ si: Int, _ body: (inout SubscriptionState) -> R) -> R {
    body(&state.customers[ci].subscriptions[si])
  }

  /// A renewal failed: grace (when enabled) then billing retry (rule
  /// grace-period-keeps-access-and-ends-in-billing-retry).
  mutating func failRenewal(_ ci: Int, _ si: Int) {
    let current = state.customers[ci].subscriptions[si].currentProductID
    let period =
      state.configuration.product(current)?.subscription?.period ?? SubscriptionPeriod(value: 1, unit: .month)
    let rate = state.settings.timeRate
    let expiration = state.customers[ci].subscriptions[si].expirationDate
    let retryEnd = expiration.addingTimeInterval(TimeRules.billingRetryPeriod(for: period, rate: rate))
    var graceEnd: Date?
    if state.settings.billingGracePeriodIsEnabled {
      let g = expiration.addingTimeInterval(TimeRules.gracePeriod(for: period, rate: rate))
      graceEnd = g
      state.customers[ci].subscriptions[si].billing = .gracePeriod(gracePeriodExpirationDate: g, retryEndDate: retryEnd)
    } else {
      state.customers[ci].subscriptions[si].billing = .billingRetry(retryEndDate: retryEnd)
    }
    state.customers[ci].subscriptions[si].expirationReason = .billingError
    scheduleDeadline(ci, si)
    let group = state.customers[ci].subscriptions[si].groupID
    emit(ci, .renewalFailed(group, current, gracePeriodExpirationDate: graceEnd))
    notify(
      ci, .didFailToRenew, graceEnd == nil ? nil : .gracePeriod, transaction: latestTransaction(ci, si),
      group: group)
    notifyFamily(ci, si, .didFailToRenew, graceEnd == nil ? nil : .gracePeriod)
  }

  /// Recovers from a billing failure: inside grace the billing anchor is kept, after grace a new
  /// period starts now (rule recovery-inside-grace-keeps-the-billing-date).
  mutating func recover(_ ci: Int, _ si: Int) {
    let expiration = state.customers[ci].subscriptions[si].expirationDate
    if case .gracePeriod(let grace, _) = state.customers[ci].subscriptions[si].billing, state.now < grace {
      renew(ci, si, start: expiration, recovery: true)
    } else {
      renew(ci, si, start: state.now, recovery: true)
    }
  }

  mutating func expire(_ ci: Int, _ si: Int, reason: ExpirationReason, subtype: Subtype) {
    let (group, product) = updateSubscription(ci, si) { sub in
      sub.isExpired = true
      sub.expirationReason = reason
      sub.willAutoRenew = false
      sub.priceIncreaseStatus = .noIncreasePending
      sub.pendingOffer = nil
      sub.runningOffer = nil
      sub.runningOfferPeriodsLeft = 0
      return (sub.groupID, sub.currentProductID)
    }
    emit(ci, .subscriptionExpired(group, product, reason: reason))
    notify(ci, .expired, subtype, transaction: latestTransaction(ci, si), group: group)
    notifyFamily(ci, si, .expired, subtype)
  }

  /// Sends a status-change notification of the purchaser's subscription to every family member
  /// holding a copy of its current period, with the member's copy, renewal info and status
  /// (rule family-members-get-status-changes).
  mutating func notifyFamily(_ ci: Int, _ si: Int, _ type: NotificationTypeV2, _ subtype: Subtype?) {
    guard state.customers[ci].familyID != nil else { return }
    let latest = state.customers[ci].subscriptions[si].latestTransactionID
    let group = state.customers[ci].subscriptions[si].groupID
    let owner = state.customers[ci].id
    for mi in familyMembers(of: ci) {
      guard let copy = state.customers[mi].transactions.last(where: { $0.sharedTransactionID == latest }),
        !copy.isRevoked
      else { continue }
      let status = statuses(mi, group: group).first { $0.isFamilyShared && $0.transaction.sharedFrom == owner }
      notify(mi, type, subtype, transaction: copy, renewalInfo: status?.renewalInfo, status: status?.state)
    }
  }

  // MARK: Customer and test-session actions on subscriptions

  func subscriptionIndex(_ ci: Int, _ productID: ProductID) throws(StoreError) -> Int {
    let product = try product(productID)
    guard let group = product.subscription?.groupID else {
      throw .invalidProductType(productID, expected: "an auto-renewable subscription")
    }
    guard let si = state.customers[ci].subscriptions.firstIndex(where: { $0.groupID == group }) else {
      throw .noSubscriptionFound(productID)
    }
    return si
  }

  func activeSubscriptionIndex(_ ci: Int, _ productID: ProductID) throws(StoreError) -> Int {
    let si = try subscriptionIndex(ci, productID)
    let sub = state.customers[ci].subscriptions[si]
    if sub.isExpired || sub.isRevoked { throw .subscriptionNotActive(productID) }
    return si
  }

  /// Turns auto-renew off (`disableAutoRenewForTransaction`). During grace or billing retry the
  /// subscription ends at once (rule cancelling-in-billing-retry-expires-at-once).
  @discardableResult
  public mutating func disableAutoRenew(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      store.turnAutoRenewOff(ci, si)
      if store.state.customers[ci].subscriptions[si].isInBillingRetry {
        store.expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
      }
    }
  }

  /// Runs an action on the customer's active subscription in the product's group.
  mutating func onActiveSubscription(
    _ productID: ProductID, customer: CustomerID, _ body: (inout Store, Int, Int) throws(StoreError) -> Void
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let ci = try store.index(of: customer)
      let si = try store.activeSubscriptionIndex(ci, productID)
      try body(&store, ci, si)
    }
  }

  mutating func turnAutoRenewOff(_ ci: Int, _ si: Int) {
    guard state.customers[ci].subscriptions[si].willAutoRenew else { return }
    state.customers[ci].subscriptions[si].willAutoRenew = false
    clearPendingPriceIncrease(ci, si)
    let sub = state.customers[ci].subscriptions[si]
    emit(ci, .autoRenewStatusChanged(sub.groupID, sub.currentProductID, willAutoRenew: false))
    notify(
      ci, .didChangeRenewalStatus, .autoRenewDisabled, transaction: latestTransaction(ci, si), group: sub.groupID
    )
    notifyFamily(ci, si, .didChangeRenewalStatus, .autoRenewDisabled)
  }

  mutating func turnAutoRenewOn(_ ci: Int, _ si: Int) {
    guard !state.customers[ci].subscriptions[si].willAutoRenew else { return }
    state.customers[ci].subscriptions[si].willAutoRenew = true
    let sub = state.customers[ci].subscriptions[si]
    emit(ci, .autoRenewStatusChanged(sub.groupID, sub.currentProductID, willAutoRenew: true))
    notify(
      ci, .didChangeRenewalStatus, .autoRenewEnabled, transaction: latestTransaction(ci, si), group: sub.groupID)
    notifyFamily(ci, si, .didChangeRenewalStatus, .autoRenewEnabled)
  }

  /// Drops a price increase the customer has not agreed to, with its new price; an agreed one
  /// stays the customer's price.
  mutating func clearPendingPriceIncrease(_ ci: Int, _ si: Int) {
    if state.customers[ci].subscriptions[si].priceIncreaseStatus == .pending {
      state.customers[ci].subscriptions[si].increasedPrice = nil
    }
    state.customers[ci].subscriptions[si].priceIncreaseStatus = .noIncreasePending
  }

  /// Turns auto-renew back on (`enableAutoRenewForTransaction`).
  @discardableResult
  public mutating func enableAutoRenew(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      store.turnAutoRenewOn(ci, si)
    }
  }

  /// `expireSubscription(productIdentifier:)`: auto-renew off and the period ends now (rule
  /// expire-subscription-ends-the-period-now).
  @discardableResult
  public mutating func expireSubscription(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      store.turnAutoRenewOff(ci, si)
      store.endPeriodNow(ci, si)
      store.expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
    }
  }

  mutating func endPeriodNow(_ ci: Int, _ si: Int) {
    let id = state.customers[ci].subscriptions[si].latestTransactionID
    if let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == id }),
      let exp = state.customers[ci].transactions[ti].expirationDate, exp > state.now
    {
      state.customers[ci].transactions[ti].expirationDate = state.now
    }
    if state.customers[ci].subscriptions[si].expirationDate > state.now {
      state.customers[ci].subscriptions[si].expirationDate = state.now
      scheduleDeadline(ci, si)
    }
  }

  /// `forceRenewalOfSubscription(productIdentifier:)`: the period ends now and a new one starts;
  /// auto-renew on, pending price increase cleared, billing retry untouched (rule
  /// force-renewal-leaves-billing-retry-alone).
  @discardableResult
  public mutating func forceRenewal(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      store.turnAutoRenewOn(ci, si)
      store.clearPendingPriceIncrease(ci, si)
      guard case .healthy = store.state.customers[ci].subscriptions[si].billing else { return }
      store.endPeriodNow(ci, si)
      store.renew(ci, si, start: store.state.now, recovery: false)
    }
  }

  /// `requestPriceIncreaseConsentForTransaction`: consent pending; repeatable (rule
  /// price-increase-consent-decides-the-renewal).
  ///
  /// - Parameters:
  ///   - price: the new price; `renewalPrice` shows it from now on and the first renewal after
  ///     consent charges it (rule price-increase-changes-the-renewal-price). Nil keeps the price.
  ///   - needsConsent: false for an increase that needs no consent: agreed at once
  ///     (`PRICE_INCREASE`/`ACCEPTED`, rule price-increase-without-consent-is-accepted-at-once).
  @discardableResult
  public mutating func requestPriceIncreaseConsent(
    productID: ProductID, price: Decimal? = nil, needsConsent: Bool = true, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    if let price, price <= 0 { throw .invalidPrice(price) }
    return try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      if let price { store.state.customers[ci].subscriptions[si].increasedPrice = price }
      store.setPriceIncrease(ci, si, needsConsent ? .pending : .agreed, subtype: needsConsent ? .pending : .accepted)
    }
  }

  /// `consentToPriceIncreaseForTransaction`: agreed; renews normally.
  @discardableResult
  public mutating func consentToPriceIncrease(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      guard store.state.customers[ci].subscriptions[si].priceIncreaseStatus == .pending else {
        throw .noPriceIncreasePending(productID)
      }
      store.setPriceIncrease(ci, si, .agreed, subtype: .accepted)
    }
  }

  /// `declinePriceIncreaseForTransaction`: auto-renew off and the pending status cleared; the
  /// subscription expires voluntarily at period end (rule price-increase-consent-decides-the-renewal).
  @discardableResult
  public mutating func declinePriceIncrease(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: Int, si: Int) throws(StoreError) in
      guard store.state.customers[ci].subscriptions[si].priceIncreaseStatus == .pending else {
        throw .noPriceIncreasePending(productID)
      }
      store.turnAutoRenewOff(ci, si)
    }
  }

  mutating func setPriceIncrease(_ ci: Int, _ si: Int, _ status: PriceIncreaseStatus, subtype: Subtype) {
    state.customers[ci].subscriptions[si].priceIncreaseStatus = status
    let sub = state.customers[ci].subscriptions[si]
    emit(ci, .priceIncreaseStatusChanged(sub.groupID, sub.currentProductID, status))
    notify(ci, .priceIncrease, subtype, transaction: latestTransaction(ci, si), group: sub.groupID)
  }
}
