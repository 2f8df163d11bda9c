import Foundation
import StoreSim

let subscriptionCommands: [CommandSpec] = [
  CommandSpec(CancelCommand.self), CommandSpec(ResumeCommand.self), CommandSpec(ExpireCommand.self),
  CommandSpec(RenewCommand.self), CommandSpec(PriceIncreaseCommand.self), CommandSpec(AdvanceCommand.self),
  CommandSpec(RetentionCommand.self),
]

extension CommandConfiguration {
  /// A subscription action on `<product-id>`.
  static func subscriptionAction(_ name: String, _ abstract: String, _ discussion: String) -> CommandConfiguration {
    CommandConfiguration(
      name: name, group: "Subscriptions and time", abstract: abstract, arguments: "<product-id>",
      discussion: discussion, example: "storesim \(name) subscription.pro")
  }
}

/// `storesim cancel PRODUCT`.
struct CancelCommand: ProductActionCommand {
  static let configuration = CommandConfiguration.subscriptionAction(
    "cancel", "Turn auto-renew off (the subscription ends at the period end)",
    "disableAutoRenewForTransaction; during grace or billing retry the subscription ends at once.")

  @OptionGroup var target: ProductOrTransaction

  func act(_ store: inout Store, _ product: ProductID, _ customer: CustomerID) throws -> [StoreEvent] {
    try store.disableAutoRenew(productID: product, customer: customer).events
  }
}

/// `storesim resume PRODUCT`.
struct ResumeCommand: ProductActionCommand {
  static let configuration = CommandConfiguration.subscriptionAction(
    "resume", "Turn auto-renew back on", "enableAutoRenewForTransaction.")

  @OptionGroup var target: ProductOrTransaction

  func act(_ store: inout Store, _ product: ProductID, _ customer: CustomerID) throws -> [StoreEvent] {
    try store.enableAutoRenew(productID: product, customer: customer).events
  }
}

/// `storesim expire PRODUCT`.
struct ExpireCommand: ProductActionCommand {
  static let configuration = CommandConfiguration.subscriptionAction(
    "expire", "Expire a subscription now (expireSubscription)",
    "Turns auto-renew off and ends the current period now (EXPIRED/VOLUNTARY).")

  @OptionGroup var target: ProductOrTransaction

  func act(_ store: inout Store, _ product: ProductID, _ customer: CustomerID) throws -> [StoreEvent] {
    try store.expireSubscription(productID: product, customer: customer).events
  }
}

/// `storesim renew PRODUCT`.
struct RenewCommand: ProductActionCommand {
  static let configuration = CommandConfiguration.subscriptionAction(
    "renew", "Force a renewal now (forceRenewalOfSubscription)",
    "Ends the period now and starts the next one; turns auto-renew on and clears a pending price increase; billing retry is left as it is."
  )

  @OptionGroup var target: ProductOrTransaction

  func act(_ store: inout Store, _ product: ProductID, _ customer: CustomerID) throws -> [StoreEvent] {
    try store.forceRenewal(productID: product, customer: customer).events
  }
}

/// `storesim price-increase PRODUCT request|accept|decline`.
struct PriceIncreaseCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "price-increase", group: "Subscriptions and time",
    abstract: "Request, accept or decline a price increase",
    arguments: "<product-id> request|accept|decline",
    discussion:
      "request: PRICE_INCREASE/PENDING (repeatable); with --price the renewal info's renewalPrice shows the new "
      + "price at once and the first renewal after consent charges it. accept: PRICE_INCREASE/ACCEPTED. decline: "
      + "auto-renew off, voluntary expiry at period end. Ignored consent expires the subscription with "
      + "didNotConsentToPriceIncrease (expirationIntent 3).",
    example: "storesim price-increase subscription.pro request --price 5.99")

  @Arguments(1...2, "action (request, accept or decline)")
  var arguments: [String]
  @OptionGroup var named: TransactionOption

  var transaction: String? { named.transaction }
  @Option(
    "<amount>", help: "request: the new price (renewalPrice shows it; the next renewal after consent charges it)",
    parse: PriceIncreaseCommand.price)
  var price: Decimal?
  @Flag(help: "request: an increase that needs no consent, accepted at once (PRICE_INCREASE/ACCEPTED)")
  var noConsent: Bool

  var configurationReferences: [ConfigurationReference] {
    transaction == nil ? arguments.prefix(1).map { .product($0) } : []
  }

  static func price(_ text: String, _ context: ParseContext) throws -> Decimal {
    guard let p = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), p > 0,
      text.allSatisfy({ $0.isNumber || $0 == "." })
    else {
      throw CLIError.usage("price must be a positive amount like 5.99, not '\(text)'", command: "price-increase")
    }
    return p
  }

  static let actions = ["request", "accept", "decline"]

  /// The shape of the line, checked before anything runs: `--price` and `--no-consent` go with
  /// `request`; a product or `--transaction`; a known action.
  func validate() throws {
    let action = arguments.last!.lowercased()
    if (price != nil || noConsent) && action != "request" {
      throw CLIError.usage("--price and --no-consent go with 'request'", command: "price-increase")
    }
    if let transaction {
      guard arguments.count == 1 else {
        throw CLIError.usage("give a product or --transaction, not both", command: "price-increase")
      }
      _ = try ValueParsing.transactionID(transaction)
    } else if arguments.count != 2 {
      throw CLIError.usage("missing action: request, accept or decline", command: "price-increase")
    }
    guard Self.actions.contains(action) || action == "consent" else {
      throw CLIError.usage(
        Suggest.appending(to: "unknown price-increase action '\(action)'", for: action, in: Self.actions),
        command: "price-increase")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let action = arguments.last!.lowercased()
    return try SessionContext.with(inv, mutating: true) { store in
      let product: ProductID
      if let transaction {
        let id = try ValueParsing.transactionID(transaction)
        guard let t = store.customer(SessionContext.customer(inv))?.transaction(id) else {
          throw StoreError.transactionNotFound(id)
        }
        product = t.productID
      } else {
        product = arguments[0]
      }
      let customer = SessionContext.customer(inv)
      let events: [StoreEvent]
      switch action {
      case "request":
        events = try store.requestPriceIncreaseConsent(
          productID: product, price: price, needsConsent: !noConsent, customer: customer
        ).events
      case "decline": events = try store.declinePriceIncrease(productID: product, customer: customer).events
      default: events = try store.consentToPriceIncrease(productID: product, customer: customer).events
      }
      printEvents(inv, events, store: store)
      return .success
    }
  }
}

