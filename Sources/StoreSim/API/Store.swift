import Foundation

/// A simulated App Store: a configuration, settings, a virtual clock and customers.
///
/// `Store` is a value. Every mutating call either succeeds and returns an `Outcome`: its value
/// (`PurchaseResult`, `Transaction`, `RefundRequest`…, or `()` when there is nothing to return)
/// and the events it caused, in order; or it throws a `StoreError` and leaves the state exactly
/// as it was. The one exception is `advance(to:streaming:)`, which hands events to a sink as they
/// happen. Customers are named by `CustomerID`; calls without `customer:` act for
/// `CustomerID.default`. Method names follow `SKTestSession` and StoreKit 2. Nothing here reads
/// the wall clock, the file system or prints.
///
/// ```swift
/// var store = Store(configuration: configuration, start: start)
/// let bought = try store.purchase("monthly")
/// let transaction = try #require(bought.transaction)
/// try store.finish(transaction.id)
/// let renewed = try store.advance(by: 31 * 86_400)
/// #expect(renewed.notificationNames == ["DID_RENEW"])
/// ```
public struct Store: Sendable {
  /// The whole state; compare it, encode it, restore it with `init(state:)`.
  public internal(set) var state: StoreState
  var customerIndex: [CustomerID: CustomerHandle]
  var events: [StoreEvent] = []
  /// Due deadlines, derived from the state (never saved); stale entries are skipped on pop.
  var schedule = DueQueue()
  /// The storefront of `settings`, looked up once per settings change.
  var storefront: Storefront = .usa
  /// Per customer (by position in `state.customers`): transactions by product, finished prefix.
  var transactionIndex: [TransactionIndex] = []
  /// Who holds each transaction id (an own purchase or a family member's copy).
  var transactionOwners: [TransactionID: CustomerHandle] = [:]
  /// The members of each Family Sharing group, in customer order (derived, never saved), so a
  /// family's event does not look at every customer of a large population.
  var familyIndex: [String: [CustomerHandle]] = [:]

  /// A new session over a configuration, starting at `start`.
  public init(
    configuration: StoreConfiguration, start: Date, bundleID: String = "com.example.app",
    environment: StoreEnvironment = .xcode
  ) {
    let start = Date(epochMilliseconds: start.epochMilliseconds)
    state = StoreState(
      configuration: configuration, settings: configuration.settings, now: start, startDate: start,
      bundleID: bundleID, environment: environment, customers: [], pendingRequests: [],
      notifications: [], nextTransactionID: 2_000_000_000_000_001,
      nextWebOrderLineItemID: 2_000_000_100_000_001, nextRequestNumber: 1)
    customerIndex = [:]
    storefront = Self.storefront(of: state.settings)
    appendCustomer(.default)
  }

  /// Restores a session from a saved state.
  public init(state: StoreState) {
    self.state = state
    customerIndex = Dictionary(
      state.customers.enumerated().map { ($1.id, CustomerHandle(index: $0)) }, uniquingKeysWith: { a, _ in a })
    storefront = Self.storefront(of: state.settings)
    rebuildTransactionIndex()
    rebuildFamilyIndex()
    rebuildSchedule()
  }

  /// The configuration.
  public var configuration: StoreConfiguration { state.configuration }

  /// The virtual date.
  public var now: Date { state.now }

  /// The settings in force (`SKTestSession` properties); setting them changes future behaviour.
  public var settings: StoreKitSettings {
    get { state.settings }
    set {
      state.settings = newValue
      storefront = Self.storefront(of: newValue)
    }
  }

  /// Notifications emitted so far.
  public var notifications: [ServerNotification] { state.notifications }

  /// The newest notification, if any (`lastNotification?.name` is e.g. `"DID_RENEW"`).
  public var lastNotification: ServerNotification? { state.notifications.last }

  /// Replaces the catalogue (the configuration file was edited), keeping history and settings.
  @discardableResult
  public mutating func replaceConfiguration(_ configuration: StoreConfiguration) -> Outcome<Void> {
    state.configuration = configuration
    return Outcome(events: [])
  }

  // MARK: Customers

  /// Customers in creation order.
  public var customerIDs: [CustomerID] { state.customers.map(\.id) }

  /// Adds a customer.
  @discardableResult
  public mutating func addCustomer(_ id: CustomerID) throws(StoreError) -> Outcome<Void> {
    guard customerIndex[id] == nil else { throw .customerExists(id) }
    appendCustomer(id)
    return Outcome(events: [])
  }

  /// Whether a customer exists.
  public func hasCustomer(_ id: CustomerID) -> Bool { customerIndex[id] != nil }

  mutating func appendCustomer(_ id: CustomerID) {
    customerIndex[id] = CustomerHandle(index: state.customers.count)
    transactionIndex.append(TransactionIndex())
    let number = state.customers.count + 1
    state.customers.append(
      Customer(
        id: id, transactions: [], subscriptions: [], introductoryOfferUsedGroups: [],
        familyID: nil, appTransactionID: String(704_000_000_000_000_000 + UInt64(number))))
  }

  func index(of customer: CustomerID) throws(StoreError) -> CustomerHandle {
    guard let i = customerIndex[customer] else { throw .customerNotFound(customer) }
    return i
  }

  /// A customer's record.
  public func customer(_ id: CustomerID = .default) -> Customer? {
    customerIndex[id].map { state.customers[$0] }
  }

  // MARK: Catalogue

  func product(_ id: ProductID) throws(StoreError) -> Product {
    guard let p = state.configuration.product(id) else {
      let ids = state.configuration.products.map(\.id)
      throw .productNotFound(id, suggestion: Self.closest(id, in: ids))
    }
    return p
  }

  static func closest(_ input: String, in candidates: [String]) -> String? {
    Suggestion.closest(to: input, in: candidates)
  }

  /// The product with this id, or `productNotFound` with a suggestion.
  public func checkedProduct(_ id: ProductID) throws(StoreError) -> Product {
    try product(id)
  }

  static func storefront(of settings: StoreKitSettings) -> Storefront {
    Storefront.named(settings.storefront) ?? .usa
  }

  // MARK: Ids and events

  mutating func newTransactionID() -> TransactionID {
    defer { state.nextTransactionID += 1 }
    return state.nextTransactionID
  }

  mutating func newWebOrderLineItemID() -> UInt64 {
    defer { state.nextWebOrderLineItemID += 1 }
    return state.nextWebOrderLineItemID
  }

  mutating func emit(_ customer: CustomerHandle?, _ kind: consuming StoreEvent.Kind) {
    events.append(
      StoreEvent(date: state.now, customer: customer.map { state.customers[$0].id }, kind: kind))
  }

  /// Runs a mutation and collects its events.
  ///
  /// Every command validates everything that can throw before it changes anything, so a thrown
  /// `StoreError` leaves the state exactly as it was without copying it first (a copy would cost
  /// time in proportion to the whole session on every command). The misuse tests hold each
  /// command to this.
  mutating func atomically<T, Failure: Error>(
    _ body: (inout Store) throws(Failure) -> T
  ) throws(Failure) -> Outcome<T> {
    events = []
    events.reserveCapacity(16)
    do {
      let result = try body(&self)
      let produced = events
      events = []
      return Outcome(value: result, events: produced)
    } catch {
      events = []
      throw error
    }
  }
}
