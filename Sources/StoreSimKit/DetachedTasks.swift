/// `Task.detached`, as code that imports StoreSimKit sees it: a detached task that stays on the
/// test's device and session.
///
/// Apple's sample store starts its `Transaction.updates` loop in `Task.detached`, and a real
/// detached task inherits no task-local values. These declarations shadow the standard
/// library's for code that imports StoreSimKit (the app's store class compiled against
/// StoreSimKit in tests): the operation runs off the caller's actor, as with `Task.detached`;
/// the device (`SKTestSession.isolated`) is the caller's, and so is a narrowed session (`run`'s);
/// made under the device's session, the task
/// reaches the device's newest session, as on a device. Until the task reads an update sequence
/// or ends, `waitForTransactionUpdates()` waits for it when there is something to deliver, since
/// it may be the app's listener on its way. One difference remains: the caller's other
/// task-local values are visible in the task too.
extension Task where Failure == Never {
  @discardableResult
  public static func detached(
    priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let scope = DetachedScope()
    return Task<Success, Never>(priority: priority) { await scope.run { await operation() } }
  }
}

extension Task where Failure == any Error {
  @discardableResult
  public static func detached(
    priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    let scope = DetachedScope()
    return Task<Success, any Error>(priority: priority) { try await scope.run { try await operation() } }
  }
}

/// What a detached task takes from where it was created.
struct DetachedScope: Sendable {
  let core: SessionCore?
  let device: Device
  let pending: PendingTask?

  init() {
    // Only a narrowed scope (`run`'s session) is carried in: a task made under the device's
    // session reaches the device's newest session, so a long-lived store's listener follows the
    // device as on a device.
    core = SessionResolver.current
    device = SessionResolver.currentDevice
    pending = SessionResolver.resolve().map { [core, device] in
      PendingTask(core: $0, follows: core == nil ? device : nil)
    }
  }

  func run<T>(_ body: () async throws -> T) async rethrows -> T {
    defer { pending?.reached() }
    return try await SessionResolver.$device.withValue(device) {
      try await SessionResolver.$current.withValue(core) {
        try await SessionResolver.$pendingTask.withValue(pending) { try await body() }
      }
    }
  }
}
