import Foundation
import StoreSim

/// The engine behind one test session: a `Store` value mutated under a lock, and the
/// `Transaction.updates` listeners it feeds.
///
/// Every mutation runs under the lock and, before the lock is released, appends what it caused
/// to every listener's queue, so when a control call returns its effects are visible to queries
/// and queued on every listener, in emission order.
final class SessionCore: @unchecked Sendable {
  private let lock = NSLock()
  private var store: Store
  /// The customer the app signs in as.
  let customer = Store.defaultCustomer
  private var listeners: [Listener] = []
  private var replayedUnfinished = false
  private var settleWaiters: [CheckedContinuation<Void, Never>] = []
  /// The test's own control: the next purchases are dismissed by the customer.
  private var cancelPurchases = false

  init(store: Store) { self.store = store }

  // MARK: Reading and mutating

  func read<T>(_ body: (Store) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(store)
  }

  /// Runs an engine mutation and queues what it caused on every listener before returning.
  /// `purchasesOnUpdates` also delivers `purchaseResult` transactions on `updates` (purchases
  /// made outside the app, `SKTestSession.buyProduct`).
  func mutate<T>(
    purchasesOnUpdates: Bool = false, _ body: (inout Store) throws(StoreError) -> (T, [StoreEvent])
  ) throws(StoreError) -> T {
    lock.lock()
    let result: T
    let events: [StoreEvent]
    do {
      (result, events) = try body(&store)
    } catch {
      lock.unlock()
      throw error
    }
    let wakeups = deliver(events, purchasesOnUpdates: purchasesOnUpdates)
    lock.unlock()
    for wake in wakeups { wake() }
    return result
  }

  /// Settings changes (no events).
  func updateSettings(_ body: (inout StoreKitSettings) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    body(&store.settings)
  }

  var userCancelsPurchases: Bool {
    get { lock.lock(); defer { lock.unlock() }; return cancelPurchases }
    set { lock.lock(); defer { lock.unlock() }; cancelPurchases = newValue }
  }

  // MARK: Wrapping engine values

  /// A signed, possibly unverified transaction as the app sees it (must hold the lock or own `store`).
  func verified(_ t: StoreSim.Transaction, in store: Store) -> VerificationResult<Transaction> {
    let value = Transaction(t, store: store, customer: customer, core: self)
    if let error = store.settings.simulatedError(forAPI: .verification) {
      return .unverified(value, VerificationResult<Transaction>.VerificationError(simulated: error.name))
    }
    return .verified(value)
  }

  func verified(_ r: StoreSim.RenewalInfo, in store: Store) -> VerificationResult<Product.SubscriptionInfo.RenewalInfo> {
    let value = Product.SubscriptionInfo.RenewalInfo(r, store: store, customer: customer)
    if let error = store.settings.simulatedError(forAPI: .verification) {
      return .unverified(value, VerificationResult<Product.SubscriptionInfo.RenewalInfo>.VerificationError(simulated: error.name))
    }
    return .verified(value)
  }

  // MARK: Listeners

  /// Registers a `Transaction.updates` listener. The first listener of a session gets every
  /// unfinished transaction first (the once-per-launch replay, rule 20).
  func addListener() -> Listener {
    let listener = Listener()
    lock.lock()
    if !replayedUnfinished {
      replayedUnfinished = true
      listener.queue = store.unfinishedTransactions(customer: customer).map { verified($0, in: store) }
    }
    listeners.append(listener)
    lock.unlock()
    return listener
  }

  func removeListener(_ listener: Listener) {
    lock.lock()
    listeners.removeAll { $0 === listener }
    let wakeups = settleIfIdle()
    lock.unlock()
    for wake in wakeups { wake() }
  }

  func iteratorStarted(_ listener: Listener) {
    lock.lock()
    listener.iterators += 1
    listener.everIterated = true
    lock.unlock()
  }

  /// An iterator of the listener went away: nobody is taking its elements until a new one
  /// starts, so `settle()` does not wait for it.
  func iteratorEnded(_ listener: Listener) {
    lock.lock()
    listener.iterators -= 1
    let wakeups = settleIfIdle()
    lock.unlock()
    for wake in wakeups { wake() }
  }

  /// Appends deliveries to every listener; returns the continuations to resume after unlocking.
  private func deliver(_ events: [StoreEvent], purchasesOnUpdates: Bool) -> [() -> Void] {
    var items: [VerificationResult<Transaction>] = []
    for event in events where event.customer == customer {
      let id: TransactionID
      switch event.kind {
      case .transactionCreated(let t, _, let delivery):
        guard delivery == .updates || purchasesOnUpdates else { continue }
        id = t
      case .transactionRevoked(let t, _), .transactionUpgraded(let t, _), .refundReversed(let t, _):
        id = t
      default:
        continue
      }
      guard let t = store.customer(customer)?.transaction(id) else { continue }
      items.append(verified(t, in: store))
    }
    guard !items.isEmpty else { return [] }
    var wakeups: [() -> Void] = []
    for listener in listeners {
      listener.queue.append(contentsOf: items)
      if let waiter = listener.waiter {
        listener.waiter = nil
        let item = listener.queue.removeFirst()
        wakeups.append { waiter.resume(returning: item) }
      }
    }
    return wakeups
  }

