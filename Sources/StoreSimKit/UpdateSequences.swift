import Foundation

/// Lives as long as an iterator of a live sequence (and its copies).
final class IterationToken: Sendable {
  let core: SessionCore
  let listener: ListenerID
  init<Element>(_ handle: ListenerHandle<Element>) {
    core = handle.core
    listener = handle.listener.id
    core.iteratorStarted(listener)
  }
  deinit { core.iteratorEnded(listener) }
}

/// Keeps a live listener registered while its sequence or an iterator exists.
final class ListenerHandle<Element: Sendable>: Sendable {
  let core: SessionCore
  let listener: Listener<Element>
  /// For a sequence made through the device's session (not `run`'s, nor an iterating task's):
  /// the device whose newest session the sequence moves to, as a device's sequences outlive
  /// test sessions (rule update-sequences-follow-the-devices-session).
  let follows: Device?
  /// How to listen on another session.
  let make: @Sendable (SessionCore) -> Listener<Element>

  init(core: SessionCore, follows: Device?, make: @escaping @Sendable (SessionCore) -> Listener<Element>) {
    self.core = core
    self.follows = follows
    self.make = make
    listener = make(core)
    if follows != nil { core.markFollowing(listener.id) }
  }
  deinit { core.removeListener(listener.id) }

  /// The session the sequence should be on now, if it moves there: the device's newest.
  var movesTo: SessionCore? {
    guard let follows, let newest = follows.newest(), newest !== core else { return nil }
    return newest
  }
}

extension ListenerHandle {
  /// A listener on the session in reach for a live sequence read in the current task, which (if
  /// it is a tracked detached task) has now reached its sequence. Nil, after a printed hint, with
  /// no session.
  static func open(
    _ api: String, _ make: @escaping @Sendable (SessionCore) -> Listener<Element>
  ) -> ListenerHandle? {
    let scoped = SessionResolver.current != nil || SessionResolver.taskBound() != nil
    guard let core = SessionResolver.resolveOrWarn(api) else { return nil }
    let handle = ListenerHandle(core: core, follows: scoped ? nil : SessionResolver.currentDevice, make: make)
    SessionResolver.pendingTask?.reached()
    return handle
  }
}

/// Where an iterator of a live sequence is: it binds its task to the session while it iterates.
/// A sequence made through the device's session moves to the device's newest session when one
/// is made, as a device's sequences outlive test sessions.
struct LiveCursor<Element: Sendable>: Sendable {
  var live: ListenerHandle<Element>?
  /// Tells the session when the iterator is gone (a loop that ended is not waited for).
  var iteration: IterationToken?
  var binding: BindingToken?

  init(_ live: ListenerHandle<Element>?) {
    self.live = live
    iteration = live.map(IterationToken.init)
  }

  mutating func next() async -> Element? {
    while let current = live {
      if let newest = current.movesTo {
        let moved = ListenerHandle(core: newest, follows: current.follows, make: current.make)
        live = moved
        iteration = IterationToken(moved)
        binding = nil
        continue
      }
      if binding == nil { binding = TaskBindings.shared.bindCurrentTask(to: current.core) }
      if let element = await current.core.next(current.listener) { return element }
      // Ended, unless the sequence follows the device and was woken to move to a new session.
      guard current.follows != nil, !Task.isCancelled, current.core.isListening(current.listener.id) else {
        return nil
      }
    }
    return nil
  }
}
