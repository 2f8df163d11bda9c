import Foundation
import StoreSim
import StoreSimSync

/// The payment queue, as StoreKit 1's `SKPaymentQueue`, over the same store as StoreKit 2: a
/// purchase made with either API is seen by the other, as on a device.
///
/// **One queue for the process.** `SKPaymentQueue.default()` is one object for the life of the
/// process (of the device, for code run in `SKTestSession.isolated`), usable before any session
/// exists, as on a device: keep it in an `unowned` or `static let` property, and add observers
/// once, at launch. Each call on it reaches the session in force at the time of the call, and
/// observers added once are told of what happens in every later session. Each session keeps its
/// own transactions: those of a session that is gone, or no longer the newest, never reach
/// observers again, nor appear in `transactions`.
///
/// **When observers are called.** Always on the main queue (the main actor's; StoreKit calls
/// them on the main thread, and on Linux the main queue runs off the main thread once
/// `dispatchMain()` runs, as in `swift test`; the compiler checks it: observers are reached only
/// on the main actor, see `AppObjectReference`), one call at a time, and never inside the queue
/// method that caused it: `add(_:)` (payment), `finishTransaction(_:)`,
/// `restoreCompletedTransactions()`, `add(_:)` (observer) and `SKRequest.start()` only queue what
/// they cause and return; it is delivered from the main queue afterwards, as StoreKit does.
/// Tests make delivery deterministic two ways: every `SKTestSession` control (Ask to Buy
/// approval, refund, `advance`, `buyProduct`, `resolveIssueForTransaction`, ...) delivers what
/// it caused, and anything still queued, before it returns (inline when called on the main
/// queue, else waiting for it), and `await session.waitForTransactionUpdates()` delivers
/// everything queued for StoreKit 1 observers and requests as well as StoreKit 2 listeners.
///
/// While no observer is added, nothing is processed: payments wait, and an observer added later
/// is first told of every unfinished transaction already in the queue (as at an app launch).
///
/// Open, as in StoreKit (where it comes from Objective-C); unchecked only because of that: its
/// state lives in Mutexes.
open class SKPaymentQueue: NSObject, @unchecked Sendable {
  /// The session whose store the queue uses: set once, by the session, which owns the queue.
  private let session = Mutex(WeakSession())
  let state = Mutex(QueueState())
  let receipt = AppReceiptFile()
  /// For a session's own queue: the device whose queue (`default()`) holds the observers and
  /// is what observers are handed. Nil for the device's queue itself.
  private let device: Device?

  private struct WeakSession {
    weak var core: SessionCore?
  }

  private let delegateReference = Mutex<AppObjectReference<any SKPaymentQueueDelegate>?>(nil)

  /// Held weakly, as in StoreKit; never asked (see `SKPaymentQueueDelegate`).
  open var delegate: (any SKPaymentQueueDelegate)? {
    get { face.delegateReference.withLock { $0?.handedBack } }
    set { face.delegateReference.withLock { $0 = newValue.map { AppObjectReference($0, weakly: true) } } }
  }

  /// A queue of its own, attached to no session: its payments fail with `SKError.unknown`.
  /// Apps use `default()`.
  public override init() {
    device = nil
    super.init()
  }

  init(device: Device?) {
    self.device = device
    super.init()
  }

  /// The session's engine (nil for the queue of no session, or once the session is gone).
  var core: SessionCore? { session.withLock { $0.core } }

  func attach(to core: SessionCore) {
    session.withLock { $0.core = core }
  }

  /// The process's queue (the device's): one object, whichever session is in force
  /// (rule default-payment-queue-is-one-object-for-the-process).
  open class func `default`() -> SKPaymentQueue {
    SessionResolver.currentDevice.paymentQueue
  }

  /// The queue that does the work of a call made on this one: for the device's queue, the queue
  /// of the session in reach (itself, with none, after the printed hint of how to create one).
  var target: SKPaymentQueue { target(warn: true) }

