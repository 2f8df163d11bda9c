import Foundation
import StoreSimCrypto

/// Calendar arithmetic in UTC, independent of the machine's calendar and time zone.
package enum UTCCalendar {
  /// Adds months to a date, clamping the day to the end of the target month (Jan 31 + 1 month =
  /// Feb 28 or 29), keeping the time of day.
  package static func adding(months: Int, to date: Date) -> Date {
    let totalMs = date.epochMilliseconds
    let dayMs: Int64 = 86_400_000
    var days = totalMs / dayMs
    var msOfDay = totalMs % dayMs
    if msOfDay < 0 {
      msOfDay += dayMs
      days -= 1
    }
    var (y, m, d) = civil(fromDays: days)
    let monthIndex = (y * 12 + (m - 1)) + Int64(months)
    y = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
    m = monthIndex - y * 12 + 1
    d = min(d, daysInMonth(year: y, month: m))
    let newDays = daysFromCivil(year: y, month: m, day: d)
    return Date(epochMilliseconds: newDays * dayMs + msOfDay)
  }

  /// When `start` is `anchor` plus a whole number k of months (the day clamped to the month's
  /// end, the time of day kept), the date `anchor` plus k + `months` months, clamped the same
  /// way; nil when `start` is not on the anchor's monthly chain. One pass over both civil dates
  /// (this runs on every renewal).
  package static func anniversary(of anchor: Date, from start: Date, addingMonths months: Int) -> Date? {
    let dayMs: Int64 = 86_400_000
    func split(_ date: Date) -> (days: Int64, ms: Int64) {
      let total = date.epochMilliseconds
      var days = total / dayMs
      var ms = total % dayMs
      if ms < 0 {
        ms += dayMs
        days -= 1
      }
      return (days, ms)
    }
    let a = split(anchor), s = split(start)
    guard a.ms == s.ms else { return nil }
    let (_, _, ad) = civil(fromDays: a.days)
    let (sy, sm, sd) = civil(fromDays: s.days)
    guard sd == min(ad, daysInMonth(year: sy, month: sm)) else { return nil }
    let index = sy * 12 + (sm - 1) + Int64(months)
    let y = index >= 0 ? index / 12 : (index - 11) / 12
    let m = index - y * 12 + 1
    let d = min(ad, daysInMonth(year: y, month: m))
    return Date(epochMilliseconds: daysFromCivil(year: y, month: m, day: d) * dayMs + a.ms)
  }

  static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

  /// Days in a month of a year (Gregorian).
  package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2: return isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 of a civil date (StoreSimCrypto's `CivilDays`, which X.509's times use too).
  package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    CivilDays.days(year: year, month: month, day: day)
  }

  /// The civil date (year, month, day) of a day since 1970-01-01.
  static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) { CivilDays.date(fromDays: days) }
}
