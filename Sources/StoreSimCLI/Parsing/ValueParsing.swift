import Foundation
import StoreSim

/// A span of time the user typed: seconds, or calendar months (`1mo`, `1y`, `P1M`).
struct TypedDuration: Equatable {
  var seconds: TimeInterval = 0
  var months: Int = 0

  /// The date this long after `date` (calendar months first, then seconds).
  func after(_ date: Date) -> Date {
    UTCCalendar.adding(months: months, to: date).addingTimeInterval(seconds)
  }
}

enum ValueParsing {
  /// The largest number one duration component may hold (a million of its unit).
  static let maximumComponent = 1_000_000.0

  /// Parses `30s`, `15min`, `2h`, `3d`, `1w`, `1mo`, `1y` (and combinations like `1d12h`,
  /// decimals like `1.5d`) or ISO 8601 (`P1M`, `PT2H`, `P1DT2H`, `PT0.5S`). A bare `m` is
  /// refused as ambiguous; a unit given twice, a fraction of a month or year (they have no
  /// fixed length) and a number over a million are refused, never truncated.
  static func duration(_ text: String) throws -> TypedDuration {
    let t = text.trimmingCharacters(in: .whitespaces)
    if t.uppercased().hasPrefix("P") { return try iso8601Duration(t) }
    var result = TypedDuration()
    var rest = Substring(t.lowercased())
    guard !rest.isEmpty else { throw CLIError.usage("empty duration") }
    if rest.hasPrefix("-") {
      throw CLIError.usage("duration '\(text)' is negative; the clock only moves forward")
    }
    var seen: Set<String> = []
    while !rest.isEmpty {
      let digits = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
      guard !digits.isEmpty, let n = Double(digits), n.isFinite else {
        throw CLIError.usage(
          "invalid duration '\(text)'; use a number and a unit: 30s 15min 2h 3d 1w 1mo 1y, or ISO 8601 like P1M")
      }
      guard n <= maximumComponent else {
        throw CLIError.usage("duration '\(text)' is too long: at most 1000000 of a unit")
      }
      rest = rest.dropFirst(digits.count)
      let unit = rest.prefix { $0.isLetter }
      rest = rest.dropFirst(unit.count)
      let seconds: Double
      switch unit {
      case "s", "sec", "secs", "second", "seconds": seconds = 1
      case "min", "mins", "minute", "minutes": seconds = 60
      case "h", "hr", "hrs", "hour", "hours": seconds = 3600
      case "d", "day", "days": seconds = 86_400
      case "w", "wk", "week", "weeks": seconds = 7 * 86_400
      case "mo", "mon", "month", "months", "y", "yr", "yrs", "year", "years": seconds = 0
      case "m":
        throw CLIError.usage(
          "duration '\(text)' is ambiguous: write '\(digits)min' for minutes or '\(digits)mo' for months")
      case "":
        let which = digits.count == t.count ? "" : " after \(digits)"
        throw CLIError.usage("duration '\(text)' has no unit\(which); use s, min, h, d, w, mo or y")
      default:
        throw CLIError.usage("unknown duration unit '\(unit)' in '\(text)'; use s, min, h, d, w, mo or y")
      }
      let canonical =
        seconds == 0 ? (unit.hasPrefix("m") ? "mo" : "y") : String(unit.prefix(1) == "m" ? "min" : unit.prefix(1))
      guard seen.insert(canonical).inserted else {
        throw CLIError.usage("duration '\(text)' gives the unit '\(canonical)' twice")
      }
      if seconds == 0 {
        guard n == n.rounded(.towardZero) else {
          throw CLIError.usage(
            "duration '\(text)': months and years have no fixed length, so they take whole numbers (write days instead)"
          )
        }
        result.months += Int(n) * (canonical == "y" ? 12 : 1)
      } else {
        result.seconds += n * seconds
      }
    }
    return result
  }

