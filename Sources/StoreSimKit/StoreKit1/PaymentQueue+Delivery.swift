import Foundation
import StoreSim

/// The payment queue's state, guarded by its mutex.
struct QueueState: Sendable {
  /// The observers the app added (the device's queue), kept strongly.
  var observers: [AppObjectReference<any SKPaymentTransactionObserver>] = []
  /// The queue's unfinished transactions, oldest first.
  var entries: [SKPaymentTransaction] = []
  /// What observers are still to be told, in order (held while there is no observer).
  var outbox: [Step] = []
  /// Requests started and not answered yet, in order, kept until they answer (as on a device,
  /// a started request answers whoever holds it).
  var requests: [SKRequest] = []
  var draining = false
  /// Deferred (Ask to Buy) transactions by the store's request id.
  var deferred: [(requestID: String, transaction: SKPaymentTransaction)] = []
  var paymentsAllowed = true
  /// The next identifier of a restored transaction (never a ledger transaction's).
  var nextRestoredID: UInt64 = 3_000_000_000_000_001

  /// Whether `finishTransaction` was called on it: it stays in `entries` until its `removed`
  /// step runs.
  func isFinishing(_ t: SKPaymentTransaction) -> Bool {
    outbox.contains { step in
      if case .removed(let ts) = step { return ts.contains { $0 === t } }
      return false
    }
  }
}

/// A state change of a transaction, made when observers are told of it.
struct Change {
  let transaction: SKPaymentTransaction
  var state: SKPaymentTransactionState
  var identifier: String?
  var date: Date?
  var original: SKPaymentTransaction?
  var error: SKError?
  var ledgerID: TransactionID?
  var finishesLedger = false

  init(_ transaction: SKPaymentTransaction, state: SKPaymentTransactionState) {
    self.transaction = transaction
    self.state = state
  }

  static func failed(_ t: SKPaymentTransaction, _ code: SKError.Code) -> Change {
    var change = Change(t, state: .failed)
    change.error = SKError(code)
    return change
  }

  /// `purchased` (or `restored`) as the ledger transaction `t`.
  static func purchased(
    _ transaction: SKPaymentTransaction, _ t: StoreSim.Transaction, original: SKPaymentTransaction?
  ) -> Change {
    var change = Change(transaction, state: .purchased)
    change.identifier = String(t.id)
    change.date = t.purchaseDate
    change.original = original
    change.ledgerID = t.id
    change.finishesLedger = !t.isFinished
    return change
  }

  /// Applies the change and puts the transaction in the queue if it is not there.
  func apply(to s: inout QueueState) {
    if !s.entries.contains(where: { $0 === transaction }) { s.entries.append(transaction) }
    transaction.fields.withLock { f in
      f.state = state
      f.identifier = identifier
      f.date = date
      f.original = original
      f.error = error
      f.ledgerID = ledgerID
      f.finishesLedger = finishesLedger
    }
  }
}

/// One thing to deliver.
enum Step: Sendable {
  /// Apply the changes, then `updatedTransactions` with their transactions (one call).
  case updated([Change])
  /// Run an added payment through the store.
  case process(SKPaymentTransaction)
  case removed([SKPaymentTransaction])
  /// A declined Ask to Buy: the deferred transaction leaves the queue with no callback.
  case vanish(SKPaymentTransaction)
  /// Tell a new observer of the unfinished transactions no later step is about.
  case replay(ObjectIdentifier)
  /// Run a restore.
  case restore(String?)
  case restoreFinished
  case restoreFailed(SKError)
  case revoked([String])
  case storefrontChanged
  /// A promoted purchase started on the App Store.
  case promoted(SKPayment, SKProduct)
  /// Downloads whose state changed.
  case downloads([SKDownload])

  func mentions(_ t: SKPaymentTransaction) -> Bool {
    switch self {
    case .updated(let changes): return changes.contains { $0.transaction === t }
    case .process(let p), .vanish(let p): return p === t
    case .removed(let ts): return ts.contains { $0 === t }
    case .replay, .restore, .restoreFinished, .restoreFailed, .revoked, .storefrontChanged, .promoted, .downloads:
      return false
    }
  }
}

/// The main queue, which is where observers are called. On Linux, after `dispatchMain()` (as in
/// a test run), the main queue and the main actor run on a thread that is not the main thread,
/// so `Thread.isMainThread` alone does not say whether code runs on it.
enum MainQueue {
  private static let key = DispatchSpecificKey<Bool>()
  private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

