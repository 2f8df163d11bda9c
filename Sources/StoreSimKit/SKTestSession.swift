import Foundation
import StoreSim
import StoreSimSession

/// Test control over one simulated App Store, shaped like StoreKitTest's `SKTestSession`.
///
/// As with StoreKitTest, a session is device-wide: while it lives, the newest session is what
/// every StoreKit call reaches, from any task, with no closure around app code. Narrower
/// scopes are a choice on top: `run(_:)` makes one session current for the code it runs, and
/// `SKTestSession.isolated(_:)` (the `.isolatedTestSession` trait of `StoreSimKitTesting`) gives
/// code a device of its own, so tests run in parallel. Values kept from a session (`Product`,
/// `Transaction`, `SKProduct`) act in the session in force when they are used, as on a device,
/// where there is one store; an update sequence made under the device's session moves to the
/// device's newest one (one made in `run` stays). Every control call is
/// synchronous with respect to the store: when it returns, what it caused is visible to queries
/// and queued for every `Transaction.updates` listener.
public final class SKTestSession: Sendable {
  let core: SessionCore
  /// Where the configuration came from, kept for `save(to:)`.
  let origin: SessionOrigin
  /// Warnings about the configuration, one line each (`path: message`).
  public let configurationWarnings: [String]

  /// A session over a `.storekit` file. Its clock starts at `startDate`, or at the current
  /// wall-clock time (to the second), so that it agrees with the wall clock app code reads.
  public convenience init(contentsOf url: URL, startDate: Date? = nil) throws {
    guard url.isFileURL else { throw SKTestError(.invalidURL, "\(url) is not a file URL") }
    let data: Data
    do {
      data = try ConfigurationBytes.read(url.path)
    } catch .tooLarge {
      throw SKTestError(.invalidAction, "\(url.path) is larger than 32 MiB; not a StoreKit configuration")
    } catch {
      throw SKTestError(.fileNotFound, "cannot read \(url.path)")
    }
    try self.init(configurationData: data, startDate: startDate, path: url.path)
  }

  /// A session over `<name>.storekit` in a bundle (StoreKitTest looks in the main bundle; pass
  /// `Bundle.module` for a test target's resources).
  public convenience init(configurationFileNamed name: String, bundle: Bundle = .main, startDate: Date? = nil) throws {
    let base = name.hasSuffix(".storekit") ? String(name.dropLast(".storekit".count)) : name
    guard let url = bundle.url(forResource: base, withExtension: "storekit") else {
      throw SKTestError(.fileNotFound, Self.missingResourceMessage(base, bundle: bundle))
    }
    try self.init(contentsOf: url, startDate: startDate)
  }

  /// Why `<name>.storekit` was not found, with the fix: a SwiftPM test target's resources are
  /// in `Bundle.module`, not the main bundle (the test runner's), and must be listed in
  /// Package.swift.
  static func missingResourceMessage(_ base: String, bundle: Bundle) -> String {
    let fix =
      bundle == Bundle.main
      ? "a test target's resources are in Bundle.module: pass it, "
        + "SKTestSession(configurationFileNamed: \"\(base)\", bundle: .module), "
        + "and list the file in Package.swift (resources: [.copy(\"\(base).storekit\")])"
      : "list the file in the target's resources in Package.swift (resources: [.copy(\"\(base).storekit\")])"
    return "no \(base).storekit in \(bundle.bundlePath); \(fix)"
  }

  /// A session over the contents of a `.storekit` file.
  public convenience init(configurationData data: Data, startDate: Date? = nil) throws {
    try self.init(configurationData: data, startDate: startDate, path: "")
  }

  convenience init(configurationData data: Data, startDate: Date?, path: String) throws {
    let loaded: LoadedConfiguration
    do { loaded = try ConfigurationReader.read([UInt8](data)) } catch {
      throw SKTestError(.invalidAction, "invalid configuration: \(error)")
    }
    let warnings = loaded.warnings.map { issue in issue.path.isEmpty ? issue.message : "\(issue.path): \(issue.message)"
    }
    if !warnings.isEmpty {
      let name = path.isEmpty ? "configuration" : (path as NSString).lastPathComponent
      let lines = warnings.map { "StoreSimKit: \(name): warning: \($0)\n" }.joined()
      KitDiagnostics.write(lines)
    }
    self.init(
      store: Store(configuration: loaded.configuration, start: startDate ?? WallClock.sessionStart()),
      origin: SessionOrigin(configurationPath: path, configurationDigest: SessionFileFormat.digest(data)),
      warnings: warnings)
  }

