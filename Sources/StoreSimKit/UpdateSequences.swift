import Foundation
import StoreSim
import StoreSimSync

/// Lives as long as an iterator of a live sequence (and its copies).
final class IterationToken: Sendable {
  let handle: any FollowingListener
  init<Element>(_ handle: ListenerHandle<Element>) {
    self.handle = handle
    handle.iteratorStarted()
  }
  deinit { handle.iteratorEnded() }
}

/// What the device moves to its newest session when a test makes one.
protocol DeviceFollower: AnyObject, Sendable {
  func retarget(to core: SessionCore)
}

/// A listener the device moves to its newest session (see `ListenerHandle.follows`).
protocol FollowingListener: DeviceFollower {
  /// The session the listener is on now.
  var currentCore: SessionCore { get }
  func iteratorStarted()
  func iteratorEnded()
}

/// Keeps a live listener registered while its sequence or an iterator exists.
///
/// A sequence made under the device's session (not `run`'s, nor that of a sequence the task
/// iterates) follows the device: when a test makes a new session, the listener moves to it at
/// once, as a device's sequences outlive test sessions (rule
/// update-sequences-follow-the-devices-session).
final class ListenerHandle<Element: Sendable>: FollowingListener {
  private struct Target {
    var core: SessionCore
    var listener: Listener<Element>
    /// Live iterators, counted on the session the listener is on.
    var iterators = 0
  }

  private let target: Mutex<Target>
  /// How to listen on a session; a task on its way (`EmissionLog.Mark`) starts with what it is owed.
  private let make: @Sendable (SessionCore, EmissionLog.Mark?) -> Listener<Element>

  init(
    core: SessionCore, follows device: Device?, since mark: EmissionLog.Mark? = nil,
    make: @escaping @Sendable (SessionCore, EmissionLog.Mark?) -> Listener<Element>
  ) {
    self.make = make
    target = Mutex(Target(core: core, listener: make(core, mark)))
    device?.follow(self)
  }

  deinit {
    let t = target.withLock { $0 }
    t.core.removeListener(t.listener.id)
  }

  /// The session the listener is on, and its listener there.
  var current: (core: SessionCore, listener: Listener<Element>) {
    target.withLock { ($0.core, $0.listener) }
  }

  var currentCore: SessionCore { current.core }

  func retarget(to core: SessionCore) {
    let old = target.withLock { t -> Target? in
      guard t.core !== core else { return nil }
      let old = t
      t.core = core
      t.listener = make(core, nil)
      for _ in 0..<t.iterators { core.iteratorStarted(t.listener.id) }
      return old
    }
    // The consumer waiting on the old session is woken and goes on with the new one.
    if let old { old.core.removeListener(old.listener.id, wakingConsumer: true) }
  }

  func iteratorStarted() {
    target.withLock { t in
      t.iterators += 1
      t.core.iteratorStarted(t.listener.id)
    }
  }

  func iteratorEnded() {
    let (core, id) = target.withLock { t in
      t.iterators -= 1
      return (t.core, t.listener.id)
    }
    core.iteratorEnded(id)
  }
}

extension ListenerHandle {
  /// A listener on the session in reach for a live sequence read in the current task, which (if
  /// it is a tracked detached task) has now reached its sequence, starting with what was emitted
  /// since the task started. Nil, after a printed hint, with no session.
  static func open(
    _ api: String, _ make: @escaping @Sendable (SessionCore, EmissionLog.Mark?) -> Listener<Element>
  ) -> ListenerHandle? {
    let scoped = SessionResolver.current != nil
    guard let core = SessionResolver.resolveOrWarn(api) else { return nil }
    let pending = SessionResolver.pendingTask
    let handle = ListenerHandle(
      core: core, follows: scoped ? nil : SessionResolver.currentDevice, since: pending?.mark(on: core), make: make)
    pending?.reached()
    return handle
  }
}

/// Where a value a live sequence yielded acts (rule values-from-an-update-sequence-act-in-its-session):
/// the session the sequence is on, while the sequence or an iterator of it lives. Held weakly,
/// so a kept value keeps no listener registered.
struct SequenceLink: Sendable {
  weak var sequence: (any FollowingListener)?

  /// The session the sequence is on now; nil once it is gone.
  var core: SessionCore? { sequence?.currentCore }
}

/// A value a live sequence yields, which then acts in that sequence's session.
protocol YieldedBySequence {
  func yielded(by link: SequenceLink) -> Self
}

/// Where an iterator of a live sequence is; the values it yields carry their sequence.
struct LiveCursor<Element: Sendable>: Sendable {
  let live: ListenerHandle<Element>?
  /// Tells the session when the iterator is gone (a loop that ended is not waited for).
  let iteration: IterationToken?

  init(_ live: ListenerHandle<Element>?) {
    self.live = live
    iteration = live.map(IterationToken.init)
  }

  mutating func next() async -> Element? {
    guard let live else { return nil }
    while true {
      let current = live.current
      if let element = await current.core.next(current.listener) {
        guard let bound = element as? any YieldedBySequence else { return element }
        return bound.yielded(by: SequenceLink(sequence: live)) as? Element ?? element
      }
      // Ended, unless the listener moved to a new session meanwhile.
      if Task.isCancelled || live.current.core === current.core { return nil }
    }
  }
}