  /// Whether the caller runs on the main queue (or the main thread).
  static var isCurrent: Bool {
    _ = marked
    return Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true
  }
}

extension SKPaymentQueue {
  /// Delivers on the main queue later (after an app's call returns).
  func scheduleDelivery() {
    DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.drain() } }
  }

  /// Delivers now, on the main queue (a test control's call): inline when on it, else waiting.
  func deliverNow() {
    guard hasWork else { return }
    if MainQueue.isCurrent {
      MainActor.assumeIsolated { drain() }
    } else {
      DispatchQueue.main.sync { MainActor.assumeIsolated { drain() } }
    }
  }

  /// Delivers on the main actor (`waitForTransactionUpdates()`).
  func deliverOnMain() async {
    guard hasWork else { return }
    await MainActor.run { drain() }
  }

  /// Something is queued that could be delivered now, or a delivery is running on the main
  /// queue (a step it took may queue more: waiting for the main queue waits for it).
  var hasWork: Bool {
    let observed = !liveObservers.isEmpty
    return state.withLock { s in
      !s.requests.isEmpty || s.draining || (!s.outbox.isEmpty && observed)
    }
  }

  func enqueue(_ request: SKRequest) {
    state.withLock { $0.requests.append(request) }
    scheduleDelivery()
  }

  /// Runs what is queued, in order, until nothing can run (called on the main queue). A call
  /// made while draining (from an observer) returns at once: the running drain goes on.
  @MainActor func drain() {
    let first = state.withLock { s -> Bool in
      defer { s.draining = true }
      return !s.draining
    }
    guard first else { return }
    defer { state.withLock { $0.draining = false } }
    while true {
      let observed = !liveObservers.isEmpty
      let next = state.withLock { s -> (request: SKRequest?, step: Step?)? in
        if !s.requests.isEmpty { return (s.requests.removeFirst(), nil) }
        // Without an observer nothing is processed: the steps wait for one.
        guard observed, let step = s.outbox.first else { return nil }
        s.outbox.removeFirst()
        return (nil, step)
      }
      guard let next else { return }
      if let request = next.request { request.deliver() }
      if let step = next.step { run(step) }
    }
  }

  @MainActor private func run(_ step: Step) {
    let observers = liveObservers.compactMap { $0.onMainActor }
    let face = face
    switch step {
    case .updated(let changes):
      state.withLock { s in
        for change in changes { change.apply(to: &s) }
      }
      let transactions = changes.map(\.transaction)
      for o in observers { o.paymentQueue(face, updatedTransactions: transactions) }
    case .process(let transaction):
      let change = process(transaction)
      state.withLock { $0.outbox.insert(.updated([change]), at: 0) }
    case .removed(let transactions):
      state.withLock { s in s.entries.removeAll { entry in transactions.contains { $0 === entry } } }
      for o in observers { o.paymentQueue(face, removedTransactions: transactions) }
    case .vanish(let transaction):
      state.withLock { $0.entries.removeAll { $0 === transaction } }
    case .replay(let id):
      let observer = observers.first { ObjectIdentifier($0) == id }
      let unfinished = state.withLock { s in s.entries.filter { t in !s.outbox.contains { $0.mentions(t) } } }
      if let observer, !unfinished.isEmpty { observer.paymentQueue(face, updatedTransactions: unfinished) }
    case .restore(let username):
      let steps = restore(username: username)
      state.withLock { $0.outbox.insert(contentsOf: steps, at: 0) }
    case .restoreFinished:
      for o in observers { o.paymentQueueRestoreCompletedTransactionsFinished(face) }
    case .restoreFailed(let error):
      for o in observers { o.paymentQueue(face, restoreCompletedTransactionsFailedWithError: error) }
    case .revoked(let ids):
      for o in observers { o.paymentQueue(face, didRevokeEntitlementsForProductIdentifiers: ids) }
    case .storefrontChanged:
      for o in observers { o.paymentQueueDidChangeStorefront(face) }
    case .promoted(let payment, let product):
      var add = false
      for o in observers where o.paymentQueue(face, shouldAddStorePayment: payment, for: product) { add = true }
      if add { self.add(payment) }
    case .downloads(let downloads):
      for o in observers { o.paymentQueue(face, updatedDownloads: downloads) }
    }
  }
}
