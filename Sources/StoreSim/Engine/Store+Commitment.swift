import Foundation

/// Commitment plans: monthly billing periods inside a 12-month commitment (rules
/// commitment-plan-bills-monthly-inside-twelve-months, cancelling-a-commitment-stops-only-its-renewal,
/// commitment-billing-retry-has-no-grace-and-lasts-90-days, commitment-downgrade-waits-for-the-commitment-end).
extension Store {
  /// One month, the length of a billing period.
  static let billingPeriod = SubscriptionPeriod(value: 1, unit: .month)

  /// Whether a purchase asking for `plan` can have it: the monthly plan needs an enabled
  /// `MONTHLY` billing plan and a customer who is not subscribed in the group (StoreKit's
  /// error is undocumented: `Product.PurchaseError.productUnavailable`), and takes no offer.
  func billingPlanFailure(_ ci: CustomerHandle, _ product: Product, _ options: PurchaseOptions) -> PurchaseFailure? {
    guard options.billingPlanType == .monthly else { return nil }
    guard product.monthlyBillingPlan != nil,
      !(state.customers[ci].subscription(product.subscription!.groupID).map { !$0.isExpired && !$0.isRevoked }
        ?? false)
    else {
      return .simulated(SimulatedError(family: .purchase, name: "productUnavailable"))
    }
    return options.offer == nil ? nil : .invalidOfferIdentifier
  }

  /// Starts a commitment with the transaction `t` (its period 1, from its purchase date):
  /// one month at the monthly price, the commitment ending twelve months on.
  func startCommitment(
    _ t: inout Transaction, product: Product, plan: BillingPlan, anchor: inout Date
  )
    -> SubscriptionCommitment
  {
    let rate = state.settings.timeRate
    let first = TimeRules.anniversaryEnd(of: Self.billingPeriod, from: t.purchaseDate, anchor: nil, rate: rate)
    let end = TimeRules.anniversaryEnd(
      of: Self.billingPeriod, count: SubscriptionCommitment.totalBillingPeriods, from: t.purchaseDate, anchor: nil,
      rate: rate
    ).end
    t.expirationDate = first.end
    t.price = plan.price
    t.offer = nil
    anchor = first.anchor
    let commitment = SubscriptionCommitment(
      billingPeriodNumber: 1, expirationDate: end, willAutoRenew: true, autoRenewProductID: product.id,
      monthlyPrice: plan.price, price: plan.totalCommitmentPrice)
    t.setCommitment(commitment.transactionRecord)
    return commitment
  }

  /// The commitment after the renewal `t` (starting at `start`): the next billing period, or
  /// after period 12 a new commitment when the product renewed into has the monthly plan (nil:
  /// an ordinary period). A recovery shifts the commitment's end by the time billing was
  /// failing. Sets `t`'s period, price and commitment record.
  func renewedCommitment(
    _ ci: CustomerHandle, _ si: Int, _ t: inout Transaction, product: Product, start: Date, recovery: Bool,
    anchor: inout Date
  ) -> SubscriptionCommitment? {
    guard var c = self[ci, si].commitment else { return nil }
    if c.isInLastPeriod {
      guard let plan = product.monthlyBillingPlan else { return nil }
      return startCommitment(&t, product: product, plan: plan, anchor: &anchor)
    }
    if recovery {
      c.expirationDate = c.expirationDate.addingTimeInterval(start.timeIntervalSince(self[ci, si].expirationDate))
    }
    let span = TimeRules.anniversaryEnd(
      of: Self.billingPeriod, from: start, anchor: recovery ? nil : self[ci, si].anniversaryDate,
      rate: state.settings.timeRate)
    t.expirationDate = span.end
    t.price = c.monthlyPrice
    t.offer = nil
    anchor = span.anchor
    c.billingPeriodNumber += 1
    t.setCommitment(c.transactionRecord)
    return c
  }

  /// The period-12 decision, before a renewal: false when the commitment ends now (its renewal
  /// was turned off: `EXPIRED`/`VOLUNTARY`); else the renewal goes to the product chosen for
  /// after the commitment.
  mutating func commitmentRenews(_ ci: CustomerHandle, _ si: Int) -> Bool {
    guard let c = self[ci, si].commitment, c.isInLastPeriod else { return true }
    guard c.willAutoRenew else {
      expire(ci, si, reason: .autoRenewDisabled, subtype: .voluntary)
      return false
    }
    self[ci, si].autoRenewProductID = c.autoRenewProductID
    return true
  }

  /// Turns the commitment's renewal off or on (`cancel`/`resume` inside a commitment): the
  /// monthly billing goes on and the top-level auto-renew status stays 1. Returns false when
  /// the subscription has no commitment.
  mutating func setCommitmentRenewal(_ ci: CustomerHandle, _ si: Int, on: Bool) -> Bool {
    guard let c = self[ci, si].commitment else { return false }
    guard c.willAutoRenew != on else { return true }
    self[ci, si].commitment?.willAutoRenew = on
    let sub = self[ci, si]
    emit(ci, .autoRenewStatusChanged(sub.groupID, sub.currentProductID, willAutoRenew: on))
    notify(
      ci, .didChangeRenewalStatus, on ? .autoRenewEnabled : .autoRenewDisabled, transaction: latestTransaction(ci, si),
      group: sub.groupID)
    notifyFamily(ci, si, .didChangeRenewalStatus, on ? .autoRenewEnabled : .autoRenewDisabled)
    return true
  }

  /// A plan change inside a commitment: an upgrade (a higher level) ends the commitment at
  /// once and proceeds as any upgrade; a downgrade or crossgrade waits for the commitment's end
  /// (`DID_CHANGE_RENEWAL_PREF`/`DOWNGRADE`, `commitmentAutoRenewProductId`). Returns the
  /// latest transaction when the change was deferred, nil when the upgrade is to go ahead.
  mutating func changeCommitmentPlan(
    _ ci: CustomerHandle, _ si: Int, _ product: Product, latest: Transaction
  )
    -> Transaction?
  {
    guard self[ci, si].commitment != nil else { return nil }
    let sub = self[ci, si]
    let level = state.configuration.product(sub.currentProductID)?.subscription?.groupLevel ?? Int.max
    if product.subscription!.groupLevel < level {
      self[ci, si].commitment = nil
      return nil
    }
    self[ci, si].commitment?.autoRenewProductID = product.id
    emit(ci, .renewalPreferenceChanged(sub.groupID, product.id))
    notify(ci, .didChangeRenewalPref, .downgrade, transaction: latest, group: sub.groupID)
    return latest
  }

  /// The renewal info's view of a commitment, while the subscription is inside one.
  func renewalCommitment(_ sub: SubscriptionState) -> RenewalCommitment? {
    guard let c = sub.commitment, !sub.isExpired, !sub.isRevoked else { return nil }
    let next = state.configuration.product(c.autoRenewProductID)
    let plan = next?.monthlyBillingPlan
    return RenewalCommitment(
      autoRenewProductID: c.autoRenewProductID, willAutoRenew: c.willAutoRenew,
      renewalBillingPlanType: plan == nil ? .billedUpfront : .monthly, renewalDate: c.expirationDate,
      renewalPrice: plan?.price ?? next?.price ?? c.monthlyPrice)
  }
}

extension SubscriptionCommitment {
  /// What the current period's transaction records.
  var transactionRecord: TransactionCommitment {
    TransactionCommitment(
      billingPeriodNumber: billingPeriodNumber, totalBillingPeriods: Self.totalBillingPeriods,
      expirationDate: expirationDate, price: price)
  }
}
