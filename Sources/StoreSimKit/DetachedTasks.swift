/// `Task.detached`, as code that imports StoreSimKit sees it: a detached task that still reaches
/// the test's session.
///
/// Apple's sample store starts its `Transaction.updates` loop in `Task.detached`, and a real
/// detached task does not inherit task-local values, so `Transaction.updates` read inside it
/// would find no session. These declarations shadow the standard library's for code that
/// imports StoreSimKit (the app's store class compiled against StoreSimKit in tests): the
/// operation runs off the caller's actor, as with `Task.detached`, and the session current where
/// the task is created (if any) is current inside it. One difference remains: the caller's other
/// task-local values are visible in the task too.
extension Task where Failure == Never {
  @discardableResult
  public static func detached(
    priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let core = SessionResolver.resolve()
    return Task<Success, Never>(priority: priority) {
      await SessionResolver.$current.withValue(core) { await operation() }
    }
  }
}

extension Task where Failure == any Error {
  @discardableResult
  public static func detached(
    priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    let core = SessionResolver.resolve()
    return Task<Success, any Error>(priority: priority) {
      try await SessionResolver.$current.withValue(core) { try await operation() }
    }
  }
}
