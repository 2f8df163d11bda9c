import Foundation

extension Store {
  mutating func process(_ due: Due) {
    let ci = due.customer, si = due.subscription
    switch self[ci, si].billing {
    case .gracePeriod(_, let retry):
      if state.now >= retry {
        expire(ci, si, reason: .billingError, subtype: .billingRetry)
      } else {
        self[ci, si].billing = .billingRetry(retryEndDate: retry)
        scheduleDeadline(ci, si)
        let sub = self[ci, si]
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

  /// A period reached its end: renew, fail into billing retry, or expire (rule
  /// renewal-is-a-new-transaction-with-the-same-original-id, rule
  /// grace-period-keeps-access-and-ends-in-billing-retry, rule price-increase-consent-decides-the-renewal).
  ///
  /// The subscription is read field by field and changed in place: it is copy-on-write, and a
  /// copy held across a change would duplicate it.
  mutating func periodEnded(_ ci: CustomerHandle, _ si: Int) {
    let willAutoRenew = self[ci, si].willAutoRenew
    let priceIncrease = self[ci, si].priceIncreaseStatus
    if willAutoRenew, !commitmentRenews(ci, si) { return }
    if !willAutoRenew {
      expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
    } else if priceIncrease == .pending {
      expire(ci, si, reason: .didNotConsentToPriceIncrease, subtype: .priceIncrease)
    } else if !hasRenewalProduct(ci, si) {
      expire(ci, si, reason: .productUnavailable, subtype: .productNotForSale)
    } else if state.environment == .sandbox && self[ci, si].renewalCount >= 12 {
      // The sandbox turns auto-renew off at the 13th renewal (rule sandbox-stops-after-twelve-renewals).
      self[ci, si].willAutoRenew = false
      expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
    } else if state.settings.shouldEnterBillingRetryOnRenewal {
      failRenewal(ci, si)
    } else {
      renew(ci, si, start: self[ci, si].expirationDate, recovery: false)
    }
  }

  /// Whether the product the subscription renews to is still in the catalogue (the id read into
  /// a local first, for the reason `renew` gives).
  func hasRenewalProduct(_ ci: CustomerHandle, _ si: Int) -> Bool {
    let renewsTo = self[ci, si].autoRenewProductID
    return state.configuration.hasProduct(renewsTo)
  }

  /// The offer of the period about to start, taking it from the subscription's pending or
  /// running offer.
  mutating func takeRenewalOffer(_ ci: CustomerHandle, _ si: Int) -> SubscriptionOffer? {
    guard self[ci, si].hasOffer else { return nil }
    if let pending = self[ci, si].pendingOffer {
      self[ci, si].pendingOffer = nil
      self[ci, si].runningOffer =
        pending.paymentMode == .payAsYouGo && pending.periodCount > 1 ? pending : nil
      self[ci, si].runningOfferPeriodsLeft =
        pending.paymentMode == .payAsYouGo ? max(pending.periodCount - 1, 0) : 0
      return pending
    }
    if let running = self[ci, si].runningOffer,
      self[ci, si].runningOfferPeriodsLeft > 0
    {
      self[ci, si].runningOfferPeriodsLeft -= 1
      if self[ci, si].runningOfferPeriodsLeft == 0 {
        self[ci, si].runningOffer = nil
      }
      return running
    }
    self[ci, si].runningOffer = nil
    return nil
  }

  /// Creates the renewal transaction of the next period starting at `start`.
  mutating func renew(_ ci: CustomerHandle, _ si: Int, start: Date, recovery: Bool) {
    // (The id is read into a local first: `state.configuration.position(of: self[ci, si]…)`
    // copies the whole configuration, to read `self` in the argument while the call borrows it.)
    let renewsTo = self[ci, si].autoRenewProductID
    guard let pi = state.configuration.position(of: renewsTo) else { return }
    // The original purchase date without reading the previous transaction (cold in memory).
    let originalDate =
      self[ci, si].cachedOriginalPurchaseDate
      ?? latestTransaction(ci, si)?.originalPurchaseDate
    let offer = takeRenewalOffer(ci, si)
    let originalID = self[ci, si].originalID
    let token = self[ci, si].appAccountToken
    let product = state.configuration.products[pi]
    var t = newTransaction(product, quantity: 1, token: token, at: start)
    t.reason = .renewal
    t.webOrderLineItemID = newWebOrderLineItemID()
    // Each period ends at the anniversary start + n periods, never at the previous expiry +
    // one period (rule renewals-keep-the-anniversary); a recovery after grace or a forced
    // renewal starts off the anniversary chain and so starts a new one.
    // (Read into locals first: an argument that reads `state` makes the call copy the store.)
    let previousAnchor = self[ci, si].anniversaryDate
    let increased = self[ci, si].increasedPrice
    var anchor = applyPeriod(&t, product: product, offer: offer, anchor: previousAnchor)
    // An accepted price increase is charged from the next renewal on (rule
    // price-increase-changes-the-renewal-price).
    if offer == nil, let increased { t.price = increased }
    let commitment = renewedCommitment(ci, si, &t, product: product, start: start, recovery: recovery, anchor: &anchor)
    t = record(ci, consume t, delivery: .updates, originalID: originalID, originalPurchaseDate: originalDate)
    let group = updateSubscription(ci, si) { sub in
      sub.anniversaryDate = anchor
      sub.commitment = commitment
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

  /// A renewal failed: grace (when enabled) then billing retry (rule
  /// grace-period-keeps-access-and-ends-in-billing-retry).
  mutating func failRenewal(_ ci: CustomerHandle, _ si: Int) {
    let current = self[ci, si].currentProductID
    let period =
      state.configuration.product(current)?.subscription?.period ?? SubscriptionPeriod(value: 1, unit: .month)
    let rate = state.settings.timeRate
    let expiration = self[ci, si].expirationDate
    // A commitment plan retries for 90 days (60 × 1.5) and has no grace period (rule
    // commitment-billing-retry-has-no-grace-and-lasts-90-days).
    let inCommitment = self[ci, si].commitment != nil
    let retryEnd = expiration.addingTimeInterval(
      TimeRules.billingRetryPeriod(for: period, rate: rate) * (inCommitment ? 1.5 : 1))
    var graceEnd: Date?
    if state.settings.billingGracePeriodIsEnabled, !inCommitment {
      let g = expiration.addingTimeInterval(TimeRules.gracePeriod(for: period, rate: rate))
      graceEnd = g
      self[ci, si].billing = .gracePeriod(gracePeriodExpirationDate: g, retryEndDate: retryEnd)
    } else {
      self[ci, si].billing = .billingRetry(retryEndDate: retryEnd)
    }
    self[ci, si].expirationReason = .billingError
    scheduleDeadline(ci, si)
    let group = self[ci, si].groupID
    emit(ci, .renewalFailed(group, current, gracePeriodExpirationDate: graceEnd))
    notify(
      ci, .didFailToRenew, graceEnd == nil ? nil : .gracePeriod, transaction: latestTransaction(ci, si),
      group: group)
    notifyFamily(ci, si, .didFailToRenew, graceEnd == nil ? nil : .gracePeriod)
  }

  /// Recovers from a billing failure: inside grace the billing anchor is kept, after grace a new
  /// period starts now (rule recovery-inside-grace-keeps-the-billing-date).
  mutating func recover(_ ci: CustomerHandle, _ si: Int) {
    let expiration = self[ci, si].expirationDate
    if case .gracePeriod(let grace, _) = self[ci, si].billing, state.now < grace {
      renew(ci, si, start: expiration, recovery: true)
    } else {
      renew(ci, si, start: state.now, recovery: true)
    }
  }

  mutating func expire(_ ci: CustomerHandle, _ si: Int, reason: ExpirationReason, subtype: Subtype) {
    let (group, product) = updateSubscription(ci, si) { sub in
      sub.isExpired = true
      sub.commitment = nil
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
}
