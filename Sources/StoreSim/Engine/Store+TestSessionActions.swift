import Foundation

extension Store {
  /// Turns auto-renew off (`disableAutoRenewForTransaction`). During grace or billing retry the
  /// subscription ends at once (rule cancelling-in-billing-retry-expires-at-once).
  @discardableResult
  public mutating func disableAutoRenew(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
      store.turnAutoRenewOff(ci, si)
      if store[ci, si].isInBillingRetry {
        store.expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
      }
    }
  }

  /// Runs an action on the customer's active subscription in the product's group.
  mutating func onActiveSubscription(
    _ productID: ProductID, customer: CustomerID, _ body: (inout Store, CustomerHandle, Int) throws(StoreError) -> Void
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let ci = try store.index(of: customer)
      let si = try store.activeSubscriptionIndex(ci, productID)
      try body(&store, ci, si)
    }
  }

  mutating func turnAutoRenewOff(_ ci: CustomerHandle, _ si: Int) {
    // Inside a commitment only the commitment's renewal turns off (rule
    // cancelling-a-commitment-stops-only-its-renewal).
    if setCommitmentRenewal(ci, si, on: false) { return }
    guard self[ci, si].willAutoRenew else { return }
    self[ci, si].willAutoRenew = false
    clearPendingPriceIncrease(ci, si)
    let sub = self[ci, si]
    emit(ci, .autoRenewStatusChanged(sub.groupID, sub.currentProductID, willAutoRenew: false))
    notify(
      ci, .didChangeRenewalStatus, .autoRenewDisabled, transaction: latestTransaction(ci, si), group: sub.groupID
    )
    notifyFamily(ci, si, .didChangeRenewalStatus, .autoRenewDisabled)
  }

  mutating func turnAutoRenewOn(_ ci: CustomerHandle, _ si: Int) {
    if setCommitmentRenewal(ci, si, on: true) { return }
    guard !self[ci, si].willAutoRenew else { return }
    self[ci, si].willAutoRenew = true
    let sub = self[ci, si]
    emit(ci, .autoRenewStatusChanged(sub.groupID, sub.currentProductID, willAutoRenew: true))
    notify(
      ci, .didChangeRenewalStatus, .autoRenewEnabled, transaction: latestTransaction(ci, si), group: sub.groupID)
    notifyFamily(ci, si, .didChangeRenewalStatus, .autoRenewEnabled)
  }

  /// Drops a price increase the customer has not agreed to, with its new price; an agreed one
  /// stays the customer's price.
  mutating func clearPendingPriceIncrease(_ ci: CustomerHandle, _ si: Int) {
    if self[ci, si].priceIncreaseStatus == .pending {
      self[ci, si].increasedPrice = nil
    }
    self[ci, si].priceIncreaseStatus = .noIncreasePending
  }

  /// Turns auto-renew back on (`enableAutoRenewForTransaction`).
  @discardableResult
  public mutating func enableAutoRenew(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
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
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
      store.turnAutoRenewOff(ci, si)
      store.endPeriodNow(ci, si)
      store.expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
    }
  }

  mutating func endPeriodNow(_ ci: CustomerHandle, _ si: Int) {
    let id = self[ci, si].latestTransactionID
    if let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == id }),
      let exp = state.customers[ci].transactions[ti].expirationDate, exp > state.now
    {
      state.customers[ci].transactions[ti].expirationDate = state.now
      markModified(ci, ti)
    }
    if self[ci, si].expirationDate > state.now {
      self[ci, si].expirationDate = state.now
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
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
      store.turnAutoRenewOn(ci, si)
      store.clearPendingPriceIncrease(ci, si)
      guard case .healthy = store[ci, si].billing else { return }
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
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
      if let price { store[ci, si].increasedPrice = price }
      store.setPriceIncrease(ci, si, needsConsent ? .pending : .agreed, subtype: needsConsent ? .pending : .accepted)
    }
  }

  /// `consentToPriceIncreaseForTransaction`: agreed; renews normally.
  @discardableResult
  public mutating func consentToPriceIncrease(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try onActiveSubscription(productID, customer: customer) {
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
      guard store[ci, si].priceIncreaseStatus == .pending else {
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
      (store: inout Store, ci: CustomerHandle, si: Int) throws(StoreError) in
      guard store[ci, si].priceIncreaseStatus == .pending else {
        throw .noPriceIncreasePending(productID)
      }
      store.turnAutoRenewOff(ci, si)
    }
  }

  mutating func setPriceIncrease(_ ci: CustomerHandle, _ si: Int, _ status: PriceIncreaseStatus, subtype: Subtype) {
    self[ci, si].priceIncreaseStatus = status
    let sub = self[ci, si]
    emit(ci, .priceIncreaseStatusChanged(sub.groupID, sub.currentProductID, status))
    notify(ci, .priceIncrease, subtype, transaction: latestTransaction(ci, si), group: sub.groupID)
  }
}
