import Foundation
import StoreSim

// The update sequences of a session (`Transaction.updates`, `Status.updates`,
// `Storefront.updates`) and `waitForTransactionUpdates()`. The functions that take the state
// `inout` run under the session's lock.
extension SessionCore {
  /// Registers a `Transaction.updates` listener. It starts with what no listener took yet: the
  /// first listener of a session gets the unfinished transactions the app was not handed by a
  /// `purchase()` call (the once-per-launch replay, rule 20), and every listener gets what was
  /// emitted while none was listening; the first sequence of a task on its way (`since`) also
  /// gets what was emitted after the task started, whoever took it (`EmissionLog`).
  func addListener(since mark: EmissionLog.Mark? = nil) -> Listener<VerificationResult<Transaction>> {
    state.withLock { s in
      // What the task is owed, each delivery as it was made (a purchase, then its refund).
      var owed: [VerificationResult<Transaction>] = []
      for case .transaction(let item) in mark.map(s.tasksOnTheirWay.since) ?? [] { owed.append(item) }
      let owedIDs = Set(owed.map(\.unsafePayloadValue.id))
      var ids: [TransactionID] = []
      if !s.replayedUnfinished {
        s.replayedUnfinished = true
        ids = replayable(s)
      }
      for id in s.backlog where !ids.contains(id) { ids.append(id) }
      s.backlog = []
      let store = s.store
      let kept = ids.filter { !owedIDs.contains($0) }.compactMap { store.customer(customer)?.transaction($0) }
      return s.add(TransactionQueue(items: kept.map { verified($0, in: store) } + owed))
    }
  }

  /// Registers a listener of statuses; the first sequence of a task on its way (`since`) starts
  /// with the statuses of the groups that changed after the task started.
  func addStatusListener(since mark: EmissionLog.Mark? = nil) -> Listener<Product.SubscriptionInfo.Status> {
    state.withLock { s in
      var statuses: [Product.SubscriptionInfo.Status] = []
      for case .status(let status) in mark.map(s.tasksOnTheirWay.since) ?? [] { statuses.append(status) }
      return s.add(ListenerQueue(items: statuses))
    }
  }

  /// Registers a listener of storefronts.
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

  /// A tracked detached task started: what is emitted from now on is kept for it.
  func taskStarted() -> EmissionLog.Mark {
    state.withLock { $0.tasksOnTheirWay.mark() }
  }

  /// The task reached a sequence, ended, or moved to another session.
  func taskReached(_ mark: EmissionLog.Mark) {
    let wakeups = state.withLock { s in
      s.tasksOnTheirWay.release(mark)
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
    s.tasksOnTheirWay.record(items.map(EmissionLog.Entry.transaction) + statuses.map(EmissionLog.Entry.status))
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
  /// the app's listener on its way is still to reach its sequence while something waits for it
  /// (the task `settle` runs in is not waited for). A task on its way that does not reach a
  /// sequence within `patience` (a detached task that does other work for long) is no longer
  /// waited for by this call; the listeners themselves are waited for however long they take.
  func settle(patience: Duration = .seconds(2)) async {
    let except = SessionResolver.pendingTask?.mark(on: self)
    var impatience: Task<Void, Never>?
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let waiting = state.withLock { s -> Int? in
        if isIdle(s, except: except) { return nil }
        defer { s.nextSettleWaiter += 1 }
        s.settleWaiters.append(SettleWaiter(id: s.nextSettleWaiter, continuation: continuation, except: except))
        return s.nextSettleWaiter
      }
      guard let id = waiting else { return continuation.resume() }
      // Only a call that waits has a timer.
      impatience = WallClock.after(patience) { [weak self] in
        guard let self else { return }
        let wakeups = self.state.withLock { s -> [() -> Void] in
          guard let i = s.settleWaiters.firstIndex(where: { $0.id == id }) else { return [] }
          s.settleWaiters[i].waitsForTasks = false
          return self.settleIfIdle(&s)
        }
        for wake in wakeups { wake() }
      }
    }
    impatience?.cancel()
  }

  /// Whether `settle()` would return now (for tests).
  var isSettled: Bool {
    state.withLock { isIdle($0, except: nil) }
  }

  /// Every listener being iterated waits with nothing queued; one not iterated yet has nothing
  /// queued (its loop is about to start); one whose loops all ended is not waited for; and, when
  /// `waitsForTasks`, no tracked task (but `except`) is still on its way to a sequence while
  /// something waits for it: updates kept for the next listener, unfinished transactions not
  /// replayed yet, or what was emitted since the task started.
  private func isIdle(_ s: SessionState, except: EmissionLog.Mark?, waitsForTasks: Bool = true) -> Bool {
    let listenersIdle = s.listeners.allSatisfy { l in
      if l.finished { return true }
      if l.iterators > 0 { return l.queue.isEmpty && l.queue.isWaiting }
      return l.everIterated || l.queue.isEmpty
    }
    guard listenersIdle else { return false }
    guard waitsForTasks, s.tasksOnTheirWay.hasTasks(except: except) else { return true }
    return s.backlog.isEmpty && (s.replayedUnfinished || replayable(s).isEmpty)
      && !s.tasksOnTheirWay.owesAnything(except: except)
  }

  func settleIfIdle(_ s: inout SessionState) -> [() -> Void] {
    guard !s.settleWaiters.isEmpty else { return [] }
    let now = s
    var wakeups: [() -> Void] = []
    s.settleWaiters.removeAll { waiter in
      guard isIdle(now, except: waiter.except, waitsForTasks: waiter.waitsForTasks) else { return false }
      wakeups.append { waiter.continuation.resume() }
      return true
    }
    return wakeups
  }
}