  init(store: Store, origin: SessionOrigin, warnings: [String] = []) {
    let device = SessionResolver.currentDevice
    core = SessionCore(store: store, device: device)
    self.origin = origin
    configurationWarnings = warnings
    device.register(self)
  }

  // MARK: Scope

  /// Runs `body` with this session as the current one for StoreKit calls made in it and in the
  /// tasks it creates with `Task {}` or StoreSimKit's `Task.detached`, whichever session is
  /// the device's. `body` runs on the caller's actor.
  public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
    try await SessionResolver.$current.withValue(core, operation: body, isolation: isolation)
  }

  /// Not in StoreKitTest: runs `body` on a device of its own. Sessions created in it (and in the
  /// tasks it starts with `Task {}` or StoreSimKit's `Task.detached`) are the device-wide
  /// sessions of that code only; outside sessions are not reached from it, nor its sessions
  /// from outside. The `.isolatedTestSession` trait runs each test this way.
  public static func isolated<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
  ) async rethrows -> T {
    try await SessionResolver.$device.withValue(Device(), operation: body, isolation: isolation)
  }

  /// Waits until every `Transaction.updates` loop has handled everything queued for it and is
  /// waiting for more. Use it before asserting on what an app's listener does.
  ///
  /// A sequence that was read but whose loop has not started yet is waited for only if
  /// something is queued for it; one whose loops all ended is not waited for.
  ///
  /// It also delivers everything queued for StoreKit 1: payment queue observers and
  /// `SKRequest` delegates (on the main queue), until both APIs have nothing left.
  public func waitForTransactionUpdates() async {
    for _ in 0..<16 {
      await core.paymentQueue.deliverOnMain()
      await core.settle()
      if !core.paymentQueue.hasWork { return }
    }
  }

  // MARK: Properties

  public var askToBuyEnabled: Bool {
    get { core[setting: \.askToBuyEnabled] }
    set { core[setting: \.askToBuyEnabled] = newValue }
  }
  public var disableDialogs: Bool {
    get { core[setting: \.disableDialogs] }
    set { core[setting: \.disableDialogs] = newValue }
  }
  public var interruptedPurchasesEnabled: Bool {
    get { core[setting: \.interruptedPurchasesEnabled] }
    set { core[setting: \.interruptedPurchasesEnabled] = newValue }
  }
  public var failTransactionsEnabled: Bool {
    get { core[setting: \.failTransactionsEnabled] }
    set { core[setting: \.failTransactionsEnabled] = newValue }
  }
  public var shouldEnterBillingRetryOnRenewal: Bool {
    get { core[setting: \.shouldEnterBillingRetryOnRenewal] }
    set { core[setting: \.shouldEnterBillingRetryOnRenewal] = newValue }
  }
  public var billingGracePeriodIsEnabled: Bool {
    get { core[setting: \.billingGracePeriodIsEnabled] }
    set { core[setting: \.billingGracePeriodIsEnabled] = newValue }
  }
  /// ISO 3166-1 alpha-3 storefront code.
  public var storefront: String {
    get { core[setting: \.storefront] }
    set {
      core[setting: \.storefront] = newValue
      core.paymentQueue.deliverNow()
    }
  }
  public var locale: Locale {
    get { Locale(identifier: core.read { $0.settings.locale }) }
    set { core.updateSettings { $0.locale = newValue.identifier } }
  }
  public typealias TimeRate = StoreSim.TimeRate
  /// Recorded; the virtual clock moves only with `advance(by:)`.
  public var timeRate: TimeRate {
    get { core[setting: \.timeRate] }
    set { core[setting: \.timeRate] = newValue }
  }

  /// Not in StoreKitTest: purchases are dismissed by the customer (`.userCancelled`) while true.
  public var userCancelsPurchases: Bool {
    get { core.userCancelsPurchases }
    set { core.userCancelsPurchases = newValue }
  }

  // MARK: Clock

  /// The virtual date.
  public var now: Date { core.read { $0.now } }

  /// Moves the virtual clock forward; renewals, expiries, grace and retry happen on the way.
  public func advance(by seconds: TimeInterval) throws {
    try control { (store: inout Store) throws(StoreError) in try store.advance(by: seconds) }
  }

  /// Moves the virtual clock to a date.
  public func advance(to date: Date) throws {
    try control { (store: inout Store) throws(StoreError) in try store.advance(to: date) }
  }

  // MARK: Methods

  /// Restores every setting to the configuration's values, and StoreSimKit's own controls to
  /// theirs: `userCancelsPurchases` and `canMakePayments` (false, true), `appVersion` and
  /// `originalAppVersion` ("1"), `appReceiptIsPresent` (true).
  public func resetToDefaultState() {
    _ = try? core.mutate { (store: inout Store) throws(StoreError) in store.resetToDefaultState() }
    core.resetControls()
    core.paymentQueue.deliverNow()
  }

  /// Removes every transaction; intro offers become available again.
  public func clearTransactions() {
    _ = try? core.mutate { (store: inout Store) throws(StoreError) in store.clearTransactions() }
    core.paymentQueue.deliverNow()
  }

  /// A purchase made outside the app: the app sees it on `Transaction.updates`.
  @discardableResult
  public func buyProduct(identifier: String, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
    try buy(identifier, options: options, customer: core.customer)
  }

  /// Not in StoreKitTest: a purchase by a family member (see `addFamilyMember(_:)`); shareable
  /// products reach the app's customer as family-shared transactions on `Transaction.updates`.
  @discardableResult
  public func buyProduct(
    identifier: String, options: Set<Product.PurchaseOption> = [], familyMember: String
  ) async throws -> Transaction {
    try buy(identifier, options: options, customer: CustomerID(familyMember))
  }

  func buy(
    _ identifier: String, options: Set<Product.PurchaseOption>, customer: CustomerID
  ) throws -> Transaction {
    let engineOptions = try Product.PurchaseOption.engineOptions(options)
    let result: PurchaseResult
    do {
      result = try core.mutate(purchasesOnUpdates: true) { (store: inout Store) throws(StoreError) in
        try store.purchase(identifier, options: engineOptions.options, customer: customer, at: engineOptions.date)
      }
    } catch {
      throw Self.testError(error)
    }
    core.paymentQueue.deliverNow()
    switch result {
    case .success(let t, _):
      return core.read { store in Transaction(t, store: store, customer: customer, core: core) }
    case .pending: throw SKTestError(.invalidAction, "the purchase is pending (Ask to Buy or interrupted)")
    case .userCancelled: throw StoreKitError.userCancelled
    case .failed(let failure): throw Product.purchaseFailure(failure)
    }
  }

  /// Not in StoreKitTest: puts a customer in the app customer's Family Sharing group.
  public func addFamilyMember(_ name: String) throws {
    try control { (store: inout Store) throws(StoreError) in
      if !store.hasCustomer(CustomerID(name)) { try store.addCustomer(CustomerID(name)) }
      return try store.addFamilyMember(CustomerID(name), to: core.customer)
    }
  }

  public func approveAskToBuyTransaction(identifier: UInt) throws {
    try control { (store: inout Store) throws(StoreError) in
      try store.approveAskToBuyTransaction(identifier: String(identifier))
    }
  }

  public func declineAskToBuyTransaction(identifier: UInt) throws {
    try control { (store: inout Store) throws(StoreError) in
      try store.declineAskToBuyTransaction(identifier: String(identifier))
    }
  }

  public func expireSubscription(productIdentifier: String) throws {
    try control { (store: inout Store) throws(StoreError) in
      try store.expireSubscription(productID: productIdentifier, customer: core.customer)
    }
  }

  public func forceRenewalOfSubscription(productIdentifier: String) throws {
    try control { (store: inout Store) throws(StoreError) in
      try store.forceRenewal(productID: productIdentifier, customer: core.customer)
    }
  }

  public func refundTransaction(identifier: UInt) throws {
    try control { (store: inout Store) throws(StoreError) in
      try store.refund(TransactionID(identifier), customer: core.customer)
    }
  }

  public func deleteTransaction(identifier: UInt) throws {
    try control { (store: inout Store) throws(StoreError) in
      try store.deleteTransaction(TransactionID(identifier), customer: core.customer)
    }
  }

  public func enableAutoRenewForTransaction(identifier: UInt) throws {
    let product = try productID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in
      try store.enableAutoRenew(productID: product, customer: core.customer)
    }
  }

  public func disableAutoRenewForTransaction(identifier: UInt) throws {
    let product = try productID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in
      try store.disableAutoRenew(productID: product, customer: core.customer)
    }
  }

  /// Resolves an interrupted purchase (by its `SKTestTransaction` identifier) or a billing issue.
  public func resolveIssueForTransaction(identifier: UInt) throws {
    let product = try productID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in
      try store.resolveIssue(productID: product, customer: core.customer)
    }
  }

  /// Asks the customer to consent to a price increase. Not in StoreKitTest: `newPrice` (the
  /// renewal price from now on) and `needsConsent: false` (an increase agreed at once).
  public func requestPriceIncreaseConsentForTransaction(
    identifier: UInt, newPrice: Decimal? = nil, needsConsent: Bool = true
  ) throws {
    let product = try productID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in
      try store.requestPriceIncreaseConsent(
        productID: product, price: newPrice, needsConsent: needsConsent, customer: core.customer)
    }
  }

  public func consentToPriceIncreaseForTransaction(identifier: UInt) throws {
    let product = try productID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in
      try store.consentToPriceIncrease(productID: product, customer: core.customer)
    }
  }

  public func declinePriceIncreaseForTransaction(identifier: UInt) throws {
    let product = try productID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in
      try store.declinePriceIncrease(productID: product, customer: core.customer)
    }
  }

  /// Every record of the app's customer: transactions and open Ask to Buy or interrupted requests.
  public func allTransactions() -> [SKTestTransaction] {
    core.read { store in
      let customer = core.customer
      let subscriptions = store.customer(customer)?.subscriptions ?? []
      var result =
        store.customer(customer)?.transactions.map { t -> SKTestTransaction in
          let sub = subscriptions.first { $0.latestTransactionID == t.id }
          return SKTestTransaction(
            identifier: UInt(t.id), originalTransactionIdentifier: UInt(t.originalID), productIdentifier: t.productID,
            state: .purchased, purchaseDate: t.purchaseDate, expirationDate: t.expirationDate,
            cancelDate: t.revocationDate,
            autoRenewingEnabled: sub?.willAutoRenew ?? false,
            hasPurchaseIssue: sub.map { $0.isInBillingRetry } ?? false,
            isPendingPriceIncreaseConsent: sub?.priceIncreaseStatus == .pending, pendingAskToBuyConfirmation: false)
        } ?? []
      for r in store.pendingRequests(customer: customer) {
        result.append(
          SKTestTransaction(
            identifier: UInt(r.id) ?? 0, originalTransactionIdentifier: UInt(r.id) ?? 0, productIdentifier: r.productID,
            state: r.kind == .askToBuy ? .deferred : .failed, purchaseDate: r.date, expirationDate: nil,
            cancelDate: nil,
            autoRenewingEnabled: false, hasPurchaseIssue: r.kind == .interrupted, isPendingPriceIncreaseConsent: false,
            pendingAskToBuyConfirmation: r.kind == .askToBuy))
      }
      return result
    }
  }

  // MARK: Helpers

  /// Runs a control; StoreKit 1 observers have been told what it caused when it returns.
  func control<Value>(_ body: (inout Store) throws(StoreError) -> Outcome<Value>) throws {
    do {
      _ = try core.mutate(body)
    } catch {
      throw Self.testError(error)
    }
    core.paymentQueue.deliverNow()
  }

  func productID(of identifier: UInt) throws -> String {
    let found: String? = core.read { store in
      if let r = store.pendingRequests(customer: core.customer).first(where: { $0.id == String(identifier) }) {
        return r.productID
      }
      return store.customer(core.customer)?.transaction(TransactionID(identifier))?.productID
    }
    guard let found else { throw SKTestError(.noTransactionFound, "no transaction with id \(identifier)") }
    return found
  }
}
