import Foundation

extension Store {
  /// Apple's limit: at most two extensions per subscription in 365 days.
  package static let extensionsPerYear = 2

  /// The records of the writing endpoints (empty when there are none).
  package var serverRecords: ServerRecords { state.serverRecords ?? ServerRecords() }

  /// Sets (or clears) the app account token of a purchase, as Set App Account Token does: a
  /// one-time purchase's transaction; for an auto-renewable subscription, its current renewal
  /// transaction and the renewals after it (past transactions keep theirs, and the token stays
  /// through upgrades and crossgrades). The value is false when no customer bought a
  /// transaction with this original id (nothing changes then).
  @discardableResult
  package mutating func setAppAccountToken(_ token: UUID?, originalTransactionID id: TransactionID) -> Outcome<Bool> {
    atomically { (store: inout Store) -> Bool in store.setAppAccountTokenBody(token, originalTransactionID: id) }
  }

  mutating func setAppAccountTokenBody(_ token: UUID?, originalTransactionID id: TransactionID) -> Bool {
    for ci in state.customers.handles {
      guard
        let oi = state.customers[ci].transactions.firstIndex(where: {
          $0.id == id && $0.originalID == id && $0.ownershipType == .purchased
        })
      else { continue }
      var current = oi
      if let si = state.customers[ci].subscriptions.firstIndex(where: { $0.originalID == id }) {
        self[ci, si].appAccountToken = token
        let latest = self[ci, si].latestTransactionID
        current = state.customers[ci].transactions.lastIndex { $0.id == latest } ?? oi
      }
      state.customers[ci].transactions[current].appAccountToken = token
      markModified(ci, current)
      return true
    }
    return false
  }

  /// Extends a subscription's renewal date by `days` (Extend a Subscription Renewal Date):
  /// the latest transaction's `expiresDate` and the renewal date move, renewals continue from
  /// the new date, and RENEWAL_EXTENDED is sent. A request identifier already used for this
  /// subscription answers the earlier extension again without extending twice.
  ///
  /// - Throws: `ExtensionRefusal`, Apple's error conditions for this endpoint; the store is unchanged.
  @discardableResult
  package mutating func extendRenewalDate(
    originalTransactionID id: TransactionID, days: Int, reason: Int, requestIdentifier: String
  ) throws(ExtensionRefusal) -> Outcome<RenewalExtension> {
    try atomically { (store: inout Store) throws(ExtensionRefusal) -> RenewalExtension in
      try store.extend(originalTransactionID: id, days: days, reason: reason, requestIdentifier: requestIdentifier)
    }
  }

