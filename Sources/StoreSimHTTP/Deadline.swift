import Foundation

/// A monotonic deadline.
package struct Deadline: Sendable {
  package let end: UInt64

  package init(seconds: TimeInterval) {
    end = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1_000_000_000)
  }

  package var expired: Bool { DispatchTime.now().uptimeNanoseconds >= end }

  package var remainingSeconds: TimeInterval {
    let now = DispatchTime.now().uptimeNanoseconds
    return now >= end ? 0 : TimeInterval(end - now) / 1_000_000_000
  }

  /// Rounded up so a poll never returns just before the deadline; at most Int32.max.
  package var remainingMilliseconds: Int32 {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now < end else { return 0 }
    return Int32(min(UInt64(Int32.max), (end - now + 999_999) / 1_000_000))
  }
}
