import Foundation
import StoreSim
import StoreSimSync

/// How StoreKit calls find their session, narrowest scope first.
///
/// 1. The task-local session of `SKTestSession.run(_:)` (inherited by `Task {}`, child tasks and
///    StoreSimKit's `Task.detached`).
/// 2. For a value a live update sequence yielded (a `Transaction` from `Transaction.updates`),
///    the session that sequence is on while it lives (a sequence made under the device's session
///    moves to the device's newest one; see `SequenceLink`). The value carries its sequence, so
///    no task is bound to a session and no task handle is kept.
/// 3. The device's session: the newest live `SKTestSession` of the current device. The device is
///    the process (as StoreKitTest's test environment is device-wide) unless the task runs in
///    `SKTestSession.isolated(_:)` (the `.isolatedTestSession` trait), which is a device of its own.
enum SessionResolver {
  @TaskLocal static var current: SessionCore?
  @TaskLocal static var device: Device?
  /// The tracked detached task the current task runs in (see `PendingTask`).
  @TaskLocal static var pendingTask: PendingTask?

  /// The device of the current task.
  static var currentDevice: Device { device ?? .shared }

  /// The session in reach; with `device`, that device's session instead of the current task's
  /// device (the process-wide `SKPaymentQueue.default()` of an isolated device, called from an
  /// observer on the main queue, where no task-local says which device it is); with `link`, the
  /// session of the live sequence that yielded the value acting.
  static func resolve(on device: Device? = nil, yieldedBy link: SequenceLink? = nil) -> SessionCore? {
    if let core = current { return core }
    if let core = link?.core { return core }
    return (device ?? currentDevice).newest()
  }

  /// The session in reach, or the error a StoreKit call with none throws (printed once too).
  static func require(_ api: String) throws -> SessionCore {
    if let core = resolve() { return core }
    let error = NoTestSessionError(api: api)
    error.printOnce()
    throw StoreKitError.systemError(error)
  }

  /// The session in reach, or nil after printing (once) how to create one: for calls that
  /// cannot throw (`Transaction.updates`, `Transaction.all`, ...), which then see an empty store.
  static func resolveOrWarn(_ api: String, on device: Device? = nil) -> SessionCore? {
    if let core = resolve(on: device) { return core }
    NoTestSessionError(api: api).printOnce()
    return nil
  }
}

/// A StoreKit call found no `SKTestSession`: thrown wrapped in `StoreKitError.systemError`, and
/// printed once on standard error, since app code often catches and drops StoreKit's errors.
public struct NoTestSessionError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The StoreKit API that was called.
  public let api: String

  public var description: String {
    "StoreSimKit: \(api) found no SKTestSession. Create one before the app's StoreKit code runs, as with "
      + "StoreKitTest, and keep it for the test: `let session = try SKTestSession(configurationFileNamed: "
      + "\"Products\", bundle: .module)` or `SKTestSession(contentsOf: url)`. In a test isolated with "
      + "`.isolatedTestSession` (or inside `SKTestSession.isolated`), create it inside that test."
  }

  private static let printed = Mutex(false)

  func printOnce() {
    let first = Self.printed.withLock { printed in
      defer { printed = true }
      return !printed
    }
    guard first else { return }
    KitDiagnostics.write(description + "\n")
  }
}

/// One device: the sessions created on it, newest last, held weakly (a session ends when the
/// test lets go of it, as StoreKitTest's does).
final class Device: Sendable {
  /// The process-wide device.
  static let shared = Device()

  private struct Entry {
    weak var session: SKTestSession?
  }

  private let entries = Mutex<[Entry]>([])
  /// `SKPaymentQueue.default()` of the device: one object, whichever session is in force; it
  /// holds the observers, and forwards each call to the queue of the session in reach.
  let paymentQueue = SKPaymentQueue(device: nil)

  init() {
    paymentQueue.own(by: self)
  }

  /// Listeners of sequences that follow the device, and tasks on their way to one, held weakly.
  private let followers = Mutex<[WeakFollower]>([])

  private struct WeakFollower {
    weak var listener: (any DeviceFollower)?
  }

  func follow(_ listener: any DeviceFollower) {
    followers.withLock { followers in
      followers.removeAll { $0.listener == nil }
      followers.append(WeakFollower(listener: listener))
    }
  }

  /// A new session is the device's: the sequences that follow the device, and the tasks on
  /// their way to one, move to it.
  func register(_ session: SKTestSession) {
    entries.withLock { entries in
      entries.removeAll { $0.session == nil }
      entries.append(Entry(session: session))
    }
    let moving = followers.withLock { followers in
      followers.removeAll { $0.listener == nil }
      return followers.compactMap(\.listener)
    }
    for listener in moving { listener.retarget(to: session.core) }
  }

  /// The newest live session's engine. Each weak reference is read once: a lazy `compactMap`
  /// reads it twice (to test, then to unwrap), and a session freed on another thread in between
  /// crashed the process (seen once in a full test run, a test's session ending under a
  /// listener's `finish()`).
  func newest() -> SessionCore? {
    entries.withLock { entries in
      for entry in entries.reversed() {
        if let session = entry.session { return session.core }
      }
      return nil
    }
  }
}

/// A task started with StoreSimKit's `Task.detached` while a session was in reach, until it
/// reads a StoreKit update sequence or ends: its first sequence starts with what was emitted
/// after it started (`EmissionLog`), and `waitForTransactionUpdates()` waits for it when
/// something is owed to it, since it may be the app's listener on its way. Started under the
/// device's session, it moves with the device to a newer session, as its sequence would.
final class PendingTask: DeviceFollower {
  private struct Way {
    var core: SessionCore
    var mark: EmissionLog.Mark
  }

  /// Nil once the task reached a sequence or ended.
  private let way: Mutex<Way?>

  init(core: SessionCore, follows device: Device?) {
    way = Mutex(Way(core: core, mark: core.taskStarted()))
    device?.follow(self)
  }

  /// Where the task's first sequence on `core` starts; nil on another session, or once reached.
  func mark(on core: SessionCore) -> EmissionLog.Mark? {
    way.withLock { w in w.flatMap { $0.core === core ? $0.mark : nil } }
  }

  /// The task reached an update sequence, or ended; only the first call counts.
  func reached() {
    let done = way.withLock { w in
      defer { w = nil }
      return w
    }
    if let done { done.core.taskReached(done.mark) }
  }

  /// The device has a newer session: everything emitted there is after the task started.
  func retarget(to core: SessionCore) {
    let old = way.withLock { w -> Way? in
      guard let current = w, current.core !== core else { return nil }
      w = Way(core: core, mark: core.taskStarted())
      return current
    }
    if let old { old.core.taskReached(old.mark) }
  }

  deinit { reached() }
}
