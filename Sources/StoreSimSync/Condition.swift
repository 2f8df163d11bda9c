import Foundation

/// A value guarded by a lock that owns it, with waiting: like `Mutex`, the value is reachable
/// only under the lock, and a thread can wait until the value lets it go on (another thread
/// changes it with `withLock(waking:)`).
///
/// Vouched for by hand (`@unchecked Sendable`): every access to `value` happens while
/// `condition`'s lock is held, and the value must itself be `Sendable` (checked by the compiler).
package final class Condition<Value: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var value: Value

  package init(_ value: Value) {
    self.value = value
  }

  /// Who to wake after a change: nobody, one waiting thread, or all of them.
  package enum Wake: Sendable { case none, one, all }

  /// Runs `body` with the value under the lock, then wakes waiting threads as asked.
  package func withLock<Result>(waking wake: Wake = .none, _ body: (inout Value) throws -> Result) rethrows -> Result {
    condition.lock()
    defer {
      switch wake {
      case .none: break
      case .one: condition.signal()
      case .all: condition.broadcast()
      }
      condition.unlock()
    }
    return try body(&value)
  }

  /// Tries `attempt` under the lock until it returns a result, waiting for a change between
  /// tries. `waiting` is told, under the lock, when a wait begins (true) and ends (false).
  package func wait<Result>(
    for attempt: (inout Value) -> Result?, waiting: (inout Value, Bool) -> Void = { _, _ in }
  ) -> Result {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let result = attempt(&value) { return result }
      waiting(&value, true)
      condition.wait()
      waiting(&value, false)
    }
  }
}
