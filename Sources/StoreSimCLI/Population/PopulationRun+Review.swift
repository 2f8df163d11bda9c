import Foundation
import StoreSim

extension PopulationRun {
  /// An hour into a subscription's period: what happens to it before the period ends.
  ///
  /// - in billing retry or grace: whether (and when) the customer resolves it; most who do,
  ///   do so within ten days of the failure (docs/populations.md);
  /// - in an introductory offer: whether the customer cancels before it ends;
  /// - otherwise: a cancellation (or, for some, a promotional offer instead), a failing next
  ///   renewal, or a change of level; then the next period's review.
  mutating func review(_ i: Int, group: SubscriptionGroupID, now: Int64, store: Store) {
    let customer = Self.name(lives[i].number)
    guard let sub = store.customer(customer)?.subscription(group), !sub.isExpired, !sub.isRevoked else { return }
    let expiration = sub.expirationDate.epochMilliseconds
    if sub.isInBillingRetry {
      guard !lives[i].failureDecided else { return }
      lives[i].failureDecided = true
      guard lives[i].dice.chance(plan.rates.recovery) else { return }
      let days = lives[i].dice.chance(90) ? 1 + lives[i].dice.below(10) : 11 + lives[i].dice.below(44)
      schedule(i, at: expiration + Int64(days) * Self.day, .resolve(group: group))
      return
    }
    lives[i].failureDecided = false
    decideRefund(i, sub.latestTransactionID, now: now)
    let current = sub.currentProductID
    let periodStart = now - Self.hour
    let periodDays = max(1, Int((expiration - periodStart) / Self.day))
    let months = max(1, (periodDays + 15) / 30)
    var dice = lives[i].dice
    defer { lives[i].dice = dice }
    func someDay() -> Int64 { periodStart + Int64(1 + dice.below(max(1, periodDays - 2))) * Self.day }
    let inIntroductoryOffer =
      store.customer(customer)?.transaction(sub.latestTransactionID)?.offer?.type == .introductory
    let leaves =
      inIntroductoryOffer
      ? dice.chance(plan.rates.introCancel) : dice.chance(Self.compounded(plan.rates.churn, months: months))
    let info = store.configuration.product(current)?.subscription
    if leaves {
      if !inIntroductoryOffer, let offer = info?.promotionalOffers.first?.id, dice.chance(plan.rates.promotional) {
        let day = someDay()
        schedule(i, at: day, .takePromotionalOffer(product: current, offer: offer))
      } else {
        let day = someDay()
        schedule(i, at: day, .cancel(group: group))
      }
    } else if !inIntroductoryOffer, dice.chance(plan.rates.billingFailure) {
      schedule(i, at: expiration - 1, .failRenewal(group: group, expiration: expiration))
    }
    if !inIntroductoryOffer, dice.chance(Self.compounded(plan.rates.planChange, months: months)),
      case let others = store.configuration.products(inGroup: group).map(\.id).filter({ $0 != current }),
      !others.isEmpty
    {
      let target = others[dice.below(others.count)]
      let day = someDay()
      schedule(i, at: day, .changePlan(to: target))
    }
    lives[i].dice = dice
    scheduleReview(i, group: group, at: expiration + Self.hour)
  }

  /// The chance, in percent, that something with a monthly chance of `percent` happens at least
  /// once in `months` months, rounded to thousandths of a percent.
  static func compounded(_ percent: Double, months: Int) -> Double {
    guard months > 1 else { return percent }
    var stay = 1.0
    for _ in 0..<months { stay *= 1 - percent / 100 }
    return ((1 - stay) * 100_000).rounded() / 1000
  }
}
