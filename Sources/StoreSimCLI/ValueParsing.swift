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
  /// Parses `30s`, `15min`, `2h`, `3d`, `1w`, `1mo`, `1y` (and combinations like `1d12h`) or
  /// ISO 8601 (`P1M`, `PT2H`, `P1DT2H`). A bare `m` is refused as ambiguous.
  static func duration(_ text: String) throws -> TypedDuration {
    let t = text.trimmingCharacters(in: .whitespaces)
    if t.uppercased().hasPrefix("P") { return try iso8601Duration(t) }
    var result = TypedDuration()
    var rest = Substring(t.lowercased())
    guard !rest.isEmpty else { throw CLIError.usage("empty duration") }
    while !rest.isEmpty {
      let digits = rest.prefix { $0.isNumber }
      guard !digits.isEmpty, let n = Int(digits), n <= 1_000_000 else {
        throw CLIError.usage("invalid duration '\(text)'; use a number and a unit: 30s 15min 2h 3d 1w 1mo 1y, or ISO 8601 like P1M")
      }
      rest = rest.dropFirst(digits.count)
      let unit = rest.prefix { $0.isLetter }
      rest = rest.dropFirst(unit.count)
      switch unit {
      case "s", "sec", "secs", "second", "seconds": result.seconds += Double(n)
      case "min", "mins", "minute", "minutes": result.seconds += Double(n) * 60
      case "h", "hr", "hrs", "hour", "hours": result.seconds += Double(n) * 3600
      case "d", "day", "days": result.seconds += Double(n) * 86_400
      case "w", "wk", "week", "weeks": result.seconds += Double(n) * 7 * 86_400
      case "mo", "mon", "month", "months": result.months += n
      case "y", "yr", "year", "years": result.months += 12 * n
      case "m":
        throw CLIError.usage("duration '\(text)' is ambiguous: write '\(n)min' for minutes or '\(n)mo' for months")
      case "":
        throw CLIError.usage("duration '\(text)' has no unit; use s, min, h, d, w, mo or y")
      default:
        throw CLIError.usage("unknown duration unit '\(unit)' in '\(text)'; use s, min, h, d, w, mo or y")
      }
    }
    return result
  }

  static func iso8601Duration(_ text: String) throws -> TypedDuration {
    var result = TypedDuration()
    var inTime = false
    var number = ""
    var sawAny = false
    for ch in text.uppercased().dropFirst() {
      if ch == "T" { inTime = true; continue }
      if ch.isNumber || ch == "." { number.append(ch); continue }
      guard let value = Double(number) else { throw CLIError.usage("invalid ISO 8601 duration '\(text)'") }
      number = ""
      sawAny = true
      switch (ch, inTime) {
      case ("Y", false): result.months += Int(value) * 12
      case ("M", false): result.months += Int(value)
      case ("W", false): result.seconds += value * 7 * 86_400
      case ("D", false): result.seconds += value * 86_400
      case ("H", true): result.seconds += value * 3600
      case ("M", true): result.seconds += value * 60
      case ("S", true): result.seconds += value
      default: throw CLIError.usage("invalid ISO 8601 duration '\(text)'")
      }
    }
    guard sawAny, number.isEmpty else { throw CLIError.usage("invalid ISO 8601 duration '\(text)'") }
    return result
  }

  /// Parses an ISO 8601 date: `2026-01-31`, `2026-01-31T10:00:00Z`, `...+02:00`, fractions.
  /// A date without a zone is read as UTC, and `note` says so.
  static func date(_ text: String, note: (String) -> Void = { _ in }) throws -> Date {
    let t = text.trimmingCharacters(in: .whitespaces)
    let pattern = #"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$"#
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
    guard (1...12).contains(mo), d >= 1, d <= UTCCalendar.daysInMonth(year: y, month: mo), h < 24, mi < 60, s < 60 else {
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
      throw CLIError.usage("invalid transaction id '\(text)'; transaction ids are numbers like 2000000000000001")
    }
    return id
  }
}

