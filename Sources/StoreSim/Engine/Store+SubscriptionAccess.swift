import Foundation

extension Store {
  /// Customer `ci`'s subscription `si`, read and changed where it is stored: `self[ci, si].x = y`
  /// changes it in place, without copying its copy-on-write storage.
  subscript(ci: CustomerHandle, si: Int) -> SubscriptionState {
    _read { yield state.customers[ci].subscriptions[si] }
    _modify { yield &state.customers[ci].subscriptions[si] }
  }

  /// Changes a subscription in place (no copy of its storage).
  mutating func updateSubscription<R>(_ ci: CustomerHandle, _ si: Int, _ body: (inout SubscriptionState) -> R) -> R {
    body(&self[ci, si])
  }

  /// The subscription's latest transaction.
  func latestTransaction(_ ci: CustomerHandle, _ si: Int) -> Transaction? {
    state.customers[ci].transaction(self[ci, si].latestTransactionID)
  }

  /// The index of the customer's subscription in a group, if they ever subscribed to it.
  func subscriptionIndex(_ ci: CustomerHandle, group: SubscriptionGroupID) -> Int? {
    state.customers[ci].subscriptions.firstIndex { $0.groupID == group }
  }

  /// The index of the customer's subscription in the product's group.
  func subscriptionIndex(_ ci: CustomerHandle, _ productID: ProductID) throws(StoreError) -> Int {
    let product = try product(productID)
    guard let group = product.subscription?.groupID else {
      throw .invalidProductType(productID, expected: "an auto-renewable subscription")
    }
    guard let si = subscriptionIndex(ci, group: group) else {
      throw .noSubscriptionFound(productID)
    }
    return si
  }

  /// The index of the customer's subscription in the product's group, if it has not ended.
  func activeSubscriptionIndex(_ ci: CustomerHandle, _ productID: ProductID) throws(StoreError) -> Int {
    let si = try subscriptionIndex(ci, productID)
    let sub = self[ci, si]
    if sub.isExpired || sub.isRevoked { throw .subscriptionNotActive(productID) }
    return si
  }
}
