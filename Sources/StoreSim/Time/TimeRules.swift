import Foundation

/// How long periods, grace and billing retry last under a time rate (rule time-rates-are-xcodes-rates).
package enum TimeRules {
  /// The end of `count` periods starting at `start` under `rate`.
  ///
  /// Real time uses the UTC calendar. The "monthly renewal every …" rates use Apple's table
  /// (weekly is a table value, not a ratio, rule time-rates-are-xcodes-rates); day-based offer
  /// periods scale by days (a day is a thirtieth of the monthly interval) [inf, rule
  /// time-rate-change-applies-to-future-periods]. Fixed rates make every period one
  /// interval [doc], and an offer of N periods N intervals [inf]. Legacy "X is one day" rates
  /// scale the real length by days.
  package static func end(of period: SubscriptionPeriod, count: Int = 1, from start: Date, rate: TimeRate) -> Date {
    let n = max(count, 1)
    if let fixed = rate.fixedIntervalSeconds {
      return start.addingTimeInterval(Double(fixed * Int64(n)))
    }
    if let table = rate.monthlyAndWeeklySeconds {
      let seconds: Int64
      switch period.unit {
      case .month: seconds = table.month * Int64(period.value)
      case .year: seconds = table.month * 12 * Int64(period.value)
      case .week: seconds = table.week * Int64(period.value)
      case .day: seconds = 0
      }
      if period.unit == .day {
        return start.addingTimeInterval(Double(table.month) / 30 * Double(period.value * n))
      }
      return start.addingTimeInterval(Double(seconds * Int64(n)))
    }
    let real = realEnd(of: period.times(n), from: start)
    if let perDay = rate.secondsPerDay {
      let days = real.timeIntervalSince(start) / 86_400
      return start.addingTimeInterval(days * Double(perDay))
    }
    return real
  }

  /// The end of `count` periods starting at `start` that keeps the anniversary of `anchor`
  /// (rule renewals-keep-the-anniversary): when `start` is `anchor` plus a whole number k of
  /// months (clamped, as a renewal date is), the end is `anchor` plus k + count × period
  /// months, clamped again, so Jan 31 → Feb 28 → Mar 31 → Apr 30 and Feb 29 → Feb 28 → Feb 29.
  ///
  /// Returns the end and the anchor to keep: a start off the anchor's chain (a plan change to
  /// another length, a recovery after grace, a forced renewal), a period that is not whole
  /// months, or a time rate other than real time starts a new anchor at `start`.
  package static func anniversaryEnd(
    of period: SubscriptionPeriod, count: Int = 1, from start: Date, anchor: Date?, rate: TimeRate
  ) -> (end: Date, anchor: Date) {
    let n = max(count, 1)
    guard rate == .realTime, let months = period.months else {
      return (end(of: period, count: n, from: start, rate: rate), start)
    }
    if let anchor, anchor <= start, let end = UTCCalendar.anniversary(of: anchor, from: start, addingMonths: months * n)
    {
      return (end, anchor)
    }
    return (UTCCalendar.adding(months: months * n, to: start), start)
  }

  static func realEnd(of period: SubscriptionPeriod, from start: Date) -> Date {
    switch period.unit {
    case .day: return start.addingTimeInterval(Double(period.value) * 86_400)
    case .week: return start.addingTimeInterval(Double(period.value) * 7 * 86_400)
    case .month: return UTCCalendar.adding(months: period.value, to: start)
    case .year: return UTCCalendar.adding(months: period.value * 12, to: start)
    }
  }

  /// Grace period length for a subscription with this renewal period (rule
  /// grace-and-retry-lengths-follow-the-time-rate).
  package static func gracePeriod(for period: SubscriptionPeriod, rate: TimeRate) -> TimeInterval {
    let weekly = period.unit == .week || period.unit == .day
    if let fixed = rate.fixedIntervalSeconds { return Double(fixed) }
    if let table = rate.monthlyAndWeeklySeconds {
      return weekly ? (Double(table.week) * 6 / 7).rounded() : Double(table.month) / 2
    }
    let days: Double = weekly ? 6 : 16
    if let perDay = rate.secondsPerDay { return days * Double(perDay) }
    return days * 86_400
  }

  /// Billing retry window length (rule grace-and-retry-lengths-follow-the-time-rate).
  package static func billingRetryPeriod(for period: SubscriptionPeriod, rate: TimeRate) -> TimeInterval {
    if let fixed = rate.fixedIntervalSeconds { return Double(fixed * 2) }
    if let table = rate.monthlyAndWeeklySeconds { return Double(table.month * 2) }
    if let perDay = rate.secondsPerDay { return 60 * Double(perDay) }
    return 60 * 86_400
  }
}
