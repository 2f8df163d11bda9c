import Foundation

extension Store {
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

  /// Whether a queued deadline still is the subscription's deadline.
  func isCurrent(_ due: Due) -> Bool {
    guard due.customer.index < state.customers.count,
      due.subscription < state.customers[due.customer].subscriptions.count,
      let (d, rank) = deadline(self[due.customer, due.subscription])
    else { return false }
    return d == due.date && rank == due.rank
  }

  /// Queues the current deadline of a subscription (call after changing its dates or billing).
  mutating func scheduleDeadline(_ ci: CustomerHandle, _ si: Int) {
    if let (d, rank) = deadline(self[ci, si]) {
      schedule.push(Due(date: d, rank: rank, customer: ci, subscription: si))
    }
  }

  /// Rebuilds the queue from the state (after loading, or when subscriptions are removed).
  mutating func rebuildSchedule() {
    schedule = DueQueue()
    for ci in state.customers.handles {
      for si in state.customers[ci].subscriptions.indices { scheduleDeadline(ci, si) }
    }
  }

  /// An upper estimate of the period ends, grace and retry deadlines due up to `date`; counting
  /// stops as soon as it passes `limit`. Cheap (one look at each subscription), so a command
  /// can refuse absurd work before doing any.
  public func dueEstimate(through date: Date, limit: Int) -> Int {
    var count = 0
    for customer in state.customers {
      for sub in customer.subscriptions {
        guard let (first, _) = deadline(sub), first <= date else { continue }
        count += 2  // the deadline itself, and a grace or retry step after it
        if sub.willAutoRenew, let product = state.configuration.product(sub.autoRenewProductID),
          let period = product.subscription?.period
        {
          let length = TimeRules.end(of: period, from: first, rate: state.settings.timeRate).timeIntervalSince(first)
          // Months are 28 to 31 days: estimate with the shortest, an upper bound on the count.
          let shortest = max(length * 28 / 31, 0.001)
          let periods = date.timeIntervalSince(first) / shortest
          count += periods >= Double(limit) ? limit + 1 : Int(periods)
        }
        if count > limit { return count }
      }
    }
    return count
  }
}