  /// `target`; with `warn` false, no hint is printed (adding an observer at launch, before any
  /// session, is what apps do).
  func target(warn: Bool) -> SKPaymentQueue {
    guard device == nil, let owner = owner.withLock({ $0.device }) else { return self }
    let core =
      warn ? SessionResolver.resolveOrWarn("SKPaymentQueue.default()", on: owner) : SessionResolver.resolve(on: owner)
    return core?.paymentQueue ?? self
  }

  /// The device whose `default()` queue this is (set once, by the device).
  private let owner = Mutex(WeakDevice())

  private struct WeakDevice {
    weak var device: Device?
  }

  func own(by device: Device) {
    owner.withLock { $0.device = device }
  }

  /// The queue observers are handed (`default()` for a session's queue).
  var face: SKPaymentQueue { device?.paymentQueue ?? self }

  /// The observers this queue tells: its own (the device's queue), or the device's while this
  /// queue's session is the device's newest, else none (a gone session's transactions wait).
  var liveObservers: [AppObjectReference<any SKPaymentTransactionObserver>] {
    guard let device else { return state.withLock { $0.observers } }
    guard let core, device.newest() === core else { return [] }
    return device.paymentQueue.state.withLock { $0.observers }
  }

  /// False while the test says the customer may not pay (`SKTestSession.canMakePayments`);
  /// payments then fail with `SKError.paymentNotAllowed`.
  open class func canMakePayments() -> Bool {
    SessionResolver.resolve()?.paymentQueue.paymentsAllowed ?? true
  }

  /// The unfinished transactions (in every state but finished), oldest first.
  open var transactions: [SKPaymentTransaction] { target(warn: false).state.withLock { $0.entries } }

  open var transactionObservers: [any SKPaymentTransactionObserver] {
    face.state.withLock { $0.observers }.compactMap(\.handedBack)
  }

  /// The session's storefront.
  open var storefront: SKStorefront? {
    target.core?.read { store in
      let s = SessionCore.storefront(of: store)
      return SKStorefront(countryCode: s.countryCode, identifier: s.id)
    }
  }

  /// Adds an observer. If the queue holds unfinished transactions, the observer is told of them
  /// (`updatedTransactions`), as at an app launch.
  open func add(_ observer: any SKPaymentTransactionObserver) {
    let added = face.state.withLock { s in
      guard !s.observers.contains(where: { $0.refers(to: observer) }) else { return false }
      s.observers.append(AppObjectReference(observer, weakly: false))
      return true
    }
    guard added else { return }
    let queue = target(warn: false)
    queue.state.withLock { s in s.outbox.insert(.replay(ObjectIdentifier(observer)), at: 0) }
    queue.scheduleDelivery()
  }

  /// Stops calling an observer; the queue keeps its transactions.
  open func remove(_ observer: any SKPaymentTransactionObserver) {
    face.state.withLock { s in s.observers.removeAll { $0.refers(to: observer) } }
  }

  /// Queues a payment: observers get the new transaction as `purchasing`, then in a second call
  /// its end state (`purchased`, `failed`, `deferred`). Traps, as StoreKit raises, when the
  /// quantity is less than 1.
  open func add(_ payment: SKPayment) {
    let queue = target
    guard queue === self else { return queue.add(payment) }
    precondition(payment.quantity >= 1, "SKPaymentQueue.add(_:): the payment's quantity must be at least 1")
    let transaction = SKPaymentTransaction(payment: payment.frozen(), state: .purchasing)
    state.withLock { s in
      s.entries.append(transaction)
      s.outbox.append(.updated([Change(transaction, state: .purchasing)]))
      s.outbox.append(.process(transaction))
    }
    scheduleDelivery()
  }

