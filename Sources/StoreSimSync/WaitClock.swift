import Foundation

/// Monotonic time for waits and deadlines: how long a lock may be waited for, how long a
/// connection may idle. It never jumps with the wall clock, and tests that freeze the wall
/// clock (the session's `now`) still wait for real. A test may give its own reading to drive
/// a deadline by hand.
package struct WaitClock: Sendable {
  /// Nanoseconds since an arbitrary fixed point; never decreases.
  package let nanoseconds: @Sendable () -> UInt64

  package init(nanoseconds: @escaping @Sendable () -> UInt64) { self.nanoseconds = nanoseconds }

  /// The system's monotonic clock (uptime; stops while the machine sleeps, never jumps).
  package static let system = WaitClock { DispatchTime.now().uptimeNanoseconds }

  /// The deadline `seconds` from now on this clock (now when `seconds` is not positive).
  package func deadline(after seconds: TimeInterval) -> WaitDeadline {
    WaitDeadline(clock: self, at: nanoseconds() &+ Self.nanoseconds(seconds))
  }

  /// Whole nanoseconds in `seconds` (0 for a negative span).
  package static func nanoseconds(_ seconds: TimeInterval) -> UInt64 { UInt64(max(0, seconds) * 1_000_000_000) }
}

/// A point on a `WaitClock` after which a wait gives up.
package struct WaitDeadline: Sendable {
  package let clock: WaitClock
  /// The clock's reading at which the deadline passes.
  package let at: UInt64

  /// Whether the clock has reached the deadline.
  package var hasPassed: Bool { clock.nanoseconds() >= at }

  /// Seconds left until the deadline (0 once it has passed).
  package var remaining: TimeInterval {
    let now = clock.nanoseconds()
    return now >= at ? 0 : Double(at - now) / 1_000_000_000
  }
}
