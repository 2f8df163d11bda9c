import Foundation

extension Store {
  /// Buys a product, as `Product.purchase(options:)` (rule
  /// same-device-purchase-is-not-repeated-on-updates).
  ///
  /// - Parameters:
  ///   - cancel: the customer dismisses the sheet (`.userCancelled`).
  ///   - date: a back-dated purchase (`purchaseDate(_:renewalBehavior: .renewUntilNow)`):
  ///     renewals are filled in up to now.
  /// - Returns: the `PurchaseResult` as `value` (`outcome.transaction` on success) and the events.
  /// - Throws: `StoreError` for misuse (unknown product or customer, future date); purchase
  ///   errors StoreKit throws (ineligible offer, simulated errors) are `.failed` outcomes.
  @discardableResult
  public mutating func purchase(
    _ productID: ProductID, options: PurchaseOptions = PurchaseOptions(),
    customer: CustomerID = .default, cancel: Bool = false, at date: Date? = nil
  ) throws(StoreError) -> Outcome<PurchaseResult> {
    try atomically { (store: inout Store) throws(StoreError) -> PurchaseResult in
      try store.purchaseBody(productID, options: options, customer: customer, cancel: cancel, at: date)
    }
  }

  /// Buys a product and returns its transaction, as `SKTestSession.buyProduct(identifier:options:)`:
  /// for tests that need the purchase to succeed.
  ///
  /// - Throws: `StoreError.purchaseNotCompleted` when the purchase is pending, cancelled or
  ///   failed (the store then holds what that outcome left, e.g. a pending Ask to Buy request);
  ///   the other `StoreError`s as `purchase` does, leaving the store unchanged.
  @discardableResult
  public mutating func buyProduct(
    _ productID: ProductID, options: PurchaseOptions = PurchaseOptions(), customer: CustomerID = .default
  ) throws(StoreError) -> Transaction {
    let outcome = try purchase(productID, options: options, customer: customer)
    guard let transaction = outcome.transaction else { throw .purchaseNotCompleted(productID, outcome.value) }
    return transaction
  }

  mutating func purchaseBody(
    _ productID: ProductID, options: PurchaseOptions, customer: CustomerID, cancel: Bool, at date: Date?
  ) throws(StoreError) -> PurchaseResult {
    var options = options
    let ci = try index(of: customer)
    let product = try product(productID)
    if let date, date > state.now { throw .purchaseDateInFuture(date) }
    if cancel { return .userCancelled }
    if let error = state.settings.simulatedError(forAPI: .purchase) { return .failed(.simulated(error)) }
    if state.settings.failTransactionsEnabled { return .failed(.skError(state.settings.failureError)) }
    if !(1...10).contains(options.quantity) { return .failed(.invalidQuantity) }
    if let failure = checkIntroductoryOfferEligibility(&options, ci, productID: productID) { return .failed(failure) }
    if case .failure(let error) = resolveOffer(ci, product, options) { return .failed(error) }
    if let error = billingPlanFailure(ci, product, options) { return .failed(error) }
    if let failure = checkOfferSignature(options, productID: productID) { return .failed(failure) }
    if state.settings.askToBuyEnabled || state.settings.interruptedPurchasesEnabled {
      let kind: PendingRequest.Kind = state.settings.askToBuyEnabled ? .askToBuy : .interrupted
      // Rule ask-to-buy-requests-are-consolidated: asking again for a product whose request is
      // still pending returns that request (its waiting time starts again); one approval
      // completes one purchase.
      if kind == .askToBuy,
        let ri = state.pendingRequests.lastIndex(where: {
          $0.kind == .askToBuy && $0.customer == customer && $0.productID == productID
        })
      {
        state.pendingRequests[ri].date = state.now
        return .pending(requestID: state.pendingRequests[ri].id)
      }
      let id = String(state.nextRequestNumber)
      state.nextRequestNumber += 1
      state.pendingRequests.append(
        PendingRequest(
          id: id, kind: kind, customer: customer, productID: productID, options: options, date: state.now))
      emit(
        ci,
        kind == .askToBuy
          ? .askToBuyRequested(requestID: id, productID) : .purchaseInterrupted(requestID: id, productID))
      return .pending(requestID: id)
    }
    let transaction: Transaction
    if let date {
      let saved = state.now
      state.now = date
      transaction = completePurchase(ci, product, options, delivery: .purchaseResult)
      state.now = saved
      runDue(through: saved)
    } else {
      transaction = completePurchase(ci, product, options, delivery: .purchaseResult)
    }
    let verification = state.settings.simulatedError(forAPI: .verification)
    return .success(state.customers[ci].transaction(transaction.id) ?? transaction, verificationError: verification)
  }

