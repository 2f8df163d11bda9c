import StoreSimSync

extension WaitDeadline {
  /// The milliseconds left for a `poll()`, rounded up so a poll never returns just before the
  /// deadline; 0 once it has passed, at most `Int32.max`.
  package var pollMilliseconds: Int32 {
    let now = clock.nanoseconds()
    guard now < at else { return 0 }
    return Int32(min(UInt64(Int32.max), (at - now + 999_999) / 1_000_000))
  }
}
