import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimSync

/// The engine behind one test session: a `Store` value mutated under a lock, and the update
/// sequences it feeds.
///
/// Every mutation runs under the lock and, before the lock is released, appends what it caused
/// to every listener's queue, so when a control call returns its effects are visible to queries
/// and queued on every `Transaction.updates` listener, in emission order. What is emitted while
/// no listener takes `Transaction.updates` is kept and handed to the next one (never missed).
final class SessionCore: Sendable {
  /// The store and the listeners it feeds, under one lock (a mutation and what it queues are
  /// one step).
  let state: Mutex<SessionState>
  /// The customer the app signs in as.
  let customer = CustomerID.default
  /// The device identifier of `AppStore.deviceVerificationID`.
  let deviceVerificationID = UUID()
  /// StoreKit 1's payment queue and the app receipt (StoreKit1/).
  let paymentQueue: SKPaymentQueue
  /// The test's own controls.
  private let controls = Mutex((cancelPurchases: false, versions: (app: "1", original: "1")))

  init(store: Store, device: Device) {
    state = Mutex(SessionState(store: store))
    paymentQueue = SKPaymentQueue(device: device)
    paymentQueue.attach(to: self)
  }

  // MARK: Reading and mutating

  func read<T, Failure: Error>(_ body: (Store) throws(Failure) -> T) throws(Failure) -> T {
    try state.withLock { (s: inout SessionState) throws(Failure) in try body(s.store) }
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
    let (value, wakeups, storeKit1) = try state.withLock {
      (s: inout SessionState) throws(StoreError) -> (T, [() -> Void], Bool) in
      let storefront = s.store.settings.storefront
      let outcome = try body(&s.store)
      var wakeups = deliver(outcome.events, purchasesOnUpdates: purchasesOnUpdates, &s)
      wakeups += storefrontChanged(from: storefront, &s)
      let storeKit1 =
        paymentQueue.storeChanged(outcome.events, store: s.store, customer: customer, fromStoreKit1: fromStoreKit1)
        || s.store.settings.storefront != storefront
      return (outcome.value, wakeups, storeKit1)
    }
    for wake in wakeups { wake() }
    if storeKit1 { paymentQueue.scheduleDelivery() }
    return value
  }

  /// Settings changes (no engine events; a storefront change reaches `Storefront.updates`).
  func updateSettings(_ body: (inout StoreKitSettings) -> Void) {
    let (wakeups, storeKit1) = state.withLock { s in
      let storefront = s.store.settings.storefront
      body(&s.store.settings)
      return (storefrontChanged(from: storefront, &s), s.store.settings.storefront != storefront)
    }
    for wake in wakeups { wake() }
    if storeKit1 { paymentQueue.scheduleDelivery() }
  }

  /// One setting, read and written under the lock.
  subscript<Value>(setting key: WritableKeyPath<StoreKitSettings, Value>) -> Value {
    get { read { $0.settings[keyPath: key] } }
    set { updateSettings { $0[keyPath: key] = newValue } }
  }

  /// StoreSimKit's own controls back to their first values (`resetToDefaultState()`).
  func resetControls() {
    controls.withLock { $0 = (cancelPurchases: false, versions: (app: "1", original: "1")) }
    paymentQueue.paymentsAllowed = true
    if !paymentQueue.receipt.isPresent { paymentQueue.receipt.setPresent(true, self) }
  }

  var userCancelsPurchases: Bool {
    get { controls.withLock { $0.cancelPurchases } }
    set { controls.withLock { $0.cancelPurchases = newValue } }
  }

  /// `AppTransaction.appVersion` and `originalAppVersion`.
  var appVersions: (app: String, original: String) {
    get { controls.withLock { $0.versions } }
    set { controls.withLock { $0.versions = newValue } }
  }

  // MARK: Wrapping engine values

  /// A signed, possibly unverified transaction as the app sees it (must hold the lock or own `store`).
  func verified(_ t: StoreSim.Transaction, in store: Store) -> VerificationResult<Transaction> {
    let value = Transaction(t, store: store, customer: customer, core: self)
    if let error = store.settings.simulatedError(forAPI: .verification) {
      return .unverified(value, VerificationResult<Transaction>.VerificationError(simulated: error.name))
    }
    guard JWS.verify(value.jwsRepresentation, signer: store.state.signer) != nil else {
      return .unverified(value, .invalidSignature)
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
    guard JWS.verify(value.jwsRepresentation, signer: store.state.signer) != nil else {
      return .unverified(value, .invalidSignature)
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
