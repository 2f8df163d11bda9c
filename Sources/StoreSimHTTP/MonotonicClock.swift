import Foundation

/// Monotonic nanoseconds: the time of the transport's timeouts (idle, per request, write) and
/// of a request's arrival. Never jumps with the wall clock.
enum MonotonicClock {
  static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
  static func nanoseconds(_ seconds: TimeInterval) -> UInt64 { UInt64(max(0, seconds) * 1_000_000_000) }
}

/// The name the transport's read path still uses (it shadows Swift's `Clock` inside this
/// module); to be replaced by `MonotonicClock` where it is used, then deleted.
typealias Clock = MonotonicClock
