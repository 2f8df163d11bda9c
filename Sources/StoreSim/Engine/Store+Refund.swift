import Foundation

extension Store {
  func locate(_ id: TransactionID, preferring ci: Int) -> (Int, Int)? {
    if let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == id }) { return (ci, ti) }
    for (c, customer) in state.customers.enumerated() where c != ci {
      if let ti = customer.transactions.lastIndex(where: { $0.id == id }) { return (c, ti) }
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
  @discardableResult
  public mutating func refund(
    _ id: TransactionID, reason: RevocationReason = .other, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let acting = try store.index(of: customer)
      guard let (ci, ti) = store.locate(id, preferring: acting) else { throw .transactionNotFound(id) }
      try store.grantRefund(ci, ti, reason: reason)
    }
  }

  mutating func grantRefund(_ ci: Int, _ ti: Int, reason: RevocationReason) throws(StoreError) {
    let t = state.customers[ci].transactions[ti]
    let id = t.id
    if t.ownershipType == .familyShared { throw .cannotRefundFamilyShared(id) }
    if t.isRevoked { throw .alreadyRefunded(id) }
    state.refundRequests?.removeAll { $0.transactionID == id }
    if state.refundRequests?.isEmpty == true { state.refundRequests = nil }
    state.customers[ci].transactions[ti].revocationDate = state.now
    state.customers[ci].transactions[ti].revocationReason = reason
    emit(ci, .transactionRevoked(id, t.productID))
    var group: SubscriptionGroupID?
    var losesAccess = t.productType != .autoRenewable
    if let g = t.subscriptionGroupID, let si = state.customers[ci].subscriptions.firstIndex(where: { $0.groupID == g })
    {
      group = g
      let sub = state.customers[ci].subscriptions[si]
      if sub.latestTransactionID == id && !sub.isExpired && !sub.isRevoked {
        losesAccess = true
        state.customers[ci].subscriptions[si].isRevoked = true
        state.customers[ci].subscriptions[si].willAutoRenew = false
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
        let si = store.state.customers[ci].subscriptions.firstIndex(where: { $0.groupID == g })
      {
        group = g
        let sub = store.state.customers[ci].subscriptions[si]
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

  func refundRequest(_ id: String) throws(StoreError) -> (RefundRequest, Int, Int) {
    guard let request = refundRequests().first(where: { $0.id == id }) else { throw .noRefundRequest(id) }
    let ci = try index(of: request.customer)
    guard let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == request.transactionID }) else {
      throw .transactionNotFound(request.transactionID)
    }
    return (request, ci, ti)
  }

  /// The App Store grants a refund request: `REFUND`, as `refund` does at once.
  @discardableResult
  public mutating func approveRefundRequest(
    _ id: String, reason: RevocationReason = .other
  ) throws(StoreError) -> Outcome<TransactionID> {
    try atomically { (store: inout Store) throws(StoreError) -> TransactionID in
      let (request, ci, ti) = try store.refundRequest(id)
      try store.grantRefund(ci, ti, reason: reason)
      return request.transactionID
    }
  }

  /// The App Store declines a refund request: `REFUND_DECLINED`; nothing else changes (auto-renew
  /// stays as the request left it).
  @discardableResult
  public mutating func declineRefundRequest(_ id: String) throws(StoreError) -> Outcome<TransactionID> {
    try atomically { (store: inout Store) throws(StoreError) -> TransactionID in
      let (request, ci, ti) = try store.refundRequest(id)
      store.state.refundRequests?.removeAll { $0.id == id }
      if store.state.refundRequests?.isEmpty == true { store.state.refundRequests = nil }
      let t = store.state.customers[ci].transactions[ti]
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
      guard let (ci, ti) = store.locate(id, preferring: acting) else { throw .transactionNotFound(id) }
      let t = store.state.customers[ci].transactions[ti]
      guard t.isRevoked, !t.isFamilyRevocation, t.ownershipType == .purchased else { throw .notRefunded(id) }
      store.state.customers[ci].transactions[ti].revocationDate = nil
      store.state.customers[ci].transactions[ti].revocationReason = nil
      store.emit(ci, .refundReversed(id, t.productID))
      if let g = t.subscriptionGroupID,
        let si = store.state.customers[ci].subscriptions.firstIndex(where: { $0.groupID == g }),
        store.state.customers[ci].subscriptions[si].latestTransactionID == id,
        store.state.customers[ci].subscriptions[si].isRevoked
      {
        store.state.customers[ci].subscriptions[si].isRevoked = false
        store.scheduleDeadline(ci, si)
      }
      store.notify(
        ci, .refundReversed, nil, transaction: store.state.customers[ci].transactions[ti],
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

  /// Revokes the family copies of a purchase. Only current family members can hold a copy that
  /// is not yet revoked: leaving a family revokes every copy on both sides. A member is sent
  /// `REVOKE` only when they lose access (rule family-revoke-only-on-lost-access): the copy of
  /// an old renewal is revoked quietly.
  mutating func revokeFamilyCopies(
    of id: TransactionID, from ci: Int, reason: RevocationReason, losingAccess: Bool = true
  ) {
    for mi in familyMembers(of: ci) {
      for ti in state.customers[mi].transactions.indices
      where state.customers[mi].transactions[ti].sharedTransactionID == id
        && !state.customers[mi].transactions[ti].isRevoked
      {
        revokeCopy(mi, ti, reason: reason, notifying: losingAccess)
      }
    }
  }

  /// Revokes one family copy; `REVOKE` carries the member's renewal info and status for an
  /// auto-renewable (rule family-revoke-only-on-lost-access).
  mutating func revokeCopy(_ mi: Int, _ ti: Int, reason: RevocationReason, notifying: Bool = true) {
    state.customers[mi].transactions[ti].revocationDate = state.now
    state.customers[mi].transactions[ti].revocationReason = reason
    state.customers[mi].transactions[ti].isFamilyRevocation = true
    let copy = state.customers[mi].transactions[ti]
    emit(mi, .transactionRevoked(copy.id, copy.productID))
    guard notifying else { return }
    var info: RenewalInfo?
    var status: RenewalState?
    if let group = copy.subscriptionGroupID,
      let s = statuses(mi, group: group).first(where: {
        $0.isFamilyShared && $0.transaction.sharedFrom == copy.sharedFrom
      })
    {
      info = s.renewalInfo
      status = s.state
    }
    notify(mi, .revoke, nil, transaction: copy, renewalInfo: info, status: status)
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
      for mi in store.state.customers.indices where mi != ci {
        store.state.customers[mi].transactions.removeAll { $0.sharedTransactionID.map(removed.contains) ?? false }
      }
      store.rebuildSchedule()
    }
  }

  /// `clearTransactions()`: every transaction, subscription and request of every customer is
  /// removed; intro eligibility resets. Settings and notifications stay.
  @discardableResult
  public mutating func clearTransactions() -> Outcome<Void> {
    for ci in state.customers.indices {
      state.customers[ci].transactions = []
      state.customers[ci].subscriptions = []
      state.customers[ci].introductoryOfferUsedGroups = []
    }
    state.pendingRequests = []
    state.refundRequests = nil
    rebuildSchedule()
    return Outcome(events: [])
  }

  /// `resetToDefaultState()`: settings back to the configuration's values.
  @discardableResult
  public mutating func resetToDefaultState() -> Outcome<Void> {
    settings = state.configuration.settings
    return Outcome(events: [])
  }

  // MARK: Family Sharing

  func familyMembers(of ci: Int) -> [Int] {
    guard let family = state.customers[ci].familyID else { return [] }
    return state.customers.indices.filter { $0 != ci && state.customers[$0].familyID == family }
  }

  /// Puts `member` in the Family Sharing group of `organizer`: family-shareable purchases reach
  /// each other as family-shared transactions (rule family-shared-copies-are-the-members-own).
  @discardableResult
  public mutating func addFamilyMember(
    _ member: CustomerID, to organizer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let oi = try store.index(of: organizer)
      if store.customerIndex[member] == nil { store.appendCustomer(member) }
      let mi = try store.index(of: member)
      guard mi != oi else { return }
      let family = store.state.customers[oi].familyID ?? "family-\(store.state.customers[oi].id)"
      store.state.customers[oi].familyID = family
      store.state.customers[mi].familyID = family
      // Existing shareable purchases of each side reach the other.
      for (from, to) in [(oi, mi), (mi, oi)] {
        for t in store.state.customers[from].transactions where t.ownershipType == .purchased && !t.isRevoked {
          guard let product = store.state.configuration.product(t.productID), product.isFamilyShareable else {
            continue
          }
          if t.productType == .autoRenewable {
            guard let sub = store.state.customers[from].subscription(t.subscriptionGroupID ?? ""),
              sub.latestTransactionID == t.id, sub.state.isEntitled
            else { continue }
          }
          store.copy(t, from: from, to: to)
        }
      }
    }
  }

  /// Takes `member` out of their family: the family-shared transactions they received, and those
  /// others received from them, are revoked (`REVOKE`).
  @discardableResult
  public mutating func removeFamilyMember(_ member: CustomerID) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let mi = try store.index(of: member)
      let others = store.familyMembers(of: mi)
      store.state.customers[mi].familyID = nil
      let name = store.state.customers[mi].id
      for ti in store.state.customers[mi].transactions.indices
      where store.state.customers[mi].transactions[ti].ownershipType == .familyShared
        && !store.state.customers[mi].transactions[ti].isRevoked
      {
        store.revokeCopy(mi, ti, reason: .other)
      }
      for oi in others {
        for ti in store.state.customers[oi].transactions.indices
        where store.state.customers[oi].transactions[ti].sharedFrom == name
          && !store.state.customers[oi].transactions[ti].isRevoked
        {
          store.revokeCopy(oi, ti, reason: .other)
        }
      }
    }
  }

  /// Gives each family member their own copy of a family-shareable purchase or renewal.
  /// A renewal's `renewalSubtype` (`BILLING_RECOVERY`) reaches the members' `DID_RENEW` too
  /// (rule family-members-get-status-changes).
  mutating func shareWithFamily(_ ci: Int, _ t: Transaction, renewalSubtype: Subtype? = nil) {
    guard state.customers[ci].familyID != nil, t.ownershipType == .purchased,
      state.configuration.isFamilyShareable(t.productID)
    else { return }
    for mi in familyMembers(of: ci) { copy(t, from: ci, to: mi, renewalSubtype: renewalSubtype) }
  }

  mutating func copy(_ t: Transaction, from ci: Int, to mi: Int, renewalSubtype: Subtype? = nil) {
    let owner = state.customers[ci].id
    var c = t
    c.ownershipType = .familyShared
    c.sharedFrom = owner
    c.sharedTransactionID = t.id
    c.isFinished = false
    c.appAccountToken = nil
    let earlier = state.customers[mi].transactions.first {
      $0.sharedFrom == owner && $0.ownershipType == .familyShared
        && ($0.subscriptionGroupID != nil
          ? $0.subscriptionGroupID == t.subscriptionGroupID : $0.productID == t.productID)
    }
    let isFirst = earlier == nil || (t.reason == .purchase && t.productType != .autoRenewable)
    let recorded = record(
      mi, consume c, delivery: .updates, originalID: isFirst ? nil : earlier!.originalID,
      originalPurchaseDate: isFirst ? nil : earlier!.originalPurchaseDate)
    if t.productType == .autoRenewable {
      let wasActive = earlier != nil
      if t.reason == .renewal {
        notify(mi, .didRenew, renewalSubtype, transaction: recorded, group: t.subscriptionGroupID)
      } else {
        notify(
          mi, .subscribed, wasActive ? .resubscribe : .initialBuy, transaction: recorded,
          group: t.subscriptionGroupID)
      }
    } else {
      notify(mi, .oneTimeCharge, nil, transaction: recorded, group: nil)
    }
  }
}
