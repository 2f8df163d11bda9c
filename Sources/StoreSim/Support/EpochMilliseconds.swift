import Foundation

extension Date {
  /// Milliseconds since 1970, rounded to the nearest: how the wire payloads, the session file
  /// and the JSON output write a date.
  package var epochMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

  /// The date `milliseconds` after 1970.
  package init(epochMilliseconds milliseconds: Int64) {
    self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
  }
}
