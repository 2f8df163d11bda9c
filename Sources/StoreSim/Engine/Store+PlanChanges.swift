import Foundation

/// Upgrades, downgrades and crossgrades within a subscription group (rules plan-change-timing,
/// upgrade-is-immediate-and-marks-the-old-transaction-upgraded, downgrade-waits-for-the-renewal).
extension Store {
  /// A purchase in a group where the customer is subscribed: same plan, upgrade, downgrade or
  /// crossgrade (rule upgrade-is-immediate-and-marks-the-old-transaction-upgraded, rule
  /// downgrade-waits-for-the-renewal).
  mutating func changePlan(
    _ ci: CustomerHandle, _ si: Int, _ product: Product, _ options: PurchaseOptions,
    offer requested: SubscriptionOffer?,
    delivery: StoreEvent.Delivery
  ) -> Transaction {
    let sub = self[ci, si]
    let latest = state.customers[ci].transaction(sub.latestTransactionID)!
    // Plan changes never use an introductory offer (rule plan-changes-never-get-an-intro-offer).
    let offer = requested?.type == .introductory ? nil : requested
    if product.id == sub.currentProductID {
      if sub.commitment != nil {
        turnAutoRenewOn(ci, si)
        return latest
      }
      buySamePlan(ci, si, product, offer: offer, latest: latest)
      return latest  // Rule buying-what-you-own-returns-the-existing-transaction.
    }
    if let deferred = changeCommitmentPlan(ci, si, product, latest: latest) { return deferred }
    let current = state.configuration.product(sub.currentProductID)?.subscription
    let new = product.subscription!
    let curLevel = current?.groupLevel ?? Int.max
    let immediate = new.groupLevel < curLevel || (new.groupLevel == curLevel && new.period == current?.period)
    if immediate {
      return upgradeNow(ci, si, product, options, offer: offer, latest: latest, delivery: delivery)
    }
    changeAtRenewal(ci, si, product, offer: offer, latest: latest)
    return latest
  }

  /// The plan the customer has: an offer for the next period, a return to it from a pending
  /// change, or auto-renew back on.
  mutating func buySamePlan(
    _ ci: CustomerHandle, _ si: Int, _ product: Product, offer: SubscriptionOffer?, latest: Transaction
  ) {
    var sub = self[ci, si]
    if let offer {
      sub.pendingOffer = offer
      self[ci, si] = sub
      emit(ci, .offerRedeemed(sub.groupID, product.id, offerType: offer.type, offerID: offer.id))
      notify(ci, .offerRedeemed, nil, transaction: latest, group: sub.groupID)
    } else if sub.autoRenewProductID != product.id {
      sub.autoRenewProductID = product.id
      sub.pendingOffer = nil
      sub.increasedPrice = nil
      // Buying within the group turns auto-renew back on (rule buying-in-the-group-re-enables-auto-renew).
      let reenabled = !sub.willAutoRenew
      sub.willAutoRenew = true
      self[ci, si] = sub
      if reenabled { emit(ci, .autoRenewStatusChanged(sub.groupID, product.id, willAutoRenew: true)) }
      emit(ci, .renewalPreferenceChanged(sub.groupID, product.id))
      notify(ci, .didChangeRenewalPref, nil, transaction: latest, group: sub.groupID)
    } else if !sub.willAutoRenew {
      // Buying the plan again turns auto-renew back on [inf].
      sub.willAutoRenew = true
      self[ci, si] = sub
      emit(ci, .autoRenewStatusChanged(sub.groupID, product.id, willAutoRenew: true))
      notify(ci, .didChangeRenewalStatus, .autoRenewEnabled, transaction: latest, group: sub.groupID)
    }
  }

  /// Upgrade or same-duration crossgrade: now, old transaction isUpgraded, no revocation (rule
  /// upgrade-is-immediate-and-marks-the-old-transaction-upgraded, rule
  /// same-duration-crossgrade-is-an-upgrade).
  mutating func upgradeNow(
    _ ci: CustomerHandle, _ si: Int, _ product: Product, _ options: PurchaseOptions, offer: SubscriptionOffer?,
    latest: Transaction, delivery: StoreEvent.Delivery
  ) -> Transaction {
    var sub = self[ci, si]
    markUpgraded(ci, latest.id)
    var t = newTransaction(product, quantity: 1, token: options.appAccountToken ?? sub.appAccountToken)
    t.webOrderLineItemID = newWebOrderLineItemID()
    sub.anniversaryDate = applyPeriod(&t, product: product, offer: offer)
    sub.increasedPrice = nil
    t = record(
      ci, consume t, delivery: delivery, originalID: sub.originalID, originalPurchaseDate: latest.originalPurchaseDate
    )
    sub.currentProductID = product.id
    sub.autoRenewProductID = product.id
    sub.willAutoRenew = true
    sub.expirationDate = t.expirationDate!
    sub.latestTransactionID = t.id
    sub.billing = .healthy
    sub.expirationReason = nil
    sub.priceIncreaseStatus = .noIncreasePending
    sub.pendingOffer = nil
    sub.runningOffer = offer?.paymentMode == .payAsYouGo && offer!.periodCount > 1 ? offer : nil
    sub.runningOfferPeriodsLeft = offer?.paymentMode == .payAsYouGo ? max(offer!.periodCount - 1, 0) : 0
    self[ci, si] = sub
    scheduleDeadline(ci, si)
    if offer != nil {
      notify(ci, .offerRedeemed, .upgrade, transaction: t, group: sub.groupID)
    } else {
      notify(ci, .didChangeRenewalPref, .upgrade, transaction: t, group: sub.groupID)
    }
    shareWithFamily(ci, t)
    return t
  }

  /// Downgrade or different-duration crossgrade: at the next renewal (rule
  /// downgrade-waits-for-the-renewal). Buying within the group turns auto-renew back on, as an
  /// upgrade does (rule buying-in-the-group-re-enables-auto-renew): a downgrade bought after
  /// cancelling happens.
  mutating func changeAtRenewal(
    _ ci: CustomerHandle, _ si: Int, _ product: Product, offer: SubscriptionOffer?, latest: Transaction
  ) {
    var sub = self[ci, si]
    let reenabled = !sub.willAutoRenew
    sub.autoRenewProductID = product.id
    sub.pendingOffer = offer
    sub.increasedPrice = nil
    sub.willAutoRenew = true
    self[ci, si] = sub
    if reenabled { emit(ci, .autoRenewStatusChanged(sub.groupID, sub.currentProductID, willAutoRenew: true)) }
    emit(ci, .renewalPreferenceChanged(sub.groupID, product.id))
    if offer != nil {
      notify(ci, .offerRedeemed, .downgrade, transaction: latest, group: sub.groupID)
    } else {
      notify(ci, .didChangeRenewalPref, .downgrade, transaction: latest, group: sub.groupID)
    }
  }

  mutating func markUpgraded(_ ci: CustomerHandle, _ id: TransactionID) {
    guard let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == id }) else { return }
    state.customers[ci].transactions[ti].isUpgraded = true
    markModified(ci, ti)
    emit(ci, .transactionUpgraded(id, state.customers[ci].transactions[ti].productID))
    for mi in familyMembers(of: ci) {
      if let copy = state.customers[mi].transactions.lastIndex(where: { $0.sharedTransactionID == id }) {
        state.customers[mi].transactions[copy].isUpgraded = true
        markModified(mi, copy)
        emit(
          mi,
          .transactionUpgraded(
            state.customers[mi].transactions[copy].id, state.customers[mi].transactions[copy].productID))
      }
    }
  }
}
