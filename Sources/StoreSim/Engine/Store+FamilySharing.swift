import Foundation

extension Store {
  func familyMembers(of ci: CustomerHandle) -> [CustomerHandle] {
    guard let family = state.customers[ci].familyID else { return [] }
    return (familyIndex[family] ?? []).filter { $0 != ci }
  }

  /// Puts a customer in a family, in `state` and in `familyIndex` (kept in customer order);
  /// nil takes them out.
  mutating func setFamily(_ ci: CustomerHandle, _ family: String?) {
    if let old = state.customers[ci].familyID {
      familyIndex[old]?.removeAll { $0 == ci }
      if familyIndex[old]?.isEmpty == true { familyIndex[old] = nil }
    }
    state.customers[ci].familyID = family
    guard let family else { return }
    var members = familyIndex[family] ?? []
    members.insert(ci, at: members.firstIndex { $0.index > ci.index } ?? members.count)
    familyIndex[family] = members
  }

  mutating func rebuildFamilyIndex() {
    familyIndex = [:]
    for ci in state.customers.handles {
      if let family = state.customers[ci].familyID { familyIndex[family, default: []].append(ci) }
    }
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
      store.setFamily(oi, family)
      store.setFamily(mi, family)
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
      store.setFamily(mi, nil)
      let name = store.state.customers[mi].id
      for ti in store.state.customers[mi].transactions.indices
      where store.state.customers[mi].transactions[ti].ownershipType == .familyShared
        && !store.state.customers[mi].transactions[ti].isRevoked
      {
        store.revokeCopy(TransactionHandle(customer: mi, index: ti), reason: .other)
      }
      for oi in others {
        for ti in store.state.customers[oi].transactions.indices
        where store.state.customers[oi].transactions[ti].sharedFrom == name
          && !store.state.customers[oi].transactions[ti].isRevoked
        {
          store.revokeCopy(TransactionHandle(customer: oi, index: ti), reason: .other)
        }
      }
    }
  }

  /// Gives each family member their own copy of a family-shareable purchase or renewal.
  /// A renewal's `renewalSubtype` (`BILLING_RECOVERY`) reaches the members' `DID_RENEW` too
  /// (rule family-members-get-status-changes).
  mutating func shareWithFamily(_ ci: CustomerHandle, _ t: Transaction, renewalSubtype: Subtype? = nil) {
    guard state.customers[ci].familyID != nil, t.ownershipType == .purchased,
      state.configuration.isFamilyShareable(t.productID)
    else { return }
    for mi in familyMembers(of: ci) { copy(t, from: ci, to: mi, renewalSubtype: renewalSubtype) }
  }

  mutating func copy(_ t: Transaction, from ci: CustomerHandle, to mi: CustomerHandle, renewalSubtype: Subtype? = nil) {
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

  /// Revokes the family copies of a purchase. Only current family members can hold a copy that
  /// is not yet revoked: leaving a family revokes every copy on both sides. A member is sent
  /// `REVOKE` only when they lose access (rule family-revoke-only-on-lost-access): the copy of
  /// an old renewal is revoked quietly.
  mutating func revokeFamilyCopies(
    of id: TransactionID, from ci: CustomerHandle, reason: RevocationReason, losingAccess: Bool = true
  ) {
    for mi in familyMembers(of: ci) {
      for ti in state.customers[mi].transactions.indices
      where state.customers[mi].transactions[ti].sharedTransactionID == id
        && !state.customers[mi].transactions[ti].isRevoked
      {
        revokeCopy(TransactionHandle(customer: mi, index: ti), reason: reason, notifying: losingAccess)
      }
    }
  }

  /// Revokes one family copy; `REVOKE` carries the member's renewal info and status for an
  /// auto-renewable (rule family-revoke-only-on-lost-access).
  mutating func revokeCopy(_ handle: TransactionHandle, reason: RevocationReason, notifying: Bool = true) {
    let mi = handle.customer
    state[handle].revocationDate = state.now
    state[handle].revocationReason = reason
    state[handle].isFamilyRevocation = true
    markModified(handle)
    let copy = state[handle]
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

  /// Sends a status-change notification of the purchaser's subscription to every family member
  /// holding a copy of its current period, with the member's copy, renewal info and status
  /// (rule family-members-get-status-changes).
  mutating func notifyFamily(_ ci: CustomerHandle, _ si: Int, _ type: NotificationTypeV2, _ subtype: Subtype?) {
    guard state.customers[ci].familyID != nil else { return }
    let latest = self[ci, si].latestTransactionID
    let group = self[ci, si].groupID
    let owner = state.customers[ci].id
    for mi in familyMembers(of: ci) {
      guard let copy = state.customers[mi].transactions.last(where: { $0.sharedTransactionID == latest }),
        !copy.isRevoked
      else { continue }
      let status = statuses(mi, group: group).first { $0.isFamilyShared && $0.transaction.sharedFrom == owner }
      notify(mi, type, subtype, transaction: copy, renewalInfo: status?.renewalInfo, status: status?.state)
    }
  }
}
