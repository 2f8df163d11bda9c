import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

/// Where commands find the session they act on, and the load–act–save cycle.
enum SessionContext {
  /// The session file path as the user wrote it: `--session`, `$STORESIM_SESSION`, or
  /// `.storesim/session.json`.
  static func path(_ inv: Invocation) -> String {
    inv.globals.session ?? inv.environment.variables["STORESIM_SESSION"] ?? ".storesim/session.json"
  }

  /// The acting customer.
  static func customer(_ inv: Invocation) -> CustomerID {
    inv.globals.customer.map { CustomerID($0) } ?? .default
  }

  /// The catalogue and settings of the current session.
  static func catalogue(_ inv: Invocation) throws -> (StoreConfiguration, StoreKitSettings) {
    var result: (StoreConfiguration, StoreKitSettings)?
    _ = try with(inv, mutating: false) { store in
      result = (store.configuration, store.settings)
      return .success
    }
    return result!
  }

  /// Loads the session under its lock, runs `body`, and saves when `mutating` and the state
  /// changed. Nothing is saved when `body` throws. A reading command that never looks at notifications says `needsNotifications: false`, and
  /// the outbox is then not decoded (on a large session it is most of the file).
  static func with(
    _ inv: Invocation, mutating: Bool, needsNotifications: Bool = true, _ body: (inout Store) throws -> ExitCode
  ) throws -> ExitCode {
    if let memory = inv.memory {
      if memory.checking { try ScenarioCheck.reached(inv, memory) }
      guard var store = memory.store else {
        throw CLIError.noInput("no session yet; start the scenario with 'init CONFIG.storekit'")
      }
      // Taken out of the session while the command runs: a second reference would make the
      // first change copy the whole state, on every line of a scenario.
      memory.store = nil
      defer { memory.store = store }
      try ensureCustomer(inv, &store, mutating: mutating)
      let count = store.notifications.count
      let code = try body(&store)
      if mutating { autoDeliver(inv, &store, since: count) }
      return code
    }
    let location = try SessionLocation(shown: path(inv), environment: inv.environment)
    var planned: PlannedDeliveries?
    let code = try locked(
      inv, location, mutating: mutating, needsNotifications: needsNotifications, planned: &planned, body)
    if let planned, !planned.isEmpty { try deliver(inv, location, planned) }
    return code
  }

  /// `with(inv, mutating: true)` for `populate`: `body` is also given an `OutboxFile` to write
  /// the store's notifications out to as they are made (`OutboxFile.take(from:)`), saved in their
  /// places; nil for a session kept in memory (a scenario's, or one serve's control API keeps),
  /// whose store outlives the command and must keep its notifications.
  static func writingOutNotifications(
    _ inv: Invocation, _ body: (inout Store, OutboxFile?) throws -> ExitCode
  ) throws -> ExitCode {
    guard inv.memory == nil, case let location = try SessionLocation(shown: path(inv), environment: inv.environment),
      inv.environment.keptSessions?.entry(location.file) == nil
    else {
      return try with(inv, mutating: true) { try body(&$0, nil) }
    }
    let written = OutboxFile(beside: location)
    var planned: PlannedDeliveries?
    let code = try locked(
      inv, location, mutating: true, needsNotifications: true, written: written, planned: &planned
    ) { try body(&$0, written) }
    if let planned, !planned.isEmpty { try deliver(inv, location, planned) }
    return code
  }

  /// The load–act–save cycle under the session's lock (`SessionWork`), with the command line's
  /// refusals: no session file. Deliveries the command causes
  /// are planned under the lock and made after it is let go.
  private static func locked(
    _ inv: Invocation, _ location: SessionLocation, mutating: Bool, needsNotifications: Bool,
    written: OutboxFile? = nil, planned: inout PlannedDeliveries?, _ body: (inout Store) throws -> ExitCode
  ) throws -> ExitCode {
    guard FileManager.default.fileExists(atPath: location.file) else {
      throw CLIError.noInput("no session at \(location.shown); start one with 'storesim init CONFIG.storekit'")
    }
    let (code, plan) = try unit(
      inv, location, mutating: mutating, needsNotifications: needsNotifications, written: written,
      prepare: { try ensureCustomer(inv, &$0, mutating: mutating) },
      { try body(&$0) },
      plan: { store, count in
        mutating ? Delivery.planned(store, since: count, skip: selfDelivered(inv)) : nil
      })
    planned = plan
    return code
  }
}

