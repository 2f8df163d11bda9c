import Foundation
import StoreSim

// The update sequences of a session (`Transaction.updates`, `Status.updates`,
// `Storefront.updates`) and `waitForTransactionUpdates()`. The functions that take the state
// `inout` run under the session's lock.
extension SessionCore {
  /// Registers a `Transaction.updates` listener. It starts with what no listener took yet: the
  /// first listener of a session gets the unfinished transactions the app was not handed by a
  /// `purchase()` call (the once-per-launch replay, rule 20), and every listener gets what was
  /// emitted while none was listening.
  func addListener() -> Listener<VerificationResult<Transaction>> {
    state.withLock { s in
      var ids: [TransactionID] = []
      if !s.replayedUnfinished {
        s.replayedUnfinished = true
        ids = replayable(s)
      }
      for id in s.backlog where !ids.contains(id) { ids.append(id) }
      s.backlog = []
      let store = s.store
      let items = ids.compactMap { store.customer(customer)?.transaction($0) }.map { verified($0, in: store) }
      return s.add(TransactionQueue(items: items))
    }
  }

  /// Registers a listener of statuses or storefronts.
  func addListener<Element: Sendable>(of: Element.Type) -> Listener<Element> {
    state.withLock { $0.add(ListenerQueue<Element>()) }
  }

  /// Unfinished transactions a first listener replays.
  private func replayable(_ s: SessionState) -> [TransactionID] {
    s.store.unfinishedTransactions(customer: customer).map(\.id).filter { !s.returnedToApp.contains($0) }
  }

  /// Removes a listener; with `wakingConsumer`, its waiting consumer is told there is nothing
  /// more here (a listener that moved to another session).
  func removeListener(_ id: ListenerID, wakingConsumer: Bool = false) {
    let wakeups = state.withLock { s in
      var wakeups: [() -> Void] = []
      if let i = s.index(of: id) {
        if wakingConsumer, let release = s.listeners[i].queue.release() { wakeups.append(release) }
        keepUntaken(at: i, &s)
        s.listeners.remove(at: i)
      }
      return wakeups + settleIfIdle(&s)
    }
    for wake in wakeups { wake() }
  }

  func iteratorStarted(_ id: ListenerID) {
    state.withLock { s in
      guard let i = s.index(of: id) else { return }
      s.listeners[i].iterators += 1
      s.listeners[i].everIterated = true
    }
  }

  /// An iterator of the listener went away: nobody is taking its elements until a new one
  /// starts, so `settle()` does not wait for it.
  func iteratorEnded(_ id: ListenerID) {
    let wakeups = state.withLock { s in
      if let i = s.index(of: id) { s.listeners[i].iterators -= 1 }
      return settleIfIdle(&s)
    }
    for wake in wakeups { wake() }
  }

  func taskStarted() {
    state.withLock { $0.pendingTasks += 1 }
  }

  func taskReached() {
    let wakeups = state.withLock { s in
      s.pendingTasks -= 1
      return settleIfIdle(&s)
    }
    for wake in wakeups { wake() }
  }

  /// Appends deliveries to every listener; returns the continuations to resume after unlocking.
  func deliver(_ events: [StoreEvent], purchasesOnUpdates: Bool, _ s: inout SessionState) -> [() -> Void] {
    let store = s.store
    var ids: [TransactionID] = []
    var groups: [SubscriptionGroupID] = []
    for event in events where event.customer == customer {
      var id: TransactionID?
      var group: SubscriptionGroupID?
      switch event.kind {
      case .transactionCreated(let t, _, let delivery):
        if delivery == .updates || purchasesOnUpdates { id = t } else { s.returnedToApp.insert(t) }
        group = store.customer(customer)?.transaction(t)?.subscriptionGroupID
      case .transactionRevoked(let t, _), .transactionUpgraded(let t, _), .refundReversed(let t, _):
        id = t
        group = store.customer(customer)?.transaction(t)?.subscriptionGroupID
      case .subscriptionRenewed(let g, _, _), .renewalFailed(let g, _, _), .gracePeriodExpired(let g, _),
        .subscriptionExpired(let g, _, _), .renewalPreferenceChanged(let g, _), .autoRenewStatusChanged(let g, _, _),
        .priceIncreaseStatusChanged(let g, _, _), .offerRedeemed(let g, _, _, _):
        group = g
      case .askToBuyRequested, .askToBuyDeclined, .purchaseInterrupted, .refundRequested, .refundDeclined,
        .notificationSent, .clockAdvanced:
        // Nothing for the app's sequences: no transaction or status changed (an approval or a
        // resolved purchase arrives as `transactionCreated`, a refund as `transactionRevoked`).
        break
      }
      if let id { ids.append(id) }
      if let group, !groups.contains(group) { groups.append(group) }
    }
    let items = ids.compactMap { store.customer(customer)?.transaction($0) }.map { verified($0, in: store) }
    let statuses = groups.flatMap { Product.SubscriptionInfo.statuses(self, store: store, group: $0) }
    guard !items.isEmpty || !statuses.isEmpty else { return [] }
    var wakeups: [() -> Void] = []
    if !s.listeners.contains(where: { $0.queue is TransactionQueue && $0.isTaking }) {
      for id in ids where !s.backlog.contains(id) { s.backlog.append(id) }
    }
    for i in s.listeners.indices {
      s.listeners[i].withQueue(of: VerificationResult<Transaction>.self) { $0.enqueue(items, into: &wakeups) }
      s.listeners[i].withQueue(of: Product.SubscriptionInfo.Status.self) { $0.enqueue(statuses, into: &wakeups) }
    }
    return wakeups
  }

