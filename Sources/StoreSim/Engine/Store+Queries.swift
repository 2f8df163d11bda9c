import Foundation

extension Store {
  /// `Transaction.currentEntitlements`: one transaction per non-consumable, the latest of
  /// each entitled subscription status, the latest of each non-renewing subscription; never
  /// consumables or revoked transactions (rule consumables-never-entitle-non-renewing-always-do,
  /// rule refunded-transactions-leave-entitlements-but-stay-in-history, rule
  /// several-statuses-entitle-if-any-does).
  public func currentEntitlements(customer: CustomerID = .default) -> [Transaction] {
    guard let ci = customerIndex[customer] else { return [] }
    let c = state.customers[ci]
    var result: [Transaction] = []
    var seen = Set<ProductID>()
    var groups = Set<SubscriptionGroupID>()
    // Each product's latest transaction that is not revoked (read through the index: the
    // history is not walked).
    for positions in transactionIndex[ci].positionsBySlot {
      guard let last = positions.last else { continue }
      if let group = c.transactions[last].subscriptionGroupID { groups.insert(group) }
      switch c.transactions[last].productType {
      case .consumable, .autoRenewable: continue
      case .nonConsumable, .nonRenewable:
        if let p = positions.last(where: { !c.transactions[$0].isRevoked }) {
          seen.insert(c.transactions[p].productID)
          result.append(c.transactions[p])
        }
      }
    }
    for group in groups.sorted() {
      for status in statuses(ci, group: group) where status.state.isEntitled {
        if seen.insert(status.transaction.productID + "#" + String(status.transaction.originalID)).inserted {
          result.append(status.transaction)
        }
      }
    }
    return result.sorted { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
  }

  /// Whether `product` is among `currentEntitlements(customer:)`.
  public func isEntitled(to product: ProductID, customer: CustomerID = .default) -> Bool {
    guard let ci = customerIndex[customer], let last = positions(ci, of: product).last else { return false }
    let t = state.customers[ci].transactions[last]
    switch t.productType {
    case .consumable: return false
    case .nonConsumable, .nonRenewable:
      return positions(ci, of: product).contains { !state.customers[ci].transactions[$0].isRevoked }
    case .autoRenewable:
      guard let group = t.subscriptionGroupID else { return false }
      return statuses(ci, group: group).contains { $0.state.isEntitled && $0.transaction.productID == product }
    }
  }

  /// `Transaction.all`: every transaction except finished consumables that were not refunded
  /// (rule finished-consumables-leave-history-until-refunded), oldest first.
  public func allTransactions(customer: CustomerID = .default) -> [Transaction] {
    guard let c = self.customer(customer) else { return [] }
    return c.transactions.filter { !($0.productType == .consumable && $0.isFinished && !$0.isRevoked) }
  }

  /// `Transaction.unfinished`.
  public func unfinishedTransactions(customer: CustomerID = .default) -> [Transaction] {
    guard let c = self.customer(customer) else { return [] }
    return c.transactions.filter { !$0.isFinished }
  }

  /// `Transaction.latest(for:)`: the most recent transaction for the product in any state.
  public func latestTransaction(for productID: ProductID, customer: CustomerID = .default) -> Transaction? {
    guard let ci = customerIndex[customer] else { return nil }
    let transactions = state.customers[ci].transactions
    return positions(ci, of: productID).reversed().lazy.map { transactions[$0] }.first {
      !($0.productType == .consumable && $0.isFinished && !$0.isRevoked)
    }
  }

  /// `Product.SubscriptionInfo.status(for:)`: the customer's own status and one per family
  /// member sharing a subscription of the group (rule several-statuses-entitle-if-any-does). Empty
  /// if never subscribed.
  public func statuses(
    forGroup group: SubscriptionGroupID, customer: CustomerID = .default
  ) -> [SubscriptionStatus] {
    guard let ci = customerIndex[customer] else { return [] }
    return statuses(ci, group: group)
  }

  func statuses(_ ci: CustomerHandle, group: SubscriptionGroupID) -> [SubscriptionStatus] {
    var result: [SubscriptionStatus] = []
    let c = state.customers[ci]
    if let sub = c.subscription(group), let t = c.transaction(sub.latestTransactionID) {
      result.append(
        SubscriptionStatus(
          groupID: group, state: sub.state, renewalInfo: renewalInfo(ci, sub), transaction: t, isFamilyShared: false))
    }
    // Family-shared statuses: derived from the purchaser's subscription, with this customer's copy.
    let shared = transactionIndex[ci].familyShared[group] ?? []
    var owners: [CustomerID] = []
    for p in shared {
      if let owner = c.transactions[p].sharedFrom, !owners.contains(owner) { owners.append(owner) }
    }
    for owner in owners {
      guard let oi = customerIndex[owner], let sub = state.customers[oi].subscription(group),
        let copy = shared.reversed().lazy.map({ c.transactions[$0] }).first(where: { $0.sharedFrom == owner })
      else { continue }
      var state = sub.state
      if copy.isRevoked { state = .revoked }
      var info = renewalInfo(oi, sub)
      info.originalTransactionID = copy.originalID
      info.appAccountToken = nil
      result.append(
        SubscriptionStatus(groupID: group, state: state, renewalInfo: info, transaction: copy, isFamilyShared: true))
    }
    return result
  }

  /// Whether the customer may get the group's introductory offer (rule
  /// intro-offer-eligibility-is-per-group).
  public func isEligibleForIntroOffer(group: SubscriptionGroupID, customer: CustomerID = .default) -> Bool {
    guard let c = self.customer(customer) else { return false }
    return !c.introductoryOfferUsedGroups.contains(group)
  }

  /// Open Ask to Buy requests and interrupted purchases of the customer (all when nil).
  public func pendingRequests(customer: CustomerID? = nil) -> [PendingRequest] {
    state.pendingRequests.filter { customer == nil || $0.customer == customer }
  }

  /// Refund requests waiting for the App Store's answer, of the customer (all when nil).
  public func refundRequests(customer: CustomerID? = nil) -> [RefundRequest] {
    (state.refundRequests ?? []).filter { customer == nil || $0.customer == customer }
  }

  /// The renewal info of a subscription, signed now (rule signed-date-is-the-signing-time).
  func renewalInfo(_ ci: CustomerHandle, _ sub: SubscriptionState) -> RenewalInfo {
    var nextOffer: SubscriptionOffer?
    if let pending = sub.pendingOffer {
      nextOffer = pending
    } else if let running = sub.runningOffer, sub.runningOfferPeriodsLeft > 0 {
      nextOffer = running
    }
    // A price increase shows as the renewal price while pending and after consent (rule
    // price-increase-changes-the-renewal-price).
    var price = sub.increasedPrice ?? state.configuration.price(of: sub.autoRenewProductID) ?? 0
    if let nextOffer {
      switch nextOffer.paymentMode {
      case .freeTrial, .oneTime: price = 0
      case .payAsYouGo, .payUpFront: price = nextOffer.price
      }
    }
    let commitment = renewalCommitment(sub)
    if let c = sub.commitment, commitment != nil {
      price = c.isInLastPeriod ? commitment!.renewalPrice : c.monthlyPrice
    }
    var winBack: [String] = []
    if sub.isExpired && !sub.willAutoRenew && !sub.isRevoked {
      // Win-back offers only for churned subscribers (rule
      // win-back-offers-only-for-churned-subscriptions), and only those of the product
      // the customer last subscribed to (rule win-back-offers-of-the-last-subscription); the
      // test env's Eligible switch.
      for offer in state.configuration.product(sub.currentProductID)?.subscription?.winBackOffers ?? []
      where offer.isEligible {
        if let id = offer.id, !winBack.contains(id) { winBack.append(id) }
      }
    }
    return RenewalInfo(
      originalTransactionID: sub.originalID, currentProductID: sub.currentProductID,
      autoRenewProductID: sub.autoRenewProductID, willAutoRenew: sub.willAutoRenew,
      expirationReason: sub.isExpired || sub.isInBillingRetry ? sub.expirationReason : nil,
      isInBillingRetry: sub.isInBillingRetry, gracePeriodExpirationDate: sub.gracePeriodExpirationDate,
      priceIncreaseStatus: sub.priceIncreaseStatus,
      offer: nextOffer.map(TransactionOffer.init),
      renewalDate: sub.expirationDate, recentSubscriptionStartDate: sub.recentSubscriptionStartDate,
      renewalPrice: price, currency: storefront.currency, eligibleWinBackOfferIDs: winBack,
      appAccountToken: sub.appAccountToken, signedDate: state.now, commitment: commitment)
  }

  /// Records an App Store Server Notification V2 (rule notification-type-follows-the-event).
  mutating func notify(
    _ ci: CustomerHandle, _ type: NotificationTypeV2, _ subtype: Subtype?, transaction: consuming Transaction?,
    group: SubscriptionGroupID? = nil
  ) {
    var info: RenewalInfo?
    var status: RenewalState?
    if let group {
      if let si = subscriptionIndex(ci, group: group) {
        let sub = self[ci, si]
        info = renewalInfo(ci, sub)
        status = sub.state
      } else if let s = statuses(ci, group: group).first(where: { $0.isFamilyShared }) {
        info = s.renewalInfo
        status = s.state
      }
    } else if let t = transaction, t.productType == .autoRenewable, let g = t.subscriptionGroupID,
      let s = statuses(ci, group: g).first(where: { $0.transaction.id == t.id || !$0.isFamilyShared })
    {
      info = s.renewalInfo
      status = t.isRevoked && t.ownershipType == .familyShared ? .revoked : s.state
    }
    notify(ci, type, subtype, transaction: consume transaction, renewalInfo: consume info, status: status)
  }

  /// Records a notification with the renewal info and status given.
  mutating func notify(
    _ ci: CustomerHandle, _ type: NotificationTypeV2, _ subtype: Subtype?, transaction: consuming Transaction?,
    renewalInfo info: consuming RenewalInfo?,
    status: RenewalState?, consumptionRequestReason: ConsumptionRequestReason? = nil
  ) {
    let index = state.notifications.count
    let notification = ServerNotification(
      notificationType: type, subtype: subtype, sequence: index, signedDate: state.now,
      customer: state.customers[ci].id, transaction: consume transaction, renewalInfo: consume info, status: status,
      consumptionRequestReason: consumptionRequestReason)
    state.notifications.append(consume notification)
    emit(ci, .notificationSent(index: index, type: type, subtype: subtype))
  }
}