/// `storesim advance DURATION | --to DATE | --next`.
struct AdvanceCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "advance", group: "Subscriptions and time",
    abstract: "Move the virtual clock; everything due on the way happens in order",
    arguments: "<duration> | --to <date> | --next",
    discussion:
      "Durations: 30s 15min 2h 3d 1w 1mo 1y (or combined, 1d12h) or ISO 8601 (P1M, PT2H). A bare 'm' is refused as ambiguous. The clock never moves backward.",
    example: "storesim advance 1mo")

  @Arguments(0...1, "duration")
  var arguments: [String]
  @Option("<date>", help: "advance to this ISO 8601 date")
  var to: String?
  @Flag(help: "advance to the next scheduled event")
  var next: Bool

  func run(_ inv: Invocation) throws -> ExitCode {
    let args = arguments
    let modes = [!args.isEmpty, to != nil, next].filter { $0 }.count
    guard modes == 1 else {
      throw CLIError.usage("give exactly one of a duration, --to DATE or --next", command: "advance")
    }
    if let text = args.first, text.range(of: #"^\d{4}-\d{2}-\d{2}"#, options: .regularExpression) != nil {
      throw CLIError.usage("'\(text)' looks like a date; use 'advance --to DATE'", command: "advance")
    }
    let duration = try args.first.map(ValueParsing.duration)
    let to = try self.to.map { try ValueParsing.date($0, note: inv.warning) }
    return try SessionContext.with(inv, mutating: true) { store in
      let target: Date
      if let duration, let text = args.first {
        target = try ValueParsing.date(duration, after: store.now, text: text)
      } else if let to {
        target = to
      } else if let next = store.nextEventDate {
        target = max(next, store.now)
      } else {
        inv.emit(json: .object(["now": .int(store.now.epochMilliseconds), "events": .array([])])) {
          inv.out("nothing is scheduled")
          inv.out("now \(ISO8601.string(store.now))")
        }
        return .success
      }
      try WorkLimits.checkAdvance(store, to: target, asked: args.first ?? self.to ?? "--next")
      try streamAdvance(inv, &store, to: target)
      return .success
    }
  }
}

/// Advances the clock, writing each event as it happens (the output is held on disk past a few
/// megabytes, not in memory), and stops when Ctrl-C asks the shell to.
func streamAdvance(_ inv: Invocation, _ store: inout Store, to target: Date) throws {
  var first = true
  if inv.printsJSON { inv.writeJSON("{\n  \"events\": [", terminated: false) }
  let finished = try store.advance(to: target) { (events: inout [StoreEvent]) -> Bool in
    for event in events {
      if inv.printsJSON {
        inv.writeJSON(
          (first ? "\n    " : ",\n    ") + Render.eventJSON(event).rendered(pretty: true, indent: 2), terminated: false)
        first = false
      }
      if inv.printsText, let line = Render.event(event) { inv.environment.writeOut(line + "\n") }
    }
    events.removeAll(keepingCapacity: true)
    return !Interrupt.requested
  }
  guard finished else { throw CLIError.failed("interrupted") }
  let now = store.now.epochMilliseconds
  if inv.printsJSON { inv.writeJSON((first ? "]" : "\n  ]") + ",\n  \"now\": \(now)\n}\n", terminated: false) }
  if inv.printsText { inv.out("now \(ISO8601.string(store.now))") }
}