  /// What a transaction listener that stopped taking still held is kept for the next one, unless
  /// another listener has it too.
  private func keepUntaken(at index: Int, _ s: inout SessionState) {
    let id = s.listeners[index].id
    guard let held = s.listeners[index].withQueue(of: VerificationResult<Transaction>.self, { $0.items }),
      !held.isEmpty
    else { return }
    let others = s.listeners.contains { $0.id != id && $0.queue is TransactionQueue && $0.isTaking }
    if !others {
      for item in held where !s.backlog.contains(item.unsafePayloadValue.id) {
        s.backlog.append(item.unsafePayloadValue.id)
      }
    }
    s.listeners[index].withQueue(of: VerificationResult<Transaction>.self) { $0.items = [] }
  }

  /// A new storefront for `Storefront.updates` listeners, if it changed.
  func storefrontChanged(from old: String, _ s: inout SessionState) -> [() -> Void] {
    guard s.store.settings.storefront != old else { return [] }
    paymentQueue.storefrontChanged()
    let storefront = Self.storefront(of: s.store)
    var wakeups: [() -> Void] = []
    for i in s.listeners.indices {
      s.listeners[i].withQueue(of: Storefront.self) { $0.enqueue([storefront], into: &wakeups) }
    }
    return wakeups
  }

  /// The next element for a listener, waiting while its queue is empty.
  func next<Element: Sendable>(_ listener: Listener<Element>) async -> Element? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
        let take = state.withLock { s -> Take<Element> in
          guard let i = s.index(of: listener.id) else { return .end }
          let finished = s.listeners[i].finished
          let take =
            s.listeners[i].withQueue(of: Element.self) { q -> Take<Element> in
              if !q.items.isEmpty { return .item(q.items.removeFirst()) }
              if finished || Task.isCancelled { return .end }
              q.waiter = continuation
              return .wait([])
            } ?? .end
          if case .wait = take { return .wait(settleIfIdle(&s)) }
          return take
        }
        switch take {
        case .item(let item): continuation.resume(returning: item)
        case .end: continuation.resume(returning: nil)
        case .wait(let wakeups): for wake in wakeups { wake() }
        }
      }
    } onCancel: {
      let (waiter, wakeups) = state.withLock { s -> (CheckedContinuation<Element?, Never>?, [() -> Void]) in
        var waiter: CheckedContinuation<Element?, Never>?
        if let i = s.index(of: listener.id) {
          waiter =
            s.listeners[i].withQueue(of: Element.self) { q in
              defer { q.waiter = nil }
              return q.waiter
            } ?? nil
          s.listeners[i].finished = true
          keepUntaken(at: i, &s)
        }
        return (waiter, settleIfIdle(&s))
      }
      waiter?.resume(returning: nil)
      for wake in wakeups { wake() }
    }
  }

  /// Waits until every listener has taken everything queued for it and is waiting for more
  /// (for a `for await` loop: its body finished with the last element), and no task that may be
  /// the app's listener on its way is still to reach its sequence while something waits for one.
  func settle() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let idle = state.withLock { s in
        if isIdle(s) { return true }
        s.settleWaiters.append(continuation)
        return false
      }
      if idle { continuation.resume() }
    }
  }

  /// Whether `settle()` would return now (for tests).
  var isSettled: Bool {
    state.withLock { isIdle($0) }
  }

  /// Every listener being iterated waits with nothing queued; one not iterated yet has nothing
  /// queued (its loop is about to start); one whose loops all ended is not waited for; and if
  /// something waits for a listener (kept updates, unfinished transactions not replayed yet), no
  /// tracked task is still on its way to a sequence.
  private func isIdle(_ s: SessionState) -> Bool {
    let listenersIdle = s.listeners.allSatisfy { l in
      if l.finished { return true }
      if l.iterators > 0 { return l.queue.isEmpty && l.queue.isWaiting }
      return l.everIterated || l.queue.isEmpty
    }
    guard listenersIdle else { return false }
    guard s.pendingTasks > 0 else { return true }
    return s.backlog.isEmpty && (s.replayedUnfinished || replayable(s).isEmpty)
  }

  func settleIfIdle(_ s: inout SessionState) -> [() -> Void] {
    guard !s.settleWaiters.isEmpty, isIdle(s) else { return [] }
    let waiters = s.settleWaiters
    s.settleWaiters = []
    return waiters.map { waiter in { waiter.resume() } }
  }
}
