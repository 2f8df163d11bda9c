import Foundation

/// The offer a renewal info says applies at the next renewal (`offerType`, `offerIdentifier`,
/// `offerDiscountType`, `offerPeriod`), rebuilt as the subscription's pending or running offer,
/// so that the next renewal after the import carries it as Apple's would (docs/import.md).
///
/// Apple fills these fields when the next period is under an offer: one redeemed for the next
/// renewal (a promotional offer or an offer code redeemed by an active subscriber, an offer
/// with a plan change), or one that runs over several periods and has some left. `offerPeriod`
/// is the whole offer's length (`P3M` for three one-month periods).
struct ImportedOffer {
  /// The offer, whole (its period, count and price).
  let offer: SubscriptionOffer
  /// Periods of it left after the current one, when it is already running; nil when it starts
  /// at the next renewal.
  let periodsLeft: Int?

  /// The offer of `info`, if any: the configuration's offer of that type and id for the product
  /// that renews when it has one of the same length, otherwise one made from the fields (a pay as
  /// you go offer whose length is a whole number of the product's periods runs that many of
  /// them, at `renewalPrice` each). `chain` is the subscription's transactions, newest first:
  /// the trailing ones under the same offer tell a running offer (pay as you go, periods left)
  /// from a new one.
  init?(_ info: RenewalInfo, chain: [Transaction.Fields], configuration: StoreConfiguration) {
    guard let wire = info.offer else { return nil }
    let productID = info.autoRenewProductID.isEmpty ? info.currentProductID : info.autoRenewProductID
    let subscription = configuration.product(productID)?.subscription
    let known = subscription.flatMap { Self.configured(wire, in: $0) }
    var offer: SubscriptionOffer
    if let known, wire.period.value == 0 || TransactionOffer(known).period == wire.period {
      offer = known
    } else {
      var period = wire.period
      var count = 1
      if wire.paymentMode == .payAsYouGo, let unit = subscription?.period, unit.unit == period.unit,
        unit.value > 0, period.value % unit.value == 0
      {
        count = period.value / unit.value
        period = unit
      }
      if period.value == 0, let unit = subscription?.period { period = unit }
      offer = SubscriptionOffer(
        type: wire.type, id: wire.id, paymentMode: wire.paymentMode, period: period, periodCount: count,
        price: wire.paymentMode == .freeTrial ? 0 : info.renewalPrice)
    }
    // The current run under this offer: the newest transactions that carry it.
    let running = chain.prefix { t in
      guard let o = t.purchase.offer else { return false }
      return o.type == offer.type && o.id == offer.id && o.paymentMode == offer.paymentMode
    }.count
    if offer.paymentMode == .payAsYouGo, running > 0, running < offer.periodCount {
      periodsLeft = offer.periodCount - running
    } else {
      periodsLeft = nil
    }
    self.offer = offer
  }

  /// The configured offer of that type and id.
  private static func configured(_ wire: TransactionOffer, in s: SubscriptionInfo) -> SubscriptionOffer? {
    switch wire.type {
    case .introductory: s.introductoryOffer
    case .promotional: s.promotionalOffers.first { $0.id == wire.id }
    case .code: s.offerCodes.first { $0.id == wire.id }
    case .winBack: s.winBackOffers.first { $0.id == wire.id }
    }
  }
}
