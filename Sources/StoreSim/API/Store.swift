import Foundation

/// A simulated App Store: a configuration, settings, a virtual clock and customers.
///
/// `Store` is a value. Every mutating call either succeeds and returns the events it caused, or
/// throws a `StoreError` and leaves the state exactly as it was. Method names follow
/// `SKTestSession` and StoreKit 2. Nothing here reads the wall clock, the file system or prints.
public struct Store: Sendable {
  /// The whole state; compare it, encode it, restore it with `init(state:)`.
  public internal(set) var state: StoreState
  var customerIndex: [String: Int]
  var events: [StoreEvent] = []
  /// Due deadlines, derived from the state (never saved); stale entries are skipped on pop.
  var schedule = DueQueue()
  /// Where `warm` leaves what it read, so the reads are not optimised away.
  var warmed: UInt64 = 0
  /// The storefront of `settings`, looked up once per settings change.
  var storefront: Storefront = .usa

  /// The default customer's name.
  public static let defaultCustomer = "default"

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
    appendCustomer(Self.defaultCustomer)
  }

  /// Restores a session from a saved state.
  public init(state: StoreState) {
    self.state = state
    customerIndex = Dictionary(state.customers.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
    storefront = Self.storefront(of: state.settings)
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

  /// Replaces the catalogue (the configuration file was edited), keeping history and settings.
  public mutating func replaceConfiguration(_ configuration: StoreConfiguration) {
    state.configuration = configuration
  }

  // MARK: Customers

  /// Customer names in creation order.
  public var customerNames: [String] { state.customers.map(\.name) }

  /// Adds a customer.
  @discardableResult
  public mutating func addCustomer(_ name: String) throws(StoreError) -> [StoreEvent] {
    guard customerIndex[name] == nil else { throw .customerExists(name) }
    appendCustomer(name)
    return []
  }

  /// Whether a customer exists.
  public func hasCustomer(_ name: String) -> Bool { customerIndex[name] != nil }

  mutating func appendCustomer(_ name: String) {
    customerIndex[name] = state.customers.count
    let number = state.customers.count + 1
    state.customers.append(
      Customer(
        name: name, transactions: [], subscriptions: [], introductoryOfferUsedGroups: [],
        familyID: nil, appTransactionID: String(704_000_000_000_000_000 + UInt64(number))))
  }

  func index(of customer: String) throws(StoreError) -> Int {
    guard let i = customerIndex[customer] else { throw .customerNotFound(customer) }
    return i
  }

  /// A customer's record.
  public func customer(_ name: String = Store.defaultCustomer) -> Customer? {
    customerIndex[name].map { state.customers[$0] }
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

  mutating func emit(_ customer: Int, _ kind: consuming StoreEvent.Kind) {
    events.append(
      StoreEvent(date: state.now, customer: customer >= 0 ? state.customers[customer].name : "", kind: kind))
  }

  /// Runs a mutation and collects its events.
  ///
  /// Every command validates everything that can throw before it changes anything, so a thrown
  /// `StoreError` leaves the state exactly as it was without copying it first (a copy would cost
  /// time in proportion to the whole session on every command). The misuse tests hold each
  /// command to this.
  mutating func atomically<T>(_ body: (inout Store) throws(StoreError) -> T) throws(StoreError) -> (T, [StoreEvent]) {
    events = []
    events.reserveCapacity(16)
    do {
      let result = try body(&self)
      let produced = events
      events = []
      return (result, produced)
    } catch {
      events = []
      throw error
    }
  }
}
