import Foundation
import StoreSim

extension PopulationRun {
  /// Performs one step (its action) for the customer at `i` (the clock is at the step's date).
  mutating func perform(
    _ step: Step, _ action: Action, index i: Int, on store: inout Store, base: StoreKitSettings
  ) throws {
    let customer = Self.name(lives[i].number)
    let now = step.date
    switch action {
    case .arrive:
      try arrive(i, customer, now: now, on: &store, base: base)
    case .answerAskToBuy(let id, let approve):
      if approve {
        let transaction = try store.approveAskToBuyTransaction(identifier: id).value
        bought(.success(transaction, verificationError: nil), index: i, now: now)
      } else {
        try store.declineAskToBuyTransaction(identifier: id)
      }
    case .reviewPeriod(let group):
      guard lives[i].nextReview == now else { return }  // a later review replaced this one
      review(i, group: group, now: now, store: store)
    case .cancel(let group):
      if let sub = store.customer(customer)?.subscription(group), !sub.isExpired {
        _ = try? store.disableAutoRenew(productID: sub.currentProductID, customer: customer)
      }
    case .takePromotionalOffer(let product, let offer):
      let group = store.configuration.product(product)?.subscription?.groupID
      try changing(i, group: group, customer, now: now, on: &store) { store in
        _ = try store.purchase(product, options: PurchaseOptions(offer: .promotional(offer)), customer: customer)
      }
    case .failRenewal(let group, let expiration):
      guard let sub = store.customer(customer)?.subscription(group), !sub.isExpired, sub.willAutoRenew,
        sub.expirationDate.epochMilliseconds == expiration
      else { return }
      // The switches are store-wide; nobody else renews at this customer's time of day.
      store.settings.shouldEnterBillingRetryOnRenewal = true
      store.settings.billingGracePeriodIsEnabled = true
      try advance(&store, to: expiration)
      store.settings = base
    case .resolve(let group):
      guard let sub = store.customer(customer)?.subscription(group), sub.isInBillingRetry, !sub.isExpired else {
        return
      }
      try store.resolveIssue(productID: sub.currentProductID, customer: customer)
      scheduleReview(i, group: group, at: now + Self.hour)
    case .changePlan(let product):
      let group = store.configuration.product(product)?.subscription?.groupID
      try changing(i, group: group, customer, now: now, on: &store) { store in
        _ = try store.purchase(product, customer: customer)
      }
    case .refund(let id):
      _ = try? store.refund(id, customer: customer)
    }
  }

  /// A customer's first day: their account, perhaps a family, and their first purchase (perhaps
  /// waiting for a parent).
  mutating func arrive(
    _ i: Int, _ customer: CustomerID, now: Int64, on store: inout Store, base: StoreKitSettings
  )
    throws
  {
    try store.addCustomer(customer)
    let product = plan.product(for: lives[i].dice.below(100_000))
    if lives[i].dice.chance(plan.rates.family) {
      for member in 1...(1 + lives[i].dice.below(3)) {
        try store.addFamilyMember(CustomerID("\(customer).family\(member)"), to: customer)
      }
    }
    if lives[i].dice.chance(plan.rates.askToBuy) {
      store.settings.askToBuyEnabled = true
      let outcome = try store.purchase(product, customer: customer)
      store.settings = base
      if case .pending(let id) = outcome.value {
        let approve = !lives[i].dice.chance(plan.rates.askToBuyDecline)
        schedule(
          i, at: now + Int64(1 + lives[i].dice.below(2)) * Self.day, .answerAskToBuy(requestID: id, approve: approve))
      }
      return
    }
    bought(try store.purchase(product, customer: customer).value, index: i, now: now)
  }

  /// After a purchase: its refund is decided, and a subscription's first period reviewed.
  mutating func bought(_ result: PurchaseResult, index i: Int, now: Int64) {
    guard case .success(let transaction, _) = result else { return }
    decideRefund(i, transaction.id, now: now)
    if let group = transaction.subscriptionGroupID {
      scheduleReview(i, group: group, at: now + Self.hour)
    }
  }

  mutating func decideRefund(_ i: Int, _ id: TransactionID, now: Int64) {
    guard id > lives[i].refundsDecided else { return }
    lives[i].refundsDecided = id
    if lives[i].dice.chance(plan.rates.refund) {
      schedule(
        i, at: now - now % Self.day + Self.timeOfDay(lives[i].number) + Int64(1 + lives[i].dice.below(13)) * Self.day,
        .refund(id))
    }
  }

  mutating func scheduleReview(_ i: Int, group: SubscriptionGroupID, at date: Int64) {
    lives[i].nextReview = date
    schedule(i, at: date, .reviewPeriod(group: group))
  }

  /// A plan change or an offer: when it starts a new period at once (an upgrade), the period is
  /// reviewed again from now.
  mutating func changing(
    _ i: Int, group: SubscriptionGroupID?, _ customer: CustomerID, now: Int64, on store: inout Store,
    _ body: (inout Store) throws -> Void
  ) throws {
    guard let groupID = group, let before = store.customer(customer)?.subscription(groupID), !before.isExpired,
      !before.isInBillingRetry
    else { return }
    try body(&store)
    guard let after = store.customer(customer)?.subscription(groupID) else { return }
    if after.latestTransactionID != before.latestTransactionID {
      decideRefund(i, after.latestTransactionID, now: now)
      scheduleReview(i, group: groupID, at: now + Self.hour)
    }
  }
}
