import Foundation

/// ISO 8601 formatting in UTC, whole seconds (milliseconds when present).
package enum ISO8601 {
  /// `2026-01-31T10:00:00Z`.
  package static func string(_ date: Date) -> String {
    let ms = date.epochMilliseconds
    var days = ms / 86_400_000
    var rest = ms % 86_400_000
    if rest < 0 { rest += 86_400_000; days -= 1 }
    let (y, m, d) = UTCCalendar.civil(fromDays: days)
    let h = rest / 3_600_000, mi = rest / 60_000 % 60, s = rest / 1000 % 60, milli = rest % 1000
    var text = String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", y, m, d, h, mi, s)
    if milli != 0 { text += String(format: ".%03lld", milli) }
    return text + "Z"
  }
}