  // MARK: Offers

  /// Which offer applies to a purchase, or the purchase error StoreKit throws (rule
  /// intro-offer-eligibility-is-per-group and the offer rules after it); a verified eligibility
  /// JWS's `allowIntroductoryOffer` replaces the customer's intro eligibility.
  func resolveOffer(
    _ ci: CustomerHandle, _ product: Product, _ options: PurchaseOptions
  ) -> Result<SubscriptionOffer?, PurchaseFailure> {
    let request = options.offer
    guard let info = product.subscription else {
      return request == nil ? .success(nil) : .failure(.invalidOfferIdentifier)
    }
    let customer = state.customers[ci]
    let sub = customer.subscription(info.groupID)
    let active = sub.map { !$0.isExpired && !$0.isRevoked } ?? false
    let introEligible =
      options.allowIntroductoryOffer ?? (!customer.introductoryOfferUsedGroups.contains(info.groupID) && !active)
    switch request {
    case nil:
      // Applied automatically when the customer is eligible (rule intro-offer-applies-automatically).
      if introEligible, let intro = info.introductoryOffer { return .success(intro) }
      return .success(nil)
    case .introductory?:
      guard let intro = info.introductoryOffer else { return .failure(.invalidOfferIdentifier) }
      return introEligible ? .success(intro) : .failure(.ineligibleForOffer)
    case .promotional(let id)?:
      guard let offer = info.promotionalOffers.first(where: { $0.id == id }) else {
        return .failure(.invalidOfferIdentifier)
      }
      // Only customers with a current or past subscription in the app (rule
      // promotional-offer-needs-a-past-subscription).
      let hasSubscribed = customer.transactions.contains {
        $0.productType == .autoRenewable && $0.ownershipType == .purchased
      }
      return hasSubscribed ? .success(offer) : .failure(.ineligibleForOffer)
    case .code(let reference)?:
      guard let offer = info.offerCodes.first(where: { ($0.id ?? "").lowercased() == reference.lowercased() }) else {
        return .failure(.invalidOfferIdentifier)
      }
      let status: OfferCodeEligibility = sub == nil ? .new : (active ? .existing : .expired)
      return offer.eligibility.isEmpty || offer.eligibility.contains(status)
        ? .success(offer) : .failure(.ineligibleForOffer)
    case .winBack(let id)?:
      let groupOffers = state.configuration.products(inGroup: info.groupID).flatMap {
        $0.subscription?.winBackOffers ?? []
      }
      guard let offer = info.winBackOffers.first(where: { $0.id == id }) ?? groupOffers.first(where: { $0.id == id })
      else {
        return .failure(.invalidOfferIdentifier)
      }
      // Churned only: expired and auto-renew off; never in grace or retry (rule
      // win-back-offers-only-for-churned-subscriptions).
      guard let sub, sub.isExpired, !sub.willAutoRenew, offer.isEligible else {
        return .failure(.ineligibleForOffer)
      }
      return .success(offer)
    }
  }

  // MARK: Completing a purchase

  /// Creates what a successful purchase creates, at `state.now`.
  mutating func completePurchase(
    _ ci: CustomerHandle, _ product: Product, _ options: PurchaseOptions, delivery: StoreEvent.Delivery
  ) -> Transaction {
    var offer: SubscriptionOffer?
    switch resolveOffer(ci, product, options) {
    case .success(let o): offer = o
    case .failure: offer = nil
    }
    // A commitment plan takes no offer (offers per billing plan are not simulated).
    if options.billingPlanType == .monthly { offer = nil }
    switch product.type {
    case .consumable, .nonRenewable:
      let t = record(
        ci, newTransaction(product, quantity: options.quantity, token: options.appAccountToken), delivery: delivery)
      notify(ci, .oneTimeCharge, nil, transaction: t)
      return t
    case .nonConsumable:
      if let owned = state.customers[ci].transactions.first(where: {
        $0.productID == product.id && !$0.isRevoked && $0.ownershipType == .purchased
      }) {
        return owned  // Rule buying-what-you-own-returns-the-existing-transaction: nothing new.
      }
      let t = record(ci, newTransaction(product, quantity: 1, token: options.appAccountToken), delivery: delivery)
      notify(ci, .oneTimeCharge, nil, transaction: t)
      shareWithFamily(ci, t)
      return t
    case .autoRenewable:
      return purchaseSubscription(ci, product, options, offer: offer, delivery: delivery)
    }
  }

