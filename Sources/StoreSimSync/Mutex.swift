import Foundation

/// A value guarded by a lock that owns it: the value is reachable only inside `withLock`, so
/// it can never be read or changed without the lock, and no `lock()` is ever left unpaired.
///
/// Vouched for by hand (`@unchecked Sendable`): every
/// access to `value` happens while `lock` is held.
package final class Mutex<Value>: @unchecked Sendable {
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

  /// Runs `body` with the value if the lock can be taken before `deadline`, holding it; nil
  /// when the deadline passes first (`body` is then not run).
  package func withLock<Result, Failure: Error>(
    before deadline: Date, _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result? {
    guard lock.lock(before: deadline) else { return nil }
    defer { lock.unlock() }
    return try body(&value)
  }
}

extension Mutex where Value: Sendable {
  /// A copy of the value, read under the lock.
  package var current: Value { withLock { $0 } }
}
