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
  let customer = CustomerID.default
  private var listeners: [ListenerBase] = []
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
    purchasesOnUpdates: Bool = false, _ body: (inout Store) throws(StoreError) -> Outcome<T>
  ) throws(StoreError) -> T {
    lock.lock()
    let outcome: Outcome<T>
    do {
      outcome = try body(&store)
    } catch {
      lock.unlock()
      throw error
    }
    let wakeups = deliver(outcome.events, purchasesOnUpdates: purchasesOnUpdates)
    lock.unlock()
    for wake in wakeups { wake() }
    return outcome.value
  }

  /// Settings changes (no events).
  func updateSettings(_ body: (inout StoreKitSettings) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    body(&store.settings)
  }

  /// One setting, read and written under the lock.
  subscript<Value>(setting key: WritableKeyPath<StoreKitSettings, Value>) -> Value {
    get { read { $0.settings[keyPath: key] } }
    set { updateSettings { $0[keyPath: key] = newValue } }
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

  func verified(_ r: StoreSim.RenewalInfo, in store: Store) -> VerificationResult<Product.SubscriptionInfo.RenewalInfo>
  {
    let value = Product.SubscriptionInfo.RenewalInfo(r, store: store, customer: customer)
    if let error = store.settings.simulatedError(forAPI: .verification) {
      return .unverified(
        value, VerificationResult<Product.SubscriptionInfo.RenewalInfo>.VerificationError(simulated: error.name))
    }
    return .verified(value)
  }

  // MARK: Listeners

  /// Registers a `Transaction.updates` listener. The first listener of a session gets every
  /// unfinished transaction first (the once-per-launch replay, rule 20).
  func addListener() -> Listener<VerificationResult<Transaction>> {
    let listener = Listener<VerificationResult<Transaction>>()
    lock.lock()
    if !replayedUnfinished {
      replayedUnfinished = true
      listener.queue = store.unfinishedTransactions(customer: customer).map { verified($0, in: store) }
    }
    listeners.append(listener)
    lock.unlock()
    return listener
  }

  /// Registers a `Product.SubscriptionInfo.Status.updates` listener.
  func addStatusListener() -> Listener<Product.SubscriptionInfo.Status> {
    let listener = Listener<Product.SubscriptionInfo.Status>()
    lock.lock()
    listeners.append(listener)
    lock.unlock()
    return listener
  }

  func removeListener(_ listener: ListenerBase) {
    lock.lock()
    listeners.removeAll { $0 === listener }
    let wakeups = settleIfIdle()
    lock.unlock()
    for wake in wakeups { wake() }
  }

  func iteratorStarted(_ listener: ListenerBase) {
    lock.lock()
    listener.iterators += 1
    listener.everIterated = true
    lock.unlock()
  }

  /// An iterator of the listener went away: nobody is taking its elements until a new one
  /// starts, so `settle()` does not wait for it.
  func iteratorEnded(_ listener: ListenerBase) {
    lock.lock()
    listener.iterators -= 1
    let wakeups = settleIfIdle()
    lock.unlock()
    for wake in wakeups { wake() }
  }

  /// Appends deliveries to every listener; returns the continuations to resume after unlocking.
  private func deliver(_ events: [StoreEvent], purchasesOnUpdates: Bool) -> [() -> Void] {
    var items: [VerificationResult<Transaction>] = []
    var groups: [SubscriptionGroupID] = []
    for event in events where event.customer == customer {
      var id: TransactionID?
      var group: SubscriptionGroupID?
      switch event.kind {
      case .transactionCreated(let t, _, let delivery):
        if delivery == .updates || purchasesOnUpdates { id = t }
        group = store.customer(customer)?.transaction(t)?.subscriptionGroupID
      case .transactionRevoked(let t, _), .transactionUpgraded(let t, _), .refundReversed(let t, _):
        id = t
        group = store.customer(customer)?.transaction(t)?.subscriptionGroupID
      case .subscriptionRenewed(let g, _, _), .renewalFailed(let g, _, _), .gracePeriodExpired(let g, _),
        .subscriptionExpired(let g, _, _), .renewalPreferenceChanged(let g, _), .autoRenewStatusChanged(let g, _, _),
        .priceIncreaseStatusChanged(let g, _, _), .offerRedeemed(let g, _, _, _):
        group = g
      default:
        break
      }
      if let id, let t = store.customer(customer)?.transaction(id) { items.append(verified(t, in: store)) }
      if let group, !groups.contains(group) { groups.append(group) }
    }
    let statuses = groups.flatMap { Product.SubscriptionInfo.statuses(self, store: store, group: $0) }
    guard !items.isEmpty || !statuses.isEmpty else { return [] }
    var wakeups: [() -> Void] = []
    for listener in listeners {
      if let l = listener as? Listener<VerificationResult<Transaction>> {
        l.enqueue(items, into: &wakeups)
      } else if let l = listener as? Listener<Product.SubscriptionInfo.Status> {
        l.enqueue(statuses, into: &wakeups)
      }
    }
    return wakeups
  }

  /// The next element for a listener, waiting while its queue is empty.
  func next<Element: Sendable>(_ listener: Listener<Element>) async -> Element? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
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
      let wakeups = settleIfIdle()
      lock.unlock()
      waiter?.resume(returning: nil)
      for wake in wakeups { wake() }
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
      if l.iterators > 0 { return l.isQueueEmpty && l.isWaiting }
      return l.everIterated || l.isQueueEmpty
    }
  }

  private func settleIfIdle() -> [() -> Void] {
    guard !settleWaiters.isEmpty, isIdle else { return [] }
    let waiters = settleWaiters
    settleWaiters = []
    return waiters.map { waiter in { waiter.resume() } }
  }
}

/// What `settle()` needs to know of a listener; guarded by its core's lock.
class ListenerBase: @unchecked Sendable {
  /// Live iterators of the listener's sequence.
  var iterators = 0
  var everIterated = false
  var finished = false
  var isQueueEmpty: Bool { true }
  var isWaiting: Bool { false }
}

/// One live sequence's queue (`Transaction.updates`, `Status.updates`); guarded by its core's lock.
final class Listener<Element: Sendable>: ListenerBase, @unchecked Sendable {
  var queue: [Element] = []
  var waiter: CheckedContinuation<Element?, Never>?

  override var isQueueEmpty: Bool { queue.isEmpty }
  override var isWaiting: Bool { waiter != nil }

  /// Appends, handing the first element to a waiting consumer (resumed after unlocking).
  func enqueue(_ items: [Element], into wakeups: inout [() -> Void]) {
    guard !items.isEmpty else { return }
    queue.append(contentsOf: items)
    if let waiter {
      self.waiter = nil
      let item = queue.removeFirst()
      wakeups.append { waiter.resume(returning: item) }
    }
  }
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