  func newTransaction(_ product: Product, quantity: Int, token: UUID?, at date: Date? = nil) -> Transaction {
    let q = (product.type == .consumable || product.type == .nonRenewable) ? quantity : 1
    let front = storefront
    let date = date ?? state.now
    // Made in one piece: a local copy to change would be copied again into the transaction.
    let purchase = Transaction.Fields.Purchase(
      id: 0, originalID: 0, webOrderLineItemID: nil, productID: product.id, productType: product.type,
      subscriptionGroupID: product.subscription?.groupID, purchaseDate: date, originalPurchaseDate: date,
      purchasedQuantity: q, appAccountToken: token, ownershipType: .purchased, offer: nil, reason: .purchase,
      price: q == 1 ? product.price : product.price * Decimal(q), currency: front.currency,
      storefront: front.countryCode, storefrontID: front.id, sharedFrom: nil, sharedTransactionID: nil)
    return Transaction(fields: Transaction.Fields(purchase: purchase, status: Transaction.Fields.blank.status))
  }

  /// Gives a transaction its id, stores it and reports it.
  @discardableResult
  mutating func record(
    _ ci: CustomerHandle, _ transaction: consuming Transaction, delivery: StoreEvent.Delivery,
    originalID: TransactionID? = nil,
    originalPurchaseDate: Date? = nil
  ) -> Transaction {
    var t = transaction  // moved in, so setting the ids below does not copy the storage
    t.id = newTransactionID()
    t.originalID = originalID ?? t.id
    t.originalPurchaseDate = originalPurchaseDate ?? t.purchaseDate
    t.modificationOrder = nextModificationOrder()
    state.customers[ci].transactions.append(t)
    transactionIndex[ci].appended(t, at: state.customers[ci].transactions.count - 1)
    transactionOwners[t.id] = ci
    emit(ci, .transactionCreated(t.id, t.productID, delivery: delivery))
    return t
  }

  /// Sets the period, price and offer of a subscription transaction starting at its purchase
  /// date, keeping the anniversary of `anchor` (rule renewals-keep-the-anniversary); returns
  /// the anchor the subscription keeps from now on.
  @discardableResult
  func applyPeriod(_ t: inout Transaction, product: Product, offer: SubscriptionOffer?, anchor: Date? = nil) -> Date {
    let rate = state.settings.timeRate
    guard let offer else {
      let (end, kept) = TimeRules.anniversaryEnd(
        of: product.subscription!.period, from: t.purchaseDate, anchor: anchor, rate: rate)
      t.expirationDate = end
      t.price = product.price
      t.offer = nil
      return kept
    }
    let span: (end: Date, anchor: Date)
    switch offer.paymentMode {
    case .freeTrial, .oneTime:
      span = TimeRules.anniversaryEnd(
        of: offer.period, count: offer.periodCount, from: t.purchaseDate, anchor: anchor, rate: rate)
      t.price = 0
    case .payUpFront:
      span = TimeRules.anniversaryEnd(
        of: offer.period, count: offer.periodCount, from: t.purchaseDate, anchor: anchor, rate: rate)
      t.price = offer.price
    case .payAsYouGo:
      span = TimeRules.anniversaryEnd(of: offer.period, from: t.purchaseDate, anchor: anchor, rate: rate)
      t.price = offer.price
    }
    t.expirationDate = span.end
    t.offer = TransactionOffer(offer)
    return span.anchor
  }

