import Foundation
import StoreSim

/// Bounds on the work one command may do and the files it reads, so that a typo (`advance
/// 99999y`) is refused at once instead of running for minutes and filling the disk. README
/// ("Limits") lists them.
enum WorkLimits {
  /// Renewals, grace and retry deadlines one command may run. Past it, advance in steps.
  static let maximumDeadlines = 1_000_000

  /// The last instant storesim handles: 9999-12-31T23:59:59Z.
  static let latestDate = Date(timeIntervalSince1970: 253_402_300_799)

  /// The largest scenario file `run` reads.
  static let maximumScenarioSize = 16 * 1024 * 1024

  /// Refuses to move the clock to `date` when that would run more deadlines than allowed.
  static func checkAdvance(_ store: Store, to date: Date, asked: String) throws {
    guard date <= latestDate else {
      throw CLIError.refusedArgument(
        "'\(asked)' would move the clock past the year 9999, the last date storesim handles")
    }
    let estimate = store.dueEstimate(through: date, limit: maximumDeadlines)
    if estimate > maximumDeadlines {
      throw CLIError.refusedArgument(
        "'\(asked)' would run more than \(maximumDeadlines.formatted()) renewals and other subscription deadlines in one command, the limit; advance in smaller steps"
      )
    }
  }
}

extension Int {
  /// `1,000,000`: digits grouped by threes, independent of the machine's locale.
  func formatted() -> String {
    let digits = String(self.magnitude)
    var out = ""
    for (i, ch) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(ch)
    }
    return (self < 0 ? "-" : "") + out
  }
}