  /// One extension of `extendRenewalDate`, also run for each subscription of a mass extension.
  mutating func extend(
    originalTransactionID id: TransactionID, days: Int, reason: Int, requestIdentifier: String, mass: Bool = false
  ) throws(ExtensionRefusal) -> RenewalExtension {
    if let earlier = serverRecords.extensions.last(where: {
      $0.originalTransactionID == id && $0.requestIdentifier == requestIdentifier
    }) {
      return earlier
    }
    guard let (ci, si) = subscriptionIndex(originalID: id) else {
      let t = state.customers.lazy.compactMap { $0.transaction(id) }.first
      guard let t, t.originalID == id else { throw .notFound }
      if t.ownershipType == .familyShared { throw .familyShared }
      if t.productType != .autoRenewable { throw .notAutoRenewable }
      throw .notFound
    }
    let sub = self[ci, si]
    guard !sub.isExpired, !sub.isRevoked, case .healthy = sub.billing, sub.expirationDate > state.now else {
      throw .ineligible
    }
    if isInFreeOfferPeriod(ci, sub) { throw .freeOfferPeriod }
    let yearAgo = state.now.addingTimeInterval(-365 * 86_400)
    let recent = serverRecords.extensions.filter { $0.originalTransactionID == id && $0.date > yearAgo }.count
    guard recent < Self.extensionsPerYear else { throw .maximumReached }
    let newDate = sub.expirationDate.addingTimeInterval(TimeInterval(days) * 86_400)
    let latestID = sub.latestTransactionID
    if let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == latestID }) {
      state.customers[ci].transactions[ti].expirationDate = newDate
      markModified(ci, ti)
    }
    // The family members' copies of the period move with it (rule extension-moves-the-family-copies).
    for mi in familyMembers(of: ci) {
      for ti in state.customers[mi].transactions.indices
      where state.customers[mi].transactions[ti].sharedTransactionID == latestID
        && !state.customers[mi].transactions[ti].isRevoked
      {
        state.customers[mi].transactions[ti].expirationDate = newDate
        markModified(mi, ti)
      }
    }
    updateSubscription(ci, si) { s in
      s.expirationDate = newDate
      // Renewals go on from the new date: a new anniversary chain.
      s.anniversaryDate = nil
    }
    scheduleDeadline(ci, si)
    let record = RenewalExtension(
      originalTransactionID: id, customer: state.customers[ci].id, days: days, reason: reason,
      requestIdentifier: requestIdentifier,
      date: state.now, effectiveDate: newDate, transactionID: latestID, mass: mass)
    var records = serverRecords
    records.extensions.append(record)
    state.serverRecords = records
    let latest = state.customers[ci].transaction(latestID)
    notify(ci, .renewalExtended, nil, transaction: latest, group: sub.groupID)
    notifyFamily(ci, si, .renewalExtended, nil)
    return record
  }

  /// Extends every active subscription to `productID` (limited to `storefronts` when given) by
  /// `days` (Extend Subscription Renewal Dates for All Active Subscribers). storesim completes
  /// it at once: each subscription extended gets RENEWAL_EXTENDED, each that reached the yearly
  /// limit RENEWAL_EXTENSION/FAILURE. A request identifier already used returns that request.
  @discardableResult
  package mutating func massExtendRenewalDate(
    productID: ProductID, days: Int, reason: Int, requestIdentifier: String, storefronts: [String]?
  ) -> Outcome<MassExtension> {
    atomically { (store: inout Store) -> MassExtension in
      store.massExtend(
        productID: productID, days: days, reason: reason, requestIdentifier: requestIdentifier, storefronts: storefronts
      )
    }
  }

  mutating func massExtend(
    productID: ProductID, days: Int, reason: Int, requestIdentifier: String, storefronts: [String]?
  ) -> MassExtension {
    if let earlier = serverRecords.massExtensions.first(where: { $0.requestIdentifier == requestIdentifier }) {
      return earlier
    }
    var succeeded = 0
    var failed = 0
    var targets: [(CustomerHandle, TransactionID)] = []
    for ci in state.customers.handles {
      for sub in state.customers[ci].subscriptions
      where sub.currentProductID == productID && !sub.isExpired && !sub.isRevoked {
        guard case .healthy = sub.billing, sub.expirationDate > state.now, !isInFreeOfferPeriod(ci, sub) else {
          continue
        }
        if let storefronts, let t = state.customers[ci].transaction(sub.latestTransactionID),
          !storefronts.contains(t.storefront)
        {
          continue
        }
        targets.append((ci, sub.originalID))
      }
    }
    for (ci, id) in targets {
      do {
        _ = try extend(
          originalTransactionID: id, days: days, reason: reason, requestIdentifier: requestIdentifier, mass: true)
        succeeded += 1
      } catch {
        failed += 1
        if let (_, si) = subscriptionIndex(originalID: id) {
          let sub = self[ci, si]
          notify(
            ci, .renewalExtension, .failure, transaction: state.customers[ci].transaction(sub.latestTransactionID),
            group: sub.groupID)
        }
      }
    }
    let request = MassExtension(
      requestIdentifier: requestIdentifier, productID: productID, days: days, reason: reason, storefronts: storefronts,
      date: state.now,
      succeeded: succeeded, failed: failed)
    var records = serverRecords
    records.massExtensions.append(request)
    state.serverRecords = records
    // The request is complete: RENEWAL_EXTENSION/SUMMARY reports its counts (app-wide, so it
    // is filed under the first customer, like TEST).
    let index = state.notifications.count
    notify(CustomerHandle(index: 0), .renewalExtension, .summary, transaction: nil, renewalInfo: nil, status: nil)
    state.notifications[index].massExtensionRequestIdentifier = requestIdentifier
    return request
  }

  /// Whether the subscription's current period is free (a free trial or another free offer):
  /// Apple extends only subscriptions in a paid period.
  func isInFreeOfferPeriod(_ ci: CustomerHandle, _ sub: SubscriptionState) -> Bool {
    guard let t = state.customers[ci].transaction(sub.latestTransactionID) else { return false }
    return t.offer?.paymentMode == .freeTrial || t.price == 0
  }

  /// Records consumption information for a transaction; it answers the transaction's pending
  /// refund request (its CONSUMPTION_REQUEST) when there is one.
  @discardableResult
  package mutating func recordConsumption(
    transactionID: TransactionID, customer: CustomerID, version: Int, fields: [String: String]
  ) -> Outcome<ConsumptionRecord> {
    let request = refundRequests().first { $0.transactionID == transactionID && $0.customer == customer }
    let record = ConsumptionRecord(
      transactionID: transactionID, customer: customer, date: state.now, version: version, fields: fields,
      refundRequestID: request?.id)
    var records = serverRecords
    records.consumption.append(record)
    state.serverRecords = records
    return Outcome(value: record, events: [])
  }

  /// Sends a TEST notification (Request a Test Notification); the value is its token.
  @discardableResult
  package mutating func sendTestNotification() -> Outcome<String> {
    atomically { (store: inout Store) -> String in store.sendTestNotificationBody() }
  }

  mutating func sendTestNotificationBody() -> String {
    let index = state.notifications.count
    // Sent to the app, not about anyone: recorded under the session's first customer.
    notify(CustomerHandle(index: 0), .test, nil, transaction: nil, renewalInfo: nil, status: nil)
    let n = state.notifications[index]
    let token = "\(n.notificationUUID)_\(n.signedDate.epochMilliseconds)"
    var records = serverRecords
    records.testNotifications.append(TestNotificationRecord(token: token, index: index))
    state.serverRecords = records
    return token
  }

  /// The customer and subscription whose original transaction id is `id` (own subscriptions).
  func subscriptionIndex(originalID id: TransactionID) -> (CustomerHandle, Int)? {
    for ci in state.customers.handles {
      if let si = state.customers[ci].subscriptions.firstIndex(where: { $0.originalID == id }) { return (ci, si) }
    }
    return nil
  }
}
