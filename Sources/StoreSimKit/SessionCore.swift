import Foundation
import StoreSim

/// The engine behind one test session: a `Store` value mutated under a lock, and the update
/// sequences it feeds.
///
/// Every mutation runs under the lock and, before the lock is released, appends what it caused
/// to every listener's queue, so when a control call returns its effects are visible to queries
/// and queued on every `Transaction.updates` listener, in emission order. What is emitted while
/// no listener takes `Transaction.updates` is kept and handed to the next one (never missed).
final class SessionCore: @unchecked Sendable {
  let lock = NSLock()
  var store: Store
  /// The customer the app signs in as.
  let customer = CustomerID.default
  /// The device identifier of `AppStore.deviceVerificationID`.
  let deviceVerificationID = UUID()
  /// StoreKit 1's payment queue and the app receipt (StoreKit1/).
  let paymentQueue: SKPaymentQueue

  // Listener state, guarded by `lock` (see SessionCore+Listeners.swift).
  var listeners: [ListenerBase] = []
  var replayedUnfinished = false
  /// Transactions emitted for `Transaction.updates` while no listener took them, in order.
  var backlog: [TransactionID] = []
  /// Transactions a same-device `purchase()` returned to the app (never replayed on `updates`).
  var returnedToApp: Set<TransactionID> = []
  /// Detached tasks started with this session in reach that have not reached a sequence yet.
  var pendingTasks = 0
  var settleWaiters: [CheckedContinuation<Void, Never>] = []

  /// The test's own controls.
  private var cancelPurchases = false
  private var versions = (app: "1", original: "1")

  init(store: Store) {
    self.store = store
    paymentQueue = SKPaymentQueue(core: nil)
    paymentQueue.core = self
  }

  // MARK: Reading and mutating

  func read<T>(_ body: (Store) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(store)
  }

  /// Runs an engine mutation and queues what it caused on every listener before returning.
  /// `purchasesOnUpdates` also delivers `purchaseResult` transactions on `updates` (purchases
  /// made outside the app, `SKTestSession.buyProduct`); `fromStoreKit1` marks a payment of the
  /// StoreKit 1 queue, whose own transaction the queue reports itself. StoreKit 1 observers'
  /// deliveries are queued too, and scheduled on the main queue.
  func mutate<T>(
    purchasesOnUpdates: Bool = false, fromStoreKit1: Bool = false,
    _ body: (inout Store) throws(StoreError) -> Outcome<T>
  ) throws(StoreError) -> T {
    lock.lock()
    let storefront = store.settings.storefront
    let outcome: Outcome<T>
    do {
      outcome = try body(&store)
    } catch {
      lock.unlock()
      throw error
    }
    var wakeups = deliver(outcome.events, purchasesOnUpdates: purchasesOnUpdates)
    wakeups += storefrontChanged(from: storefront)
    let storeKit1 =
      paymentQueue.storeChanged(outcome.events, store: store, customer: customer, fromStoreKit1: fromStoreKit1)
      || store.settings.storefront != storefront
    lock.unlock()
    for wake in wakeups { wake() }
    if storeKit1 { paymentQueue.scheduleDelivery() }
    return outcome.value
  }

  /// Settings changes (no engine events; a storefront change reaches `Storefront.updates`).
  func updateSettings(_ body: (inout StoreKitSettings) -> Void) {
    lock.lock()
    let storefront = store.settings.storefront
    body(&store.settings)
    let wakeups = storefrontChanged(from: storefront)
    let storeKit1 = store.settings.storefront != storefront
    lock.unlock()
    for wake in wakeups { wake() }
    if storeKit1 { paymentQueue.scheduleDelivery() }
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

  /// `AppTransaction.appVersion` and `originalAppVersion`.
  var appVersions: (app: String, original: String) {
    get { lock.lock(); defer { lock.unlock() }; return versions }
    set { lock.lock(); defer { lock.unlock() }; versions = newValue }
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

  /// The current storefront as the app sees it (must hold the lock or own `store`).
  static func storefront(of store: Store) -> Storefront {
    let s = StoreSim.Storefront.named(store.settings.storefront) ?? .usa
    return Storefront(countryCode: s.countryCode, id: s.id, currencyCode: s.currency)
  }

  /// The error a simulated error of `api` makes a `generic`-family API throw, if one is set.
  func simulatedGenericError(_ api: StoreKitAPI) -> StoreKitError? {
    read { $0.settings.simulatedError(forAPI: api) }.map { StoreKitError(simulated: $0.name) }
  }
}