extension SessionContext {
  /// Whether the command's new notifications are not delivered as they happen: `notifications`
  /// delivers by itself, `import` records notifications Apple already sent, and `populate` makes
  /// a population's history at once (posting it all to a receiver would be a flood).
  static func selfDelivered(_ inv: Invocation) -> Bool {
    ["notifications", "import", "populate"].contains(inv.command)
  }

  /// Delivers notifications emitted by a command on an in-memory session (scenarios, shell
  /// without a file) when `settings deliver-url` is set.
  static func autoDeliver(_ inv: Invocation, _ store: inout Store, since count: Int) {
    let planned = Delivery.planned(store, since: count, skip: selfDelivered(inv))
    warnUndelivered(inv, Delivery.deliver(planned) { record in record(&store) })
  }

  /// Delivers what a command planned on the session file (`Delivery.deliver`: posted with no
  /// lock held, then recorded by a short unit of work), warning of each failed attempt.
  @discardableResult
  static func deliver(
    _ inv: Invocation, _ location: SessionLocation, _ planned: PlannedDeliveries, warnFailed: Bool = true
  ) throws -> [NotificationDelivery] {
    let records = try Delivery.deliver(planned) { record in
      try unit(inv, location, mutating: true, needsNotifications: true) {
        record(&$0)
      } plan: { _, _ in
        ()
      }.value
    }
    if warnFailed { warnUndelivered(inv, records) }
    return records
  }

  /// One unit of work on a session file (`SessionWork.perform`), over the store kept between
  /// commands when the environment keeps this session (`KeptSessions`: serve's control API).
  private static func unit<Value, Plan>(
    _ inv: Invocation, _ location: SessionLocation, mutating: Bool, needsNotifications: Bool,
    written: OutboxFile? = nil, prepare: (inout Store) throws -> Void = { _ in },
    _ body: (inout Store) throws -> Value,
    plan: (_ store: Store, _ notificationsBefore: Int) -> Plan
  ) throws -> (value: Value, plan: Plan) {
    let work = SessionWork(location: location, warn: inv.warning)
    guard let entry = inv.environment.keptSessions?.entry(location.file) else {
      return try work.perform(
        mutating: mutating, needsNotifications: needsNotifications, written: written, prepare: prepare, body,
        plan: plan)
    }
    precondition(written == nil, "a kept session's store keeps its notifications")
    if mutating { try AtomicFile.checkWritable(location) }
    return try entry.kept.withLock { kept in
      try work.perform(
        keeping: &kept, mutating: mutating, needsNotifications: needsNotifications, durable: entry.durable,
        prepare: prepare, body, plan: plan)
    }
  }

  static func warnUndelivered(_ inv: Invocation, _ records: [NotificationDelivery]) {
    for line in Delivery.undeliveredWarnings(records) { inv.warning(line) }
  }

  /// Mutating commands create an unknown `--customer`; reading ones refuse it.
  static func ensureCustomer(_ inv: Invocation, _ store: inout Store, mutating: Bool) throws {
    let customer = customer(inv)
    guard !store.hasCustomer(customer) else { return }
    let known = store.customerIDs.map(\.rawValue)
    guard mutating else {
      throw CLIError.refusedArgument(
        Suggest.appending(to: "no customer named '\(customer)'", for: customer.rawValue, in: known))
    }
    inv.err(Suggest.appending(to: "note: new customer '\(customer)'", for: customer.rawValue, in: known))
    _ = try? store.addCustomer(customer)
  }
}

/// The session of a scenario run or shell: lives in memory, never touches a session file.
final class MemorySession {
  var store: Store?
  /// The outcome name of the last `buy`.
  var lastPurchaseResult: String?
  /// The error of the previous command, for `expect error`.
  var lastError: (line: Int, message: String)?
  /// A command error not yet answered by `expect error` or `expect result`.
  var unexpectedError: (line: Int, message: String)?
  /// The shell: a failed command is reported at once instead of awaiting an expectation.
  var isInteractive = false
  /// A scenario being checked before it runs: commands stop where they would touch the store.
  var checking = false
  /// `run --environment`: overrides the environment of every `init`.
  var environmentOverride: StoreEnvironment?
  /// Set by an `init` without `--start`: the session started on the wall clock.
  var startedOnWallClock = false
  /// The developer server of a `respond` line, stopped when the session ends.
  var responder: HTTPServer?
  /// The notification receiver a `respond --notifications` line started.
  var receiver: HTTPServer?

  deinit {
    responder?.stop()
    receiver?.stop()
  }
}
