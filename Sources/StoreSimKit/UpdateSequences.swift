import Foundation

/// Lives as long as an iterator of a live sequence (and its copies).
final class IterationToken: Sendable {
  let core: SessionCore
  let listener: ListenerBase
  init<Element>(_ handle: ListenerHandle<Element>) {
    core = handle.core
    listener = handle.listener
    core.iteratorStarted(listener)
  }
  deinit { core.iteratorEnded(listener) }
}

/// Keeps a live listener registered while its sequence or an iterator exists.
final class ListenerHandle<Element: Sendable>: Sendable {
  let core: SessionCore
  let listener: Listener<Element>
  init(core: SessionCore, listener: Listener<Element>) {
    self.core = core
    self.listener = listener
  }
  deinit { core.removeListener(listener) }
}

extension ListenerHandle {
  /// A listener on the session in reach for a live sequence read in the current task, which (if
  /// it is a tracked detached task) has now reached its sequence. Nil, after a printed hint, with
  /// no session.
  static func open(_ api: String, _ make: (SessionCore) -> Listener<Element>) -> ListenerHandle? {
    guard let core = SessionResolver.resolveOrWarn(api) else { return nil }
    let handle = ListenerHandle(core: core, listener: make(core))
    SessionResolver.pendingTask?.reached()
    return handle
  }
}

/// Where an iterator of a live sequence is: it binds its task to the session while it iterates.
struct LiveCursor<Element: Sendable>: Sendable {
  let live: ListenerHandle<Element>?
  /// Tells the session when the iterator is gone (a loop that ended is not waited for).
  let iteration: IterationToken?
  var binding: BindingToken?

  init(_ live: ListenerHandle<Element>?) {
    self.live = live
    iteration = live.map(IterationToken.init)
  }

  mutating func next() async -> Element? {
    guard let live else { return nil }
    if binding == nil { binding = TaskBindings.shared.bindCurrentTask(to: live.core) }
    return await live.core.next(live.listener)
  }
}
