import Foundation

extension Store {
  /// Moves the clock to `date` like `advance(to:)`, handing the events to `sink` as they happen
  /// (in order, a batch at a time) instead of collecting them, so memory does not grow with
  /// their number. The one mutating call that returns no `Outcome`: it is the hot path of the
  /// CLI and the benchmark, and its events have already gone to `sink`.
  ///
  /// When `sink` answers false the clock stops after the current batch: everything up to
  /// `now` has happened and nothing after it. Returns whether the clock reached `date`.
  ///
  /// - Throws: `clockCannotMoveBackward` for a date before now.
  @discardableResult
  public mutating func advance(to date: Date, streaming sink: (inout [StoreEvent]) -> Bool) throws(StoreError) -> Bool {
    guard date >= state.now else { throw .clockCannotMoveBackward(now: state.now, requested: date) }
    events = []
    defer { events = [] }
    guard runDue(through: date, afterBatch: sink) else { return false }
    state.now = date
    emit(-1, .clockAdvanced(to: date))
    return sink(&events)
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
