import Foundation

/// The one place StoreSimKit reads the wall clock: where a new session's clock starts when the
/// test gives no start date, so that the session agrees with the wall clock app code reads; and
/// how long `waitForTransactionUpdates()` waits for a detached task that never listens.
enum WallClock {
  /// Now, to the whole second (dates on the wire are whole milliseconds; a second keeps every
  /// conversion exact).
  static func sessionStart() -> Date {
    Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
  }

  /// Runs `body` after `patience` of wall time unless the returned task is cancelled first. The
  /// standard library's `Task.init`, not a tracked task (StoreSimKit shadows only `detached`).
  static func after(_ patience: Duration, _ body: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    Task {
      try? await Task.sleep(for: patience)
      if !Task.isCancelled { body() }
    }
  }
}
