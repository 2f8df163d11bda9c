import Foundation
import StoreSim

// The update sequences of a session (`Transaction.updates`, `Status.updates`,
// `Storefront.updates`) and `waitForTransactionUpdates()`. Everything here runs under `lock`.
extension SessionCore {
  /// Registers a `Transaction.updates` listener. It starts with what no listener took yet: the
  /// first listener of a session gets the unfinished transactions the app was not handed by a
  /// `purchase()` call (the once-per-launch replay, rule 20), and every listener gets what was
  /// emitted while none was listening.
  func addListener() -> Listener<VerificationResult<Transaction>> {
    let listener = Listener<VerificationResult<Transaction>>()
    lock.lock()
    var ids: [TransactionID] = []
    if !replayedUnfinished {
      replayedUnfinished = true
      ids = replayable()
    }
    for id in backlog where !ids.contains(id) { ids.append(id) }
    backlog = []
    listener.queue = ids.compactMap { store.customer(customer)?.transaction($0) }.map { verified($0, in: store) }
    listeners.append(listener)
    lock.unlock()
    return listener
  }

  /// Registers a listener of statuses or storefronts.
  func addListener<Element: Sendable>(of: Element.Type) -> Listener<Element> {
    let listener = Listener<Element>()
    lock.lock()
    listeners.append(listener)
    lock.unlock()
    return listener
  }

  /// Unfinished transactions a first listener replays.
  private func replayable() -> [TransactionID] {
    store.unfinishedTransactions(customer: customer).map(\.id).filter { !returnedToApp.contains($0) }
  }

  func removeListener(_ listener: ListenerBase) {
    lock.lock()
    listeners.removeAll { $0 === listener }
    keepUntaken(listener)
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

  func taskStarted() {
    lock.lock()
    pendingTasks += 1
    lock.unlock()
  }

  func taskReached() {
    lock.lock()
    pendingTasks -= 1
    let wakeups = settleIfIdle()
    lock.unlock()
    for wake in wakeups { wake() }
  }

  /// Appends deliveries to every listener; returns the continuations to resume after unlocking.
  func deliver(_ events: [StoreEvent], purchasesOnUpdates: Bool) -> [() -> Void] {
    var ids: [TransactionID] = []
    var groups: [SubscriptionGroupID] = []
    for event in events where event.customer == customer {
      var id: TransactionID?
      var group: SubscriptionGroupID?
      switch event.kind {
      case .transactionCreated(let t, _, let delivery):
        if delivery == .updates || purchasesOnUpdates { id = t } else { returnedToApp.insert(t) }
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
      if let id { ids.append(id) }
      if let group, !groups.contains(group) { groups.append(group) }
    }
    let items = ids.compactMap { store.customer(customer)?.transaction($0) }.map { verified($0, in: store) }
    let statuses = groups.flatMap { Product.SubscriptionInfo.statuses(self, store: store, group: $0) }
    guard !items.isEmpty || !statuses.isEmpty else { return [] }
    var wakeups: [() -> Void] = []
    if !listeners.contains(where: { $0 is Listener<VerificationResult<Transaction>> && $0.isTaking }) {
      for id in ids where !backlog.contains(id) { backlog.append(id) }
    }
    for listener in listeners {
      if let l = listener as? Listener<VerificationResult<Transaction>> {
        l.enqueue(items, into: &wakeups)
      } else if let l = listener as? Listener<Product.SubscriptionInfo.Status> {
        l.enqueue(statuses, into: &wakeups)
      }
    }
    return wakeups
  }

  /// What a transaction listener that stopped taking still held is kept for the next one, unless
  /// another listener has it too.
  private func keepUntaken(_ listener: ListenerBase) {
    guard let l = listener as? Listener<VerificationResult<Transaction>>, !l.queue.isEmpty else { return }
    let others = listeners.contains { $0 !== l && $0 is Listener<VerificationResult<Transaction>> && $0.isTaking }
    if !others {
      for item in l.queue where !backlog.contains(item.unsafePayloadValue.id) {
        backlog.append(item.unsafePayloadValue.id)
      }
    }
    l.queue = []
  }

  /// A new storefront for `Storefront.updates` listeners, if it changed.
  func storefrontChanged(from old: String) -> [() -> Void] {
    guard store.settings.storefront != old else { return [] }
    paymentQueue.storefrontChanged()
    let storefront = Self.storefront(of: store)
    var wakeups: [() -> Void] = []
    for case let l as Listener<Storefront> in listeners { l.enqueue([storefront], into: &wakeups) }
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
      keepUntaken(listener)
      let wakeups = settleIfIdle()
      lock.unlock()
      waiter?.resume(returning: nil)
      for wake in wakeups { wake() }
    }
  }

  /// Waits until every listener has taken everything queued for it and is waiting for more
  /// (for a `for await` loop: its body finished with the last element), and no task that may be
  /// the app's listener on its way is still to reach its sequence while something waits for one.
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

  /// Whether `settle()` would return now (for tests).
  var isSettled: Bool {
    lock.lock()
    defer { lock.unlock() }
    return isIdle
  }

  /// Every listener being iterated waits with nothing queued; one not iterated yet has nothing
  /// queued (its loop is about to start); one whose loops all ended is not waited for; and if
  /// something waits for a listener (kept updates, unfinished transactions not replayed yet), no
  /// tracked task is still on its way to a sequence.
  private var isIdle: Bool {
    let listenersIdle = listeners.allSatisfy { l in
      if l.finished { return true }
      if l.iterators > 0 { return l.isQueueEmpty && l.isWaiting }
      return l.everIterated || l.isQueueEmpty
    }
    guard listenersIdle else { return false }
    guard pendingTasks > 0 else { return true }
    return backlog.isEmpty && (replayedUnfinished || replayable().isEmpty)
  }

  func settleIfIdle() -> [() -> Void] {
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
  /// Someone takes (or is about to take) its elements: not ended, and not a sequence whose
  /// loops all ended.
  var isTaking: Bool { !finished && !(everIterated && iterators == 0) }
}

/// One live sequence's queue; guarded by its core's lock.
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
