import Foundation

/// The one place StoreSimKit reads the wall clock: where a new session's clock starts when the
/// test gives no start date, so that the session agrees with the wall clock app code reads.
enum WallClock {
  /// Now, to the whole second (dates on the wire are whole milliseconds; a second keeps every
  /// conversion exact).
  static func sessionStart() -> Date {
    Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
  }
}
