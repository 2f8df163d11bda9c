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

  /// `[type, subtype, sequence, signedDate, customer, transaction, renewalInfo, status(, reason(, massExtension(, original)))]`.
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
      if r.more() { n.massExtensionRequestIdentifier = try r.optString() }
      if r.more() { n.original = try r.original() }
      return n
    }
  }

  /// `[notificationUUID, header, payload, signature, isCompact]`, as `Writer.original` writes it.
  mutating func original() throws(StateCodec.DecodingError) -> OriginalNotification {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      OriginalNotification(
        notificationUUID: try r.optString(), header: try r.string(), payload: try r.string(),
        signature: try r.string(), isCompact: try r.bool())
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
    SubscriptionState(fields: try record(SubscriptionState.Fields.self))
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
    try null() ? nil : try record(RenewalInfo.self)
  }
}
