/// The speed of subscription time, as `SKTestSession.TimeRate` (rule time-rates-are-xcodes-rates).
///
/// Raw values are the `SKTestTimeRate` numbers that `.storekit` files store in `_timeRate`.
/// storesim's clock is virtual, so a rate changes only how long periods, grace and billing retry
/// last, exactly as under Xcode: a monthly plan at `monthlyRenewalEveryThirtySeconds` renews
/// every 30 seconds of virtual time.
public enum TimeRate: Int, Sendable, Hashable, Codable, CaseIterable {
  /// Real calendar periods.
  case realTime = 0
  /// Legacy: one hour is one day.
  case oneHourIsOneDay = 1
  /// Legacy: thirty minutes is one day.
  case thirtyMinutesIsOneDay = 2
  /// Legacy: five minutes is one day.
  case fiveMinutesIsOneDay = 3
  /// Legacy: one minute is one day.
  case oneMinuteIsOneDay = 4
  /// Legacy: thirty seconds is one day.
  case thirtySecondsIsOneDay = 5
  /// Legacy: one second is one day.
  case oneSecondIsOneDay = 6
  /// A monthly plan renews every hour.
  case monthlyRenewalEveryHour = 10
  /// A monthly plan renews every 30 minutes.
  case monthlyRenewalEveryThirtyMinutes = 11
  /// A monthly plan renews every 15 minutes.
  case monthlyRenewalEveryFifteenMinutes = 12
  /// A monthly plan renews every 5 minutes.
  case monthlyRenewalEveryFiveMinutes = 13
  /// A monthly plan renews every 30 seconds.
  case monthlyRenewalEveryThirtySeconds = 15
  /// Every plan renews every 15 minutes.
  case oneRenewalEveryFifteenMinutes = 1000
  /// Every plan renews every 5 minutes.
  case oneRenewalEveryFiveMinutes = 1001
  /// Every plan renews every minute.
  case oneRenewalEveryMinute = 1002
  /// Every plan renews every 30 seconds.
  case oneRenewalEveryThirtySeconds = 1003
  /// Every plan renews every 10 seconds.
  case oneRenewalEveryTenSeconds = 1004
  /// Every plan renews every 2 seconds.
  case oneRenewalEveryTwoSeconds = 1005

  /// The case name, as Apple spells it.
  public var name: String { String(describing: self) }

  /// Seconds of virtual time that one real day stands for under the legacy "X is one day" rates.
  var secondsPerDay: Int64? {
    switch self {
    case .oneHourIsOneDay: return 3600
    case .thirtyMinutesIsOneDay: return 1800
    case .fiveMinutesIsOneDay: return 300
    case .oneMinuteIsOneDay: return 60
    case .thirtySecondsIsOneDay: return 30
    case .oneSecondIsOneDay: return 1
    default: return nil
    }
  }

  /// Seconds a monthly plan lasts under the "monthly renewal every …" rates, and the weekly
  /// interval from Apple's table (rule time-rates-are-xcodes-rates: weekly is a table value, not a
  /// ratio).
  var monthlyAndWeeklySeconds: (month: Int64, week: Int64)? {
    switch self {
    case .monthlyRenewalEveryHour: return (3600, 15 * 60)
    case .monthlyRenewalEveryThirtyMinutes: return (1800, 10 * 60)
    case .monthlyRenewalEveryFifteenMinutes: return (900, 5 * 60)
    case .monthlyRenewalEveryFiveMinutes: return (300, 3 * 60)
    case .monthlyRenewalEveryThirtySeconds: return (30, 10)
    default: return nil
    }
  }

  /// The fixed interval of the "one renewal every …" rates.
  var fixedIntervalSeconds: Int64? {
    switch self {
    case .oneRenewalEveryFifteenMinutes: return 900
    case .oneRenewalEveryFiveMinutes: return 300
    case .oneRenewalEveryMinute: return 60
    case .oneRenewalEveryThirtySeconds: return 30
    case .oneRenewalEveryTenSeconds: return 10
    case .oneRenewalEveryTwoSeconds: return 2
    default: return nil
    }
  }
}
