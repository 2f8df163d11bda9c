import Foundation

extension Store {
  /// Where a transaction is: with the acting customer first, then with anyone.
  func locate(_ id: TransactionID, preferring ci: CustomerHandle) -> TransactionHandle? {
    if let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == id }) {
      return TransactionHandle(customer: ci, index: ti)
    }
    for c in state.customers.handles where c != ci {
      if let ti = state.customers[c].transactions.lastIndex(where: { $0.id == id }) {
        return TransactionHandle(customer: c, index: ti)
      }
    }
    return nil
  }

  /// Refunds a transaction, as `refundTransaction(identifier:)`: approved at once (rule
  /// refunded-transactions-leave-entitlements-but-stay-in-history).
  ///
  /// The transaction gets `revocationDate` and `revocationReason` and leaves the entitlements.
  /// Refunding the current period of a subscription revokes the subscription; refunding an
  /// older renewal leaves current access intact (rule
  /// refund-of-the-current-period-revokes-the-subscription). Family copies are revoked (rule
  /// family-shared-copies-are-the-members-own).
  /// A refund request waiting for the same transaction is answered by it.
  /// `percentage` (milliunits of a percent, 1…99999) makes it a prorated refund
  /// (`REFUND_PRORATED` with that `revocationPercentage`); without it the refund is full
  /// (rule refund-carries-revocation-percentage). A prorated refund revokes like a full one.
  @discardableResult
  public mutating func refund(
    _ id: TransactionID, reason: RevocationReason = .other, percentage: UInt64? = nil,
    customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let acting = try store.index(of: customer)
      guard let found = store.locate(id, preferring: acting) else { throw .transactionNotFound(id) }
      try store.grantRefund(found, reason: reason, percentage: percentage)
    }
  }

  mutating func grantRefund(
    _ found: TransactionHandle, reason: RevocationReason, percentage: UInt64? = nil
  ) throws(StoreError) {
    let ci = found.customer, ti = found.index
    let t = state[found]
    let id = t.id
    if t.ownershipType == .familyShared { throw .cannotRefundFamilyShared(id) }
    if t.isRevoked { throw .alreadyRefunded(id) }
    if let percentage, !(1..<100_000).contains(percentage) { throw .invalidRefundPercentage(percentage) }
    state.refundRequests?.removeAll { $0.transactionID == id }
    if state.refundRequests?.isEmpty == true { state.refundRequests = nil }
    state.customers[ci].transactions[ti].revocationDate = state.now
    state.customers[ci].transactions[ti].revocationReason = reason
    state.customers[ci].transactions[ti].setProratedPercentage(percentage)
    markModified(found)
    emit(ci, .transactionRevoked(id, t.productID))
    var group: SubscriptionGroupID?
    var losesAccess = t.productType != .autoRenewable
    if let g = t.subscriptionGroupID, let si = subscriptionIndex(ci, group: g) {
      group = g
      let sub = self[ci, si]
      if sub.latestTransactionID == id && !sub.isExpired && !sub.isRevoked {
        losesAccess = true
        self[ci, si].isRevoked = true
        self[ci, si].willAutoRenew = false
        // A refund of a commitment's current period ends the commitment (rule
        // commitment-refund-of-the-current-period-ends-it).
        self[ci, si].commitment = nil
        clearPendingPriceIncrease(ci, si)
      }
    }
    notify(ci, .refund, nil, transaction: state.customers[ci].transactions[ti], group: group)
    revokeFamilyCopies(of: id, from: ci, reason: reason, losingAccess: losesAccess)
  }

  // MARK: Refund requests

  /// The customer asks for a refund (rule refund-requests-wait-for-an-answer): the request
  /// waits for `approveRefundRequest` or `declineRefundRequest`. For a subscription the App
  /// Store turns auto-renew off (`DID_CHANGE_RENEWAL_STATUS`/`AUTO_RENEW_DISABLED`); for a
  /// consumable or subscription it asks the developer for consumption data
  /// (`CONSUMPTION_REQUEST` with `consumptionRequestReason`, rule
  /// consumption-request-for-consumables-and-subscriptions).
  @discardableResult
  public mutating func requestRefund(
    _ id: TransactionID, reason: ConsumptionRequestReason = .other, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<RefundRequest> {
    try atomically { (store: inout Store) throws(StoreError) -> RefundRequest in
      let ci = try store.index(of: customer)
      guard let ti = store.state.customers[ci].transactions.lastIndex(where: { $0.id == id }) else {
        throw .transactionNotFound(id)
      }
      let t = store.state.customers[ci].transactions[ti]
      if t.ownershipType == .familyShared { throw .cannotRefundFamilyShared(id) }
      if t.isRevoked { throw .alreadyRefunded(id) }
      if store.refundRequests().contains(where: { $0.transactionID == id }) { throw .duplicateRefundRequest(id) }
      let request = RefundRequest(
        id: String(store.state.nextRequestNumber), customer: customer, transactionID: id, productID: t.productID,
        reason: reason, date: store.state.now)
      store.state.nextRequestNumber += 1
      store.state.refundRequests = (store.state.refundRequests ?? []) + [request]
      store.emit(ci, .refundRequested(requestID: request.id, id, t.productID))
      var group: SubscriptionGroupID?
      if let g = t.subscriptionGroupID,
        let si = store.subscriptionIndex(ci, group: g)
      {
        group = g
        let sub = store[ci, si]
        if !sub.isExpired && !sub.isRevoked { store.turnAutoRenewOff(ci, si) }
      }
      if t.productType == .consumable || t.productType == .autoRenewable {
        var info: RenewalInfo?
        var status: RenewalState?
        if let group, let sub = store.state.customers[ci].subscription(group) {
          info = store.renewalInfo(ci, sub)
          status = sub.state
        }
        store.notify(
          ci, .consumptionRequest, nil, transaction: store.state.customers[ci].transactions[ti], renewalInfo: info,
          status: status, consumptionRequestReason: reason)
      }
      return request
    }
  }

  func refundRequest(_ id: String) throws(StoreError) -> (RefundRequest, TransactionHandle) {
    guard let request = refundRequests().first(where: { $0.id == id }) else { throw .noRefundRequest(id) }
    let ci = try index(of: request.customer)
    guard let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == request.transactionID }) else {
      throw .transactionNotFound(request.transactionID)
    }
    return (request, TransactionHandle(customer: ci, index: ti))
  }

  /// The App Store grants a refund request: `REFUND`, as `refund` does at once.
  @discardableResult
  public mutating func approveRefundRequest(
    _ id: String, reason: RevocationReason = .other, percentage: UInt64? = nil
  ) throws(StoreError) -> Outcome<TransactionID> {
    try atomically { (store: inout Store) throws(StoreError) -> TransactionID in
      let (request, found) = try store.refundRequest(id)
      try store.grantRefund(found, reason: reason, percentage: percentage)
      return request.transactionID
    }
  }

  /// The App Store declines a refund request: `REFUND_DECLINED`; nothing else changes (auto-renew
  /// stays as the request left it).
  @discardableResult
  public mutating func declineRefundRequest(_ id: String) throws(StoreError) -> Outcome<TransactionID> {
    try atomically { (store: inout Store) throws(StoreError) -> TransactionID in
      let (request, found) = try store.refundRequest(id)
      let ci = found.customer
      store.state.refundRequests?.removeAll { $0.id == id }
      if store.state.refundRequests?.isEmpty == true { store.state.refundRequests = nil }
      let t = store.state[found]
      store.emit(ci, .refundDeclined(requestID: id, t.id, t.productID))
      store.notify(ci, .refundDeclined, nil, transaction: t, group: t.subscriptionGroupID)
      return request.transactionID
    }
  }

  /// The App Store reverses a refund it granted (rule refund-reversal-restores-access):
  /// `REFUND_REVERSED`; the revocation fields are removed and access returns. A subscription
  /// whose current period was refunded is active again until the same renewal date, with
  /// auto-renew as the refund left it (off), so it expires then unless turned back on.
  @discardableResult
  public mutating func reverseRefund(
    _ id: TransactionID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let acting = try store.index(of: customer)
      guard let found = store.locate(id, preferring: acting) else { throw .transactionNotFound(id) }
      let ci = found.customer
      let t = store.state[found]
      guard t.isRevoked, !t.isFamilyRevocation, t.ownershipType == .purchased else { throw .notRefunded(id) }
      store.state[found].revocationDate = nil
      store.state[found].revocationReason = nil
      store.state[found].setProratedPercentage(nil)
      store.markModified(found)
      store.emit(ci, .refundReversed(id, t.productID))
      if let g = t.subscriptionGroupID,
        let si = store.subscriptionIndex(ci, group: g),
        store[ci, si].latestTransactionID == id,
        store[ci, si].isRevoked
      {
        store[ci, si].isRevoked = false
        store.scheduleDeadline(ci, si)
      }
      store.notify(
        ci, .refundReversed, nil, transaction: store.state[found],
        group: t.subscriptionGroupID)
      store.runDue(through: store.state.now)
    }
  }

  /// The latest transaction the customer bought of a product, finished or not (what
  /// `refund --product` refunds, rule refund-by-product-includes-finished-transactions).
  public func latestPurchasedTransaction(
    of productID: ProductID, customer: CustomerID = .default
  ) -> Transaction? {
    self.customer(customer)?.transactions.last { $0.productID == productID && $0.ownershipType == .purchased }
  }
}