  mutating func purchaseSubscription(
    _ ci: CustomerHandle, _ product: Product, _ options: PurchaseOptions, offer: SubscriptionOffer?,
    delivery: StoreEvent.Delivery
  ) -> Transaction {
    let info = product.subscription!
    let group = info.groupID
    let subIndex = subscriptionIndex(ci, group: group)
    if let si = subIndex, !self[ci, si].isExpired,
      !self[ci, si].isRevoked
    {
      return changePlan(ci, si, product, options, offer: offer, delivery: delivery)
    }
    // New subscriber or resubscribing after expiry (rule resubscribing-keeps-the-original-id).
    let previous = subIndex.map { self[ci, $0] }
    var t = newTransaction(product, quantity: 1, token: options.appAccountToken)
    t.webOrderLineItemID = newWebOrderLineItemID()
    var anchor = applyPeriod(&t, product: product, offer: offer)
    var commitment: SubscriptionCommitment?
    if options.billingPlanType == .monthly, let plan = product.monthlyBillingPlan {
      commitment = startCommitment(&t, product: product, plan: plan, anchor: &anchor)
    }
    let originalDate = previous.flatMap { state.customers[ci].transaction($0.originalID)?.purchaseDate }
    t = record(ci, consume t, delivery: delivery, originalID: previous?.originalID, originalPurchaseDate: originalDate)
    if offer?.type == .introductory { state.customers[ci].introductoryOfferUsedGroups.insert(group) }
    var recentStart = state.now
    if let previous, state.now.timeIntervalSince(previous.expirationDate) < 60 * 86_400 {
      recentStart = previous.recentSubscriptionStartDate
    }
    let sub = SubscriptionState(
      groupID: group, originalID: t.originalID, currentProductID: product.id, autoRenewProductID: product.id,
      willAutoRenew: true, expirationDate: t.expirationDate!, latestTransactionID: t.id, billing: .healthy,
      expirationReason: nil, isExpired: false, isRevoked: false, priceIncreaseStatus: .noIncreasePending,
      pendingOffer: nil, runningOffer: offer?.paymentMode == .payAsYouGo && offer!.periodCount > 1 ? offer : nil,
      runningOfferPeriodsLeft: offer?.paymentMode == .payAsYouGo ? max(offer!.periodCount - 1, 0) : 0,
      recentSubscriptionStartDate: recentStart, renewalCount: 0, appAccountToken: options.appAccountToken,
      anniversaryDate: anchor, commitment: commitment)
    if let si = subIndex {
      self[ci, si] = sub
    } else {
      state.customers[ci].subscriptions.append(sub)
    }
    scheduleDeadline(ci, subIndex ?? state.customers[ci].subscriptions.count - 1)
    notify(ci, .subscribed, previous == nil ? .initialBuy : .resubscribe, transaction: t, group: group)
    shareWithFamily(ci, t)
    return t
  }

  // MARK: Ask to Buy and interrupted purchases

  /// Approves an Ask to Buy request (the newest when nil): the transaction is delivered through
  /// `Transaction.updates` (rule ask-to-buy-is-pending-until-approved).
  @discardableResult
  public mutating func approveAskToBuyTransaction(
    identifier: String? = nil
  ) throws(StoreError) -> Outcome<Transaction> {
    try atomically { (store: inout Store) throws(StoreError) -> Transaction in
      let request = try store.findRequest(identifier, kind: .askToBuy)
      let ci = try store.index(of: request.customer)
      let product = try store.product(request.productID)
      store.state.pendingRequests.removeAll { $0.id == request.id }
      return store.completePurchase(ci, product, request.options, delivery: .updates)
    }
  }

  /// Declines an Ask to Buy request (the newest when nil): nothing is ever delivered.
  @discardableResult
  public mutating func declineAskToBuyTransaction(identifier: String? = nil) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let request = try store.findRequest(identifier, kind: .askToBuy)
      store.state.pendingRequests.removeAll { $0.id == request.id }
      store.emit(
        try? store.index(of: request.customer), .askToBuyDeclined(requestID: request.id, request.productID))
    }
  }

  func findRequest(_ id: String?, kind: PendingRequest.Kind) throws(StoreError) -> PendingRequest {
    let request =
      id.map { id in state.pendingRequests.first { $0.id == id && $0.kind == kind } }
      ?? state.pendingRequests.last { $0.kind == kind }
    guard let request else { throw .noPendingRequest(id) }
    return request
  }

  /// Resolves an interrupted purchase of the product, or the billing issue of its subscription,
  /// as `resolveIssueForTransaction(identifier:)`; the new transaction arrives on `updates`.
  @discardableResult
  public mutating func resolveIssue(
    productID: ProductID, customer: CustomerID = .default
  ) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let ci = try store.index(of: customer)
      let product = try store.product(productID)
      if let ri = store.state.pendingRequests.lastIndex(where: {
        $0.kind == .interrupted && $0.customer == customer && $0.productID == productID
      }) {
        let request = store.state.pendingRequests.remove(at: ri)
        _ = store.completePurchase(ci, product, request.options, delivery: .updates)
        return
      }
      guard let group = product.subscription?.groupID,
        let si = store.subscriptionIndex(ci, group: group),
        store[ci, si].isInBillingRetry
      else { throw .noIssueToResolve(productID) }
      store.recover(ci, si)
      store.runDue(through: store.state.now)
    }
  }
}