  /// The next element for a listener, waiting while its queue is empty.
  func next(_ listener: Listener) async -> VerificationResult<Transaction>? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<VerificationResult<Transaction>?, Never>) in
        lock.lock()
        if !listener.queue.isEmpty {
          let item = listener.queue.removeFirst()
          lock.unlock()
          continuation.resume(returning: item)
        } else if listener.finished || Task.isCancelled {
          lock.unlock()
          continuation.resume(returning: nil)
        } else {
          listener.waiter = continuation
          let wakeups = settleIfIdle()
          lock.unlock()
          for wake in wakeups { wake() }
        }
      }
    } onCancel: {
      lock.lock()
      let waiter = listener.waiter
      listener.waiter = nil
      listener.finished = true
      lock.unlock()
      waiter?.resume(returning: nil)
    }
  }

  /// Waits until every listener has taken everything queued for it and is waiting for more,
  /// which for a `for await` loop means its body finished with the last element.
  func settle() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.lock()
      if isIdle {
        lock.unlock()
        continuation.resume()
      } else {
        settleWaiters.append(continuation)
        lock.unlock()
      }
    }
  }

  /// Every listener being iterated waits with nothing queued; one not iterated yet has nothing
  /// queued (its loop is about to start); one whose loops all ended is not waited for.
  private var isIdle: Bool {
    listeners.allSatisfy { l in
      if l.finished { return true }
      if l.iterators > 0 { return l.queue.isEmpty && l.waiter != nil }
      return l.everIterated || l.queue.isEmpty
    }
  }

  private func settleIfIdle() -> [() -> Void] {
    guard !settleWaiters.isEmpty, isIdle else { return [] }
    let waiters = settleWaiters
    settleWaiters = []
    return waiters.map { waiter in { waiter.resume() } }
  }
}

/// One `Transaction.updates` sequence's queue; guarded by its core's lock.
final class Listener: @unchecked Sendable {
  var queue: [VerificationResult<Transaction>] = []
  var waiter: CheckedContinuation<VerificationResult<Transaction>?, Never>?
  /// Live iterators of the listener's sequence.
  var iterators = 0
  var everIterated = false
  var finished = false
}

/// How static StoreKit calls find their session.
///
/// 1. The task-local session installed by `SKTestSession.run(_:)` (inherited by child tasks and
///    `Task {}`, not by `Task.detached`).
/// 2. Else the session of the `Transaction.updates` sequence the current task iterates: the
///    task that runs an app's listener loop is bound to the session its sequence came from,
///    so calls from the loop body (`currentEntitlements`, `status(for:)`) reach it even in a
///    detached task.
enum SessionResolver {
  @TaskLocal static var current: SessionCore?

  static func resolve() -> SessionCore? {
    if let core = current { return core }
    return withUnsafeCurrentTask { task in task.flatMap { TaskBindings.shared.lookup($0) } }
  }
}

/// Tasks bound to sessions while they iterate a session's `Transaction.updates`.
final class TaskBindings: @unchecked Sendable {
  static let shared = TaskBindings()
  private let lock = NSLock()
  private var bindings: [UnsafeCurrentTask: (core: SessionCore, count: Int)] = [:]

  func lookup(_ task: UnsafeCurrentTask) -> SessionCore? {
    lock.lock()
    defer { lock.unlock() }
    return bindings[task]?.core
  }

  /// Binds the current task; the token unbinds it when the iterator goes away.
  func bindCurrentTask(to core: SessionCore) -> BindingToken? {
    withUnsafeCurrentTask { task -> BindingToken? in
      guard let task else { return nil }
      lock.lock()
      defer { lock.unlock() }
      if let existing = bindings[task] {
        bindings[task] = (existing.core, existing.count + 1)
      } else {
        bindings[task] = (core, 1)
      }
      return BindingToken(task: task, owner: self)
    }
  }

  fileprivate func unbind(_ task: UnsafeCurrentTask) {
    lock.lock()
    defer { lock.unlock() }
    guard let existing = bindings[task] else { return }
    if existing.count <= 1 { bindings[task] = nil } else { bindings[task] = (existing.core, existing.count - 1) }
  }
}

final class BindingToken: @unchecked Sendable {
  private let task: UnsafeCurrentTask
  private let owner: TaskBindings
  fileprivate init(task: UnsafeCurrentTask, owner: TaskBindings) {
    self.task = task
    self.owner = owner
  }
  deinit { owner.unbind(task) }
}
