import Foundation

extension Store {
  /// Marks a transaction finished (idempotent), as `Transaction.finish()`.
  @discardableResult
  public mutating func finish(
    _ id: TransactionID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let ci = try store.index(of: customer)
      guard let ti = store.state.customers[ci].transactions.lastIndex(where: { $0.id == id }) else {
        throw .transactionNotFound(id)
      }
      store.state.customers[ci].transactions[ti].isFinished = true
    }
  }

  /// Finishes every unfinished transaction of the customer; returns how many.
  @discardableResult
  public mutating func finishAll(customer: CustomerID = .default) throws(StoreError) -> Outcome<Int> {
    try atomically { (store: inout Store) throws(StoreError) -> Int in
      let ci = try store.index(of: customer)
      var count = 0
      // Only the transactions after the finished prefix can be unfinished.
      let all = store.state.customers[ci].transactions.indices
      for i in store.transactionIndex[ci].finishedPrefix..<all.upperBound
      where !store.state.customers[ci].transactions[i].isFinished {
        store.state.customers[ci].transactions[i].isFinished = true
        count += 1
      }
      store.transactionIndex[ci].finishedPrefix = all.upperBound
      return count
    }
  }

  /// Removes a transaction, as `deleteTransaction(identifier:)`: an original subscription
  /// purchase takes its renewals with it and restores intro-offer eligibility (rule
  /// deleting-an-original-purchase-deletes-its-renewals).
  @discardableResult
  public mutating func deleteTransaction(
    _ id: TransactionID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let ci = try store.index(of: customer)
      guard let t = store.state.customers[ci].transaction(id) else { throw .transactionNotFound(id) }
      var removed: Set<TransactionID> = [id]
      if t.productType == .autoRenewable, t.id == t.originalID, let group = t.subscriptionGroupID {
        removed.formUnion(store.state.customers[ci].transactions.filter { $0.originalID == id }.map(\.id))
        store.state.customers[ci].subscriptions.removeAll { $0.groupID == group }
        store.state.customers[ci].introductoryOfferUsedGroups.remove(group)
      }
      store.state.customers[ci].transactions.removeAll { removed.contains($0.id) }
      store.state.refundRequests?.removeAll { removed.contains($0.transactionID) }
      if store.state.refundRequests?.isEmpty == true { store.state.refundRequests = nil }
      for mi in store.state.customers.handles where mi != ci {
        store.state.customers[mi].transactions.removeAll { $0.sharedTransactionID.map(removed.contains) ?? false }
      }
      store.rebuildTransactionIndex()
      store.rebuildSchedule()
    }
  }

  /// `clearTransactions()`: every transaction, subscription and request of every customer is
  /// removed; intro eligibility resets. Settings and notifications stay.
  @discardableResult
  public mutating func clearTransactions() -> Outcome<Void> {
    for ci in state.customers.handles {
      state.customers[ci].transactions = []
      state.customers[ci].subscriptions = []
      state.customers[ci].introductoryOfferUsedGroups = []
    }
    state.pendingRequests = []
    state.refundRequests = nil
    rebuildTransactionIndex()
    rebuildSchedule()
    return Outcome(events: [])
  }

  /// `resetToDefaultState()`: settings back to the configuration's values.
  @discardableResult
  public mutating func resetToDefaultState() -> Outcome<Void> {
    settings = state.configuration.settings
    return Outcome(events: [])
  }
}
