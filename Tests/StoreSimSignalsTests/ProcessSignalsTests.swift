import Foundation
import StoreSimSync
import Testing

@testable import StoreSimSignals

/// The stopping signals wake a server running in the process, never one that has ended.
@Suite struct ProcessSignalsTests {
  /// Two servers overlap, and the first ends while the second runs: the signals wake the
  /// second (before, the first restored what it had found, nothing, and a signal then ended
  /// the process under the running server); once both have ended, neither is woken.
  @Test func aServerThatEndsFirstLeavesTheSignalsToTheOneStillRunning() {
    let firstRunning = DispatchSemaphore(value: 0)
    let secondRunning = DispatchSemaphore(value: 0)
    let firstEnded = DispatchSemaphore(value: 0)
    let secondMayEnd = DispatchSemaphore(value: 0)
    let secondEnded = DispatchSemaphore(value: 0)
    let seen = Mutex<[Int32]>([])
    Thread.detachNewThread {
      ProcessSignals.serving(wake: 1001) {
        firstRunning.signal()
        secondRunning.wait()
      }
      firstEnded.signal()
    }
    firstRunning.wait()
    Thread.detachNewThread {
      ProcessSignals.serving(wake: 1002) {
        seen.withLock { $0.append(ProcessSignals.wakeFD) }
        secondRunning.signal()
        secondMayEnd.wait()
        seen.withLock { $0.append(ProcessSignals.wakeFD) }
      }
      secondEnded.signal()
    }
    #expect(firstEnded.wait(timeout: .now() + 10) == .success)
    secondMayEnd.signal()
    #expect(secondEnded.wait(timeout: .now() + 10) == .success)
    // (Another suite's server may start meanwhile in this process and be the newest: the
    // descriptors of the two ended servers are what must never be left.)
    let whileSecondRan = seen.withLock { $0 }
    #expect(whileSecondRan.count == 2 && !whileSecondRan.contains(1001) && !whileSecondRan.contains(-1))
    #expect(ProcessSignals.wakeFD != 1001 && ProcessSignals.wakeFD != 1002)
  }
}