  static func iso8601Duration(_ text: String) throws -> TypedDuration {
    var result = TypedDuration()
    var inTime = false
    var number = ""
    var sawAny = false
    let invalid = CLIError.usage("invalid ISO 8601 duration '\(text)'; for example P1M, P1DT12H or PT30S")
    for ch in text.uppercased().dropFirst() {
      if ch == "T" {
        guard !inTime, number.isEmpty else { throw invalid }
        inTime = true
        continue
      }
      if ch.isASCII && (ch.isNumber || ch == "." || ch == ",") {
        number.append(ch == "," ? "." : ch)
        continue
      }
      guard let value = Double(number), value.isFinite else { throw invalid }
      guard value <= maximumComponent else {
        throw CLIError.usage("duration '\(text)' is too long: at most 1000000 of a unit")
      }
      number = ""
      sawAny = true
      let whole = value == value.rounded(.towardZero)
      switch (ch, inTime) {
      case ("Y", false), ("M", false):
        guard whole else {
          throw CLIError.usage(
            "duration '\(text)': months and years have no fixed length, so they take whole numbers (write days instead)"
          )
        }
        result.months += Int(value) * (ch == "Y" ? 12 : 1)
      case ("W", false): result.seconds += value * 7 * 86_400
      case ("D", false): result.seconds += value * 86_400
      case ("H", true): result.seconds += value * 3600
      case ("M", true): result.seconds += value * 60
      case ("S", true): result.seconds += value
      default: throw invalid
      }
    }
    guard sawAny, number.isEmpty else { throw invalid }
    return result
  }

  /// The date `duration` after `date`, refused as a usage error past the last date storesim
  /// writes (the end of the year 9999).
  static func date(_ duration: TypedDuration, after date: Date, text: String) throws -> Date {
    let target = duration.after(date)
    guard target <= WorkLimits.latestDate else {
      throw CLIError.refusedArgument(
        "'\(text)' would move the clock past the year 9999, the last date storesim handles")
    }
    return target
  }

  /// An option's date, its notes sent as warnings.
  static func dateOption(_ text: String, _ context: ParseContext) throws -> Date {
    try date(text, note: context.warning)
  }

  /// Parses an ISO 8601 date: `2026-01-31`, `2026-01-31T10:00:00Z`, `...+02:00`, fractions.
  /// A date without a zone is read as UTC, and `note` says so.
  static func date(_ text: String, note: (String) -> Void = { _ in }) throws -> Date {
    let t = text.trimmingCharacters(in: .whitespaces)
    let pattern =
      #"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$"#
    guard let regex = try? NSRegularExpression(pattern: pattern),
      let m = regex.firstMatch(in: t, range: NSRange(t.startIndex..., in: t))
    else {
      throw CLIError.usage("invalid date '\(text)'; use ISO 8601 like 2026-01-31 or 2026-01-31T10:00:00Z")
    }
    func group(_ i: Int) -> String? {
      guard let r = Range(m.range(at: i), in: t) else { return nil }
      return String(t[r])
    }
    let y = Int64(group(1)!)!, mo = Int64(group(2)!)!, d = Int64(group(3)!)!
    let h = Int64(group(4) ?? "0")!, mi = Int64(group(5) ?? "0")!, s = Int64(group(6) ?? "0")!
    guard (1...12).contains(mo), d >= 1, d <= UTCCalendar.daysInMonth(year: y, month: mo), h < 24, mi < 60, s < 60
    else {
      throw CLIError.usage("invalid date '\(text)': no such day or time")
    }
    var fraction = 0.0
    if let f = group(7) { fraction = Double("0." + f) ?? 0 }
    var offset: Int64 = 0
    if let zone = group(8) {
      if zone != "Z" {
        let sign: Int64 = zone.hasPrefix("-") ? -1 : 1
        let digits = zone.dropFirst().filter(\.isNumber)
        let zh = Int64(digits.prefix(2))!, zm = Int64(digits.suffix(2))!
        guard zh < 24, zm < 60 else { throw CLIError.usage("invalid time zone offset in '\(text)'") }
        offset = sign * (zh * 3600 + zm * 60)
      }
    } else if group(4) != nil {
      note("date '\(text)' has no time zone; read as UTC")
    }
    let days = UTCCalendar.daysFromCivil(year: y, month: mo, day: d)
    let seconds = days * 86_400 + h * 3600 + mi * 60 + s - offset
    return Date(timeIntervalSince1970: Double(seconds) + fraction)
  }

  static func transactionID(_ text: String) throws -> TransactionID {
    guard let id = TransactionID(text) else {
      throw CLIError.usage("invalid transaction id '\(text)'; use a number like 2000000000000001")
    }
    return id
  }
}