  /// Finishes a transaction: a purchased one is finished in the store at once (it leaves
  /// StoreKit 2's `Transaction.unfinished`, and a consumable leaves the receipt at its next
  /// update), and the queue takes it off `transactions` later, on the main queue, when it tells
  /// observers `removedTransactions`, as a device does: an observer that finishes each restored
  /// transaction in `updatedTransactions` still finds them in `transactions` in
  /// `paymentQueueRestoreCompletedTransactionsFinished` (jinSasaki/InAppPurchase's restore reads
  /// them there). Traps, as StoreKit raises, for a `purchasing` transaction; a transaction the
  /// queue does not hold (no longer, or never: a subclass an app's tests made), or one already
  /// being finished, is ignored.
  open func finishTransaction(_ transaction: SKPaymentTransaction) {
    let queue = target
    guard queue === self else { return queue.finishTransaction(transaction) }
    // One the queue does not hold (finished before, or an app's own test double) is ignored.
    guard state.withLock({ s in s.entries.contains { $0 === transaction } && !s.isFinishing(transaction) })
    else { return }
    let fields = transaction.fields.withLock { $0 }
    precondition(
      fields.state != .purchasing, "SKPaymentQueue.finishTransaction(_:): cannot finish a purchasing transaction")
    let observed = !liveObservers.isEmpty
    let removed = state.withLock { s -> Bool in
      guard s.entries.contains(where: { $0 === transaction }), !s.isFinishing(transaction) else { return false }
      s.deferred.removeAll { $0.transaction === transaction }
      s.outbox.append(.removed([transaction]))
      // With no observer nothing is delivered: it leaves at once.
      if !observed { s.entries.removeAll { $0 === transaction } }
      return true
    }
    guard removed else { return }
    if fields.finishesLedger, let id = fields.ledgerID, let core {
      _ = try? core.mutate { (store: inout Store) throws(StoreError) in try store.finish(id, customer: core.customer) }
    }
    scheduleDelivery()
  }

  /// Asks the store for the customer's restorable purchases: observers get one `restored`
  /// transaction (with a new identifier and `original` set) per non-consumable and per
  /// auto-renewable transaction (renewals and expired ones included), then
  /// `paymentQueueRestoreCompletedTransactionsFinished`; or, with a simulated `.appStoreSync`
  /// error (the App Store sign-in restoring needs), `restoreCompletedTransactionsFailedWithError`
  /// alone. Consumables, non-renewing subscriptions and refunded purchases are not restored.
  open func restoreCompletedTransactions() {
    restoreCompletedTransactions(withApplicationUsername: nil)
  }

  /// `restoreCompletedTransactions()`; the user name is kept on the restored payments.
  open func restoreCompletedTransactions(withApplicationUsername username: String?) {
    let queue = target
    guard queue === self else { return queue.restoreCompletedTransactions(withApplicationUsername: username) }
    state.withLock { s in s.outbox.append(.restore(username)) }
    scheduleDelivery()
  }

  /// The price consent sheet: the customer's answer is the test's
  /// (`SKTestSession.consentToPriceIncreaseForTransaction`), so nothing is shown.
  open func showPriceConsentIfNeeded() {}

  /// The offer code redemption sheet: a code the customer redeems is a purchase made outside
  /// the app, which the test makes with `SKTestSession.buyProduct(identifier:options:)`
  /// (`.codeOffer`); observers are told of it. Nothing is shown.
  open func presentCodeRedemptionSheet() {}

  /// Starts downloads (they become `active`).
  open func start(_ downloads: [SKDownload]) { moveDownloads(downloads, to: .active) }
  /// Pauses downloads.
  open func pause(_ downloads: [SKDownload]) { moveDownloads(downloads, to: .paused) }
  /// Resumes paused downloads.
  open func resume(_ downloads: [SKDownload]) { moveDownloads(downloads, to: .active) }
  /// Cancels downloads.
  open func cancel(_ downloads: [SKDownload]) { moveDownloads(downloads, to: .cancelled) }

  /// Whether the customer may pay (`SKPaymentQueue.canMakePayments()`).
  var paymentsAllowed: Bool {
    get { state.withLock { $0.paymentsAllowed } }
    set { state.withLock { $0.paymentsAllowed = newValue } }
  }
}
