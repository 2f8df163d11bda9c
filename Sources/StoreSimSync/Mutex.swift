import Foundation

/// A value guarded by a lock that owns it: the value is reachable only inside `withLock`, so
/// it can never be read or changed without the lock, and no `lock()` is ever left unpaired.
///
/// Vouched for by hand (`@unchecked Sendable`): every access to `value` happens while `lock`
/// is held, and the value must itself be `Sendable` (the compiler checks that), since what
/// one thread puts in, another takes out. The toolchain's `Synchronization.Mutex` cannot wait
/// with a deadline (`withLock(before:)`, the session's 503), hence this one.
package final class Mutex<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with the value, holding the lock; what `body` returns (or throws, with its
  /// type) passes through.
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure)
    -> Result
  {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  /// Runs `body` with the value if the lock can be taken before `deadline` (measured on its
  /// monotonic clock), holding it; nil when the deadline passes first (`body` is then not run).
  package func withLock<Result, Failure: Error>(
    before deadline: WaitDeadline, _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result? {
    guard take(before: deadline) else { return nil }
    defer { lock.unlock() }
    return try body(&value)
  }

  /// Takes the lock unless `deadline` passes first. The wait is cut into slices of at most
  /// 50 ms, and the deadline is read on its own clock between slices, so a clock a test drives
  /// decides when the wait gives up.
  private func take(before deadline: WaitDeadline) -> Bool {
    if lock.try() { return true }
    while !deadline.hasPassed {
      if lock.lock(before: Date(timeIntervalSinceNow: min(deadline.remaining, 0.05))) { return true }
    }
    return lock.try()
  }
}

extension Mutex {
  /// A copy of the value, read under the lock.
  package var current: Value { withLock { $0 } }
}
