import Foundation
import StoreSim

extension StateCodec.Reader {
  // MARK: Rows, in the order `Writer` writes them

  /// `[name, appTransactionID, familyID, [groups], [transaction…], [subscription…]]`.
  mutating func customer() throws(StateCodec.DecodingError) {
    let customer = try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let id = CustomerID(try r.string())
      let app = try r.string()
      let family = try r.optString()
      let groups = try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.string() }
      let transactions = try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
        try r.transaction()
      }
      let subscriptions = try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
        try r.subscription()
      }
      return Customer(
        id: id, transactions: transactions, subscriptions: subscriptions,
        introductoryOfferUsedGroups: Set(groups), familyID: family, appTransactionID: app)
    }
    let c = Int32(customers.count)
    if !skippingNotifications {
      for (n, t) in customer.transactions.enumerated() { byID[t.id] = (c, Int32(n)) }
    }
    customers.append(customer)
  }

  /// `[type, subtype, sequence, signedDate, customer, transaction, renewalInfo, status(, reason)]`.
  mutating func notification() throws(StateCodec.DecodingError) -> ServerNotification {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let type = try r.raw(NotificationTypeV2.self)
      let subtype = try r.optRaw(Subtype.self)
      let sequence = try r.smallInt()
      let signed = try r.date()
      let customer = CustomerID(try r.string())
      let transaction = try r.null() ? nil : try r.notificationTransaction()
      let info = try r.renewalInfo()
      let status = try r.optRaw(RenewalState.self)
      // Optional trailing field (older files end before it).
      let reason = r.more() ? try r.optRaw(ConsumptionRequestReason.self) : nil
      var n = ServerNotification(
        notificationType: type, subtype: subtype, sequence: sequence, signedDate: signed, customer: customer,
        transaction: transaction, renewalInfo: info, status: status, consumptionRequestReason: reason)
      if r.more() { n.massExtensionRequestIdentifier = try r.string() }
      return n
    }
  }

  mutating func transactionOffer() throws(StateCodec.DecodingError) -> TransactionOffer? {
    if try null() { return nil }
    return try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let type = try r.rawInt(OfferType.self)
      let id = try r.optString()
      let mode = try r.raw(PaymentMode.self)
      let period = try r.period()
      return TransactionOffer(type: type, id: id, paymentMode: mode, period: period)
    }
  }

  mutating func offer() throws(StateCodec.DecodingError) -> SubscriptionOffer? {
    if try null() { return nil }
    return try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let type = try r.rawInt(OfferType.self)
      let id = try r.optString()
      let mode = try r.raw(PaymentMode.self)
      let period = try r.period()
      let count = try r.smallInt()
      let price = try r.decimal()
      let eligibility = try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
        try r.raw(OfferCodeEligibility.self)
      }
      let eligible = try r.bool()
      return SubscriptionOffer(
        type: type, id: id, paymentMode: mode, period: period, periodCount: count, price: price,
        eligibility: eligibility, isEligible: eligible)
    }
  }

  mutating func subscription() throws(StateCodec.DecodingError) -> SubscriptionState {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let group = try r.string()
      let original = try r.uint()
      let current = try r.string()
      let autoRenew = try r.string()
      let will = try r.bool()
      let expiration = try r.date()
      let latest = try r.uint()
      let billing = try r.billing()
      let reason = try r.optRawInt(ExpirationReason.self)
      let expired = try r.bool()
      let revoked = try r.bool()
      let price = try r.raw(PriceIncreaseStatus.self)
      let pending = try r.offer()
      let running = try r.offer()
      let left = try r.smallInt()
      let recent = try r.date()
      let renewals = try r.smallInt()
      let token = try r.uuid()
      // Optional trailing fields (older files end before them).
      var anniversary: Date?
      var increased: Decimal?
      var commitment: SubscriptionCommitment?
      if r.more() {
        anniversary = try r.optDate()
        increased = try r.optDecimal()
      }
      if r.more() {
        commitment = try r.row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
          SubscriptionCommitment(
            billingPeriodNumber: try r.smallInt(), expirationDate: try r.date(), willAutoRenew: try r.bool(),
            autoRenewProductID: try r.string(), monthlyPrice: try r.decimal(), price: try r.decimal())
        }
      }
      return SubscriptionState(
        groupID: group, originalID: original, currentProductID: current, autoRenewProductID: autoRenew,
        willAutoRenew: will, expirationDate: expiration, latestTransactionID: latest, billing: billing,
        expirationReason: reason, isExpired: expired, isRevoked: revoked, priceIncreaseStatus: price,
        pendingOffer: pending, runningOffer: running, runningOfferPeriodsLeft: left,
        recentSubscriptionStartDate: recent, renewalCount: renewals, appAccountToken: token,
        anniversaryDate: anniversary, increasedPrice: increased, commitment: commitment)
    }
  }

  /// `[kind, graceDate, retryDate]`, as `Writer.billing` writes it.
  mutating func billing() throws(StateCodec.DecodingError) -> BillingState {
    let (kind, grace, retry) = try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let kind = try r.smallInt()
      let grace = try r.optDate()
      let retry = try r.optDate()
      return (kind, grace, retry)
    }
    switch (kind, grace, retry) {
    case (0, nil, nil): return .healthy
    case (1, let g?, let r?): return .gracePeriod(gracePeriodExpirationDate: g, retryEndDate: r)
    case (2, nil, let r?): return .billingRetry(retryEndDate: r)
    default: throw fail("bad billing state")
    }
  }

  mutating func renewalInfo() throws(StateCodec.DecodingError) -> RenewalInfo? {
    if try null() { return nil }
    return try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      let original = try r.uint()
      let current = try r.string()
      let autoRenew = try r.string()
      let will = try r.bool()
      let reason = try r.optRawInt(ExpirationReason.self)
      let retry = try r.bool()
      let grace = try r.optDate()
      let price = try r.raw(PriceIncreaseStatus.self)
      let offer = try r.transactionOffer()
      let renewal = try r.date()
      let recent = try r.date()
      let renewalPrice = try r.decimal()
      let currency = try r.string()
      let winBack = try r.list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.string() }
      let token = try r.uuid()
      let signed = try r.date()
      // Optional trailing field (older files end before it).
      let commitment =
        r.more()
        ? try r.row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
          RenewalCommitment(
            autoRenewProductID: try r.string(), willAutoRenew: try r.bool(),
            renewalBillingPlanType: try r.raw(BillingPlanType.self), renewalDate: try r.date(),
            renewalPrice: try r.decimal())
        } : nil
      return RenewalInfo(
        originalTransactionID: original, currentProductID: current, autoRenewProductID: autoRenew,
        willAutoRenew: will, expirationReason: reason, isInBillingRetry: retry, gracePeriodExpirationDate: grace,
        priceIncreaseStatus: price, offer: offer, renewalDate: renewal, recentSubscriptionStartDate: recent,
        renewalPrice: renewalPrice, currency: currency, eligibleWinBackOfferIDs: winBack, appAccountToken: token,
        signedDate: signed, commitment: commitment)
    }
  }
}
