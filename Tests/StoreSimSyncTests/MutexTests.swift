import Foundation
import StoreSimSync
import Testing

/// The lock that owns its value (`StoreSimSync`), with the deadline wait the server uses.
@Suite struct MutexTests {
  @Test func aWaitWithADeadlineGivesUpWhileAnotherThreadHoldsTheLockAndRunsOnceItIsFree() {
    let mutex = Mutex(0)
    let held = Condition(false)
    let release = Condition(false)
    let holder = Thread {
      mutex.withLock { value in
        value = 1
        held.withLock(waking: .all) { $0 = true }
        release.wait(for: { $0 ? () : nil })
      }
    }
    holder.start()
    held.wait(for: { $0 ? () : nil })
    let refused = mutex.withLock(before: WaitClock.system.deadline(after: 0.05)) { value -> Int in
      value = 99
      return value
    }
    #expect(refused == nil)
    release.withLock(waking: .all) { $0 = true }
    let ran = mutex.withLock(before: WaitClock.system.deadline(after: 10)) { value -> Int in
      value += 1
      return value
    }
    #expect(ran == 2)
    #expect(mutex.current == 2)
  }
}
