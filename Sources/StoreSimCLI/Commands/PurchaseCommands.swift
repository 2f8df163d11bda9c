import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

let purchaseCommands: [CommandSpec] = [
  buyCommand, approveCommand, declineCommand, resolveCommand, finishCommand, refundCommand, restoreCommand,
]

/// Prints events as text lines (nothing under --json; the caller prints its own JSON).
func reportEvents(_ inv: Invocation, _ events: [StoreEvent], store: Store) {
  if !inv.json, !events.isEmpty { inv.out(Render.events(events)) }
}

/// Prints events as text lines, or as `{"events": [...]}` under --json; `ifNone` is the text
/// line for no events.
func printEvents(_ inv: Invocation, _ events: [StoreEvent], store: Store, ifNone: String? = nil) {
  if inv.json {
    inv.printJSON(.object(["events": .array(events.map(Render.eventJSON))]))
  } else if events.isEmpty, let ifNone {
    inv.out(ifNone)
  } else {
    reportEvents(inv, events, store: store)
  }
}

/// The run of a command on one product (`<product-id>` or `--transaction`): act, then print the events.
func productAction<Value: Sendable>(
  _ command: String, ifNone: String? = nil,
  _ act: @escaping @Sendable (inout Store, ProductID, CustomerID) throws -> Outcome<Value>
) -> @Sendable (inout Invocation) throws -> ExitCode {
  { inv in
    _ = try inv.positionals(0...1, "product id")
    return try SessionContext.with(inv, mutating: true) { store in
      let product = try productArgument(inv, store, command: command)
      let events = try act(&store, product, SessionContext.customer(inv)).events
      printEvents(inv, events, store: store, ifNone: ifNone)
      return .success
    }
  }
}

/// Transactions as JSON payloads or a text table.
func printTransactions(_ inv: Invocation, _ list: [Transaction], store: Store, customer: CustomerID) {
  if inv.json {
    inv.printJSON(.array(list.map { store.payload($0, customer: customer) }))
  } else {
    inv.out(Render.transactions(list))
  }
}

let buyCommand = CommandSpec(
  name: "buy", group: "Purchases",
  abstract: "Buy a product (upgrades, downgrades and crossgrades too)",
  arguments: "<product-id>",
  options: [
    OptionSpec(name: "quantity", value: "<n>", help: "1 to 10 (consumables and non-renewing subscriptions)"),
    OptionSpec(name: "app-account-token", value: "<uuid>", help: "the appAccountToken purchase option"),
    OptionSpec(name: "offer", value: "<offer>", help: "intro, promotional:ID, code:REFERENCE or win-back:ID"),
    OptionSpec(name: "cancel", value: nil, help: "the customer dismisses the sheet (userCancelled)"),
    OptionSpec(name: "at", value: "<date>", help: "back-date the purchase; renewals are filled in up to now"),
  ],
  discussion: """
    Prints the outcome: purchased (a transaction), pending (an Ask to Buy or interrupted
    request id; exit 0), userCancelled (exit 1), or failed (an error name; exit 1). Buying an
    owned non-consumable or the active plan returns the existing transaction ('already
    purchased', 'already subscribed'). Buying another plan of a subscribed group is an upgrade
    (now), or a downgrade or different-duration crossgrade at the next renewal ('scheduled NEW
    from DATE'). --quantity is refused for non-consumables and auto-renewables.
    """,
  example: "storesim buy subscription.pro --offer intro",
  run: { inv in
    let productID = try inv.positionals(1...1, "product id")[0]
    let options = try purchaseOptions(inv)
    let at = try inv.arguments.value("at").map { try ValueParsing.date($0, note: inv.warning) }
    return try SessionContext.with(inv, mutating: true) { store in
      let customer = SessionContext.customer(inv)
      try checkQuantity(options, of: productID, in: store)
      let outcome = try store.purchase(
        productID, options: options, customer: customer, cancel: inv.arguments.has("cancel"), at: at)
      inv.memory?.lastPurchaseResult = outcome.value.name
      let report = PurchaseReport(outcome, productID: productID, store: store, customer: customer)
      if inv.json {
        inv.printJSON(.object(report.json))
      } else {
        inv.out(TerminalText.field(report.line))
        let other = outcome.events.filter {
          if case .transactionCreated(_, _, .purchaseResult) = $0.kind { return false }
          if case .askToBuyRequested = $0.kind { return false }
          return true
        }
        reportEvents(inv, other, store: store)
      }
      return purchaseExitCode(inv, outcome.value, productID: productID)
    }
  })

/// `--quantity`, `--app-account-token` and `--offer`, checked in that order.
private func purchaseOptions(_ inv: Invocation) throws -> PurchaseOptions {
  var options = PurchaseOptions()
  if let q = inv.arguments.value("quantity") {
    guard let n = Int(q) else { throw CLIError.usage("quantity must be a whole number, not '\(q)'", command: "buy") }
    options.quantity = n
  }
  if let token = inv.arguments.value("app-account-token") {
    guard let uuid = UUID(uuidString: token) else {
      throw CLIError.usage("app account token '\(token)' is not a UUID", command: "buy")
    }
    options.appAccountToken = uuid
  }
  if let offer = inv.arguments.value("offer") {
    guard let o = OfferRequest(userInput: offer) else {
      throw CLIError.usage(
        "invalid offer '\(offer)'; use intro, promotional:ID, code:REFERENCE or win-back:ID", command: "buy")
    }
    options.offer = o
  }
  return options
}

/// (rule quantity-only-for-consumables-and-non-renewing)
private func checkQuantity(_ options: PurchaseOptions, of productID: ProductID, in store: Store) throws {
  if options.quantity != 1, let product = store.configuration.product(productID),
    product.type != .consumable && product.type != .nonRenewable
  {
    throw CLIError.usage(
      "--quantity applies to consumables and non-renewing subscriptions; '\(productID)' is \(product.type.rawValue.lowercased()) and is bought one at a time",
      command: "buy")
  }
}

/// What `buy` prints for a purchase's result: one text line, or the fields of its JSON object.
private struct PurchaseReport {
  var json: [String: JSONOutput]
  var line: String

  init(_ outcome: Outcome<PurchaseResult>, productID: ProductID, store: Store, customer: CustomerID) {
    json = ["result": .string(outcome.value.name)]
    switch outcome.value {
    case .success(let t, let verification):
      line = ""
      transaction(
        t, verification: verification, outcome: outcome, productID: productID, store: store, customer: customer)
    case .pending(let id):
      json["requestId"] = .string(id)
      line = "pending    request \(id) for \(productID)"
    case .userCancelled:
      line = "userCancelled"
    case .failed(let error):
      json["error"] = .string(error.description)
      line = "failed     \(error)"
    }
  }

  /// A transaction: scheduled for the next renewal, already owned, or newly purchased.
  private mutating func transaction(
    _ t: Transaction, verification: SimulatedError?, outcome: Outcome<PurchaseResult>, productID: ProductID,
    store: Store, customer: CustomerID
  ) {
    json["transaction"] = store.payload(t, customer: customer)
    if let verification { json["verificationError"] = .string(verification.description) }
    let created = outcome.events.contains {
      if case .transactionCreated(let id, _, _) = $0.kind { return id == t.id }
      return false
    }
    if t.productID != productID {
      // A downgrade or crossgrade at the next renewal: the current plan stays until then.
      let when = t.expirationDate.map(ISO8601.string) ?? "the next renewal"
      json["scheduledChange"] = .object([
        "productId": .string(productID), "fromProductId": .string(t.productID),
        "effectiveDate": t.expirationDate.map { .int($0.epochMilliseconds) } ?? .null,
      ])
      line =
        "scheduled  \(productID)  from \(when), when \(t.productID) renews  (transaction \(t.id) of \(t.productID) stays until then)"
    } else if !created {
      json["alreadyOwned"] = .bool(true)
      let what = t.productType == .autoRenewable ? "already subscribed" : "already purchased"
      line = "\(what)  \(t.productID)  transaction \(t.id)"
      if let e = t.expirationDate { line += "  expires \(ISO8601.string(e))" }
      line += "  (no new purchase)"
    } else {
      line = "purchased  \(t.productID)  transaction \(t.id)  \(Render.price(t))"
      if let e = t.expirationDate { line += "  expires \(ISO8601.string(e))" }
      let notes = Render.flags(t)
      if !notes.isEmpty { line += "  (\(notes))" }
    }
    if let verification { line += "  unverified: \(verification)" }
  }
}

/// Failed and cancelled purchases say so on stderr and exit 1.
private func purchaseExitCode(_ inv: Invocation, _ result: PurchaseResult, productID: ProductID) -> ExitCode {
  switch result {
  case .failed(let error):
    inv.err("error: purchase of '\(productID)' failed: \(error)")
    return .failure
  case .userCancelled:
    inv.err("error: purchase of '\(productID)' did not go through: the customer cancelled")
    return .failure
  case .success, .pending:
    return .success
  }
}

func askToBuyCommand(_ name: String, approve: Bool) -> CommandSpec {
  CommandSpec(
    name: name, group: "Purchases",
    abstract: approve
      ? "Approve an Ask to Buy request (the newest without an id)"
      : "Decline an Ask to Buy request (the newest without an id)",
    arguments: "[<request-id>]",
    discussion: approve
      ? "The transaction is created now and delivered through Transaction.updates."
      : "Nothing is delivered to the app and no notification is sent.",
    example: "storesim \(name)",
    run: { inv in
      let id = try inv.positionals(0...1, "request id").first
      return try SessionContext.with(inv, mutating: true) { store in
        // The request answered, found before the answer removes it (the newest without an id).
        let request = store.state.pendingRequests.last { $0.kind == .askToBuy && (id == nil || $0.id == id) }
        let requestID = request?.id ?? id ?? ""
        let product = request?.productID ?? ""
        if request == nil, let id, let n = Int(id), n >= 1, n < store.state.nextRequestNumber {
          throw CLIError.failed(
            "request \(id) is no longer pending: it was answered already, or it is not an Ask to Buy request")
        }
        if approve {
          let approved = try store.approveAskToBuyTransaction(identifier: id)
          let (t, events) = (approved.value, approved.events)
          if inv.json {
            inv.printJSON(
              .object([
                "result": .string("purchased"), "requestId": .string(requestID), "productId": .string(product),
                "transaction": store.payload(t, customer: t.sharedFrom ?? SessionContext.customer(inv)),
              ]))
          } else {
            inv.out("approved   request \(requestID) for \(product): transaction \(t.id)")
            reportEvents(inv, events, store: store)
          }
        } else {
          let events = try store.declineAskToBuyTransaction(identifier: id).events
          if inv.json {
            inv.printJSON(
              .object(["result": .string("declined"), "requestId": .string(requestID), "productId": .string(product)]))
          } else {
            // The event line names the request and product: "Ask to Buy request 1 for P declined".
            reportEvents(inv, events, store: store)
          }
        }
        return .success
      }
    })
}

let approveCommand = askToBuyCommand("approve", approve: true)
let declineCommand = askToBuyCommand("decline", approve: false)

/// A product argument, or the product of `--transaction ID`.
func productArgument(_ inv: Invocation, _ store: Store, command: String) throws -> ProductID {
  if let text = inv.arguments.value("transaction") {
    let id = try ValueParsing.transactionID(text)
    let customer = SessionContext.customer(inv)
    guard let t = store.customer(customer)?.transaction(id) else { throw CLIError(StoreError.transactionNotFound(id)) }
    if !inv.arguments.positionals.isEmpty {
      throw CLIError.usage("give a product or --transaction, not both", command: command)
    }
    return t.productID
  }
  guard let p = inv.arguments.positionals.first else {
    throw CLIError.usage("missing product id (or --transaction ID)", command: command)
  }
  return p
}

let transactionOption = OptionSpec(
  name: "transaction", value: "<id>", help: "name the product by one of its transactions")

let resolveCommand = CommandSpec(
  name: "resolve", group: "Purchases",
  abstract: "Resolve an interrupted purchase or a billing issue (resolveIssueForTransaction)",
  arguments: "<product-id>",
  options: [transactionOption],
  discussion:
    "Completes an interrupted purchase, or recovers a subscription in grace or billing retry (DID_RENEW/BILLING_RECOVERY); the new transaction arrives on Transaction.updates.",
  example: "storesim resolve subscription.pro",
  run: productAction("resolve") { try $0.resolveIssue(productID: $1, customer: $2) })

let finishCommand = CommandSpec(
  name: "finish", group: "Purchases",
  abstract: "Finish a transaction (Transaction.finish()) or all of them",
  arguments: "<transaction-id> | --all",
  options: [OptionSpec(name: "all", value: nil, help: "finish every unfinished transaction of the customer")],
  example: "storesim finish --all",
  run: { inv in
    let args = try inv.positionals(0...1, "transaction id")
    return try SessionContext.with(inv, mutating: true) { store in
      let customer = SessionContext.customer(inv)
      if inv.arguments.has("all") {
        guard args.isEmpty else { throw CLIError.usage("give a transaction id or --all, not both", command: "finish") }
        let n = try store.finishAll(customer: customer).value
        inv.out(
          inv.json
            ? JSONOutput.object(["finished": .int(Int64(n))]).rendered()
            : "finished \(n) transaction\(n == 1 ? "" : "s")")
      } else {
        guard let text = args.first else {
          throw CLIError.usage("missing transaction id (or --all)", command: "finish")
        }
        let id = try ValueParsing.transactionID(text)
        try store.finish(id, customer: customer)
        inv.out(inv.json ? JSONOutput.object(["finished": .int(1)]).rendered() : "finished transaction \(id)")
      }
      return .success
    }
  })

let refundActions = ["request", "approve", "decline", "reverse"]

let refundCommand = CommandSpec(
  name: "refund", group: "Purchases",
  abstract: "Refund a transaction at once, or request a refund and answer it later",
  arguments:
    "<transaction-id> | --product <id> | request <transaction-id|product-id> | approve <request-id> | decline <request-id> | reverse <transaction-id>",
  options: [
    OptionSpec(
      name: "reason", value: "<reason>",
      help:
        "refund and approve: developer-issue or other (default); request: unintended-purchase, fulfillment-issue, unsatisfied-with-purchase, legal or other (default)"
    ),
    OptionSpec(name: "product", value: "<id>", help: "refund the latest transaction of this product, finished or not"),
  ],
  discussion: """
    refund TXN (refundTransaction) is approved at once: revocationDate and revocationReason are
    set and the transaction leaves the entitlements (REFUND). Refunding the current period of a
    subscription revokes it; family members who lose access get REVOKE.
    request: the customer asks; the request waits (see 'pending'). A consumable or
    auto-renewable sends CONSUMPTION_REQUEST with consumptionRequestReason; for an
    auto-renewable the App Store also turns auto-renew off (DID_CHANGE_RENEWAL_STATUS).
    approve REQUEST: REFUND, as refund TXN. decline REQUEST: REFUND_DECLINED.
    reverse TXN: REFUND_REVERSED; the revocation fields are removed and access returns until
    the same renewal date.
    """,
  example: """
    storesim refund 2000000000000001 --reason developer-issue
      storesim refund request consumable.fuel.octane87 --reason unintended-purchase
      storesim refund approve 3
      storesim refund decline 3
      storesim refund reverse 2000000000000001
    """,
  run: { inv in
    let args = try inv.positionals(0...2, "transaction id")
    if let action = args.first, refundActions.contains(action) {
      return try refundAction(inv, action, Array(args.dropFirst()))
    }
    guard args.count <= 1 else {
      throw CLIError.usage(
        Suggest.appending(
          to: "unknown refund action '\(args[0])'", for: args[0], in: refundActions,
          otherwise: "unexpected argument '\(args[1])'"),
        command: "refund")
    }
    let given = args.first
    let byProduct = inv.arguments.value("product")
    guard (given == nil) != (byProduct == nil) else {
      throw CLIError.usage(
        given == nil ? "missing transaction id (or --product ID)" : "give a transaction id or --product, not both",
        command: "refund")
    }
    let reason = try revocationReason(inv)
    return try refunding(inv) { store, customer in
      let id: TransactionID
      if let given {
        id = try ValueParsing.transactionID(given)
      } else {
        id = try latestRefundable(byProduct!, store: store, customer: customer)
      }
      return RefundChange(id: id, events: try store.refund(id, reason: reason, customer: customer).events)
    }
  })

func revocationReason(_ inv: Invocation) throws -> RevocationReason {
  guard let text = inv.arguments.value("reason") else { return .other }
  guard let r = RevocationReason(userInput: text) else {
    throw CLIError.usage("unknown refund reason '\(text)'; use developer-issue or other", command: "refund")
  }
  return r
}

/// The latest transaction the customer bought of a product, finished or not.
func latestRefundable(_ productID: ProductID, store: Store, customer: CustomerID) throws -> TransactionID {
  _ = try store.checkedProduct(productID)
  guard let t = store.latestPurchasedTransaction(of: productID, customer: customer) else {
    throw CLIError.failed("no transaction for '\(productID)' to refund")
  }
  return t.id
}

/// What a refund command changed: the transaction, the events, and the fields `--json` adds.
struct RefundChange {
  var id: TransactionID
  var events: [StoreEvent]
  var extra: [String: JSONOutput] = [:]
}

/// Runs a refund change on the session and prints it: the transaction (under --json, from
/// whichever customer holds it) and the events.
func refunding(
  _ inv: Invocation, _ change: (inout Store, CustomerID) throws -> RefundChange
) throws -> ExitCode {
  try SessionContext.with(inv, mutating: true) { store in
    let customer = SessionContext.customer(inv)
    let done = try change(&store, customer)
    if inv.json {
      let owner = store.customerIDs.first { store.customer($0)?.transaction(done.id) != nil } ?? customer
      var json = done.extra
      if let t = store.customer(owner)?.transaction(done.id) { json["transaction"] = store.payload(t, customer: owner) }
      json["events"] = .array(done.events.map(Render.eventJSON))
      inv.printJSON(.object(json))
    } else {
      reportEvents(inv, done.events, store: store)
    }
    return .success
  }
}

/// `refund request|approve|decline|reverse`.
func refundAction(_ inv: Invocation, _ action: String, _ rest: [String]) throws -> ExitCode {
  guard rest.count == 1 else {
    let what =
      action == "request"
      ? "transaction id or product id" : action == "reverse" ? "transaction id" : "refund request id"
    if rest.isEmpty { throw CLIError.usage("missing \(what) after '\(action)'", command: "refund") }
    throw CLIError.usage("unexpected argument '\(rest[1])'", command: "refund")
  }
  if inv.arguments.value("product") != nil {
    throw CLIError.usage("--product is not an option of 'refund \(action)'", command: "refund")
  }
  switch action {
  case "request": return try requestRefund(inv, rest[0])
  case "approve", "decline": return try answerRefundRequest(inv, rest[0], approve: action == "approve")
  default: return try reverseRefund(inv, rest[0])
  }
}

/// `refund request TXN|PRODUCT` (rule refund-requests-wait-for-an-answer).
private func requestRefund(_ inv: Invocation, _ target: String) throws -> ExitCode {
  var reason = ConsumptionRequestReason.other
  if let text = inv.arguments.value("reason") {
    guard let r = ConsumptionRequestReason(userInput: text) else {
      throw CLIError.usage(
        "unknown refund request reason '\(text)'; use unintended-purchase, fulfillment-issue, unsatisfied-with-purchase, legal or other",
        command: "refund")
    }
    reason = r
  }
  return try refunding(inv) { store, customer in
    let id: TransactionID
    if target.allSatisfy(\.isNumber) {
      id = try ValueParsing.transactionID(target)
    } else {
      id = try latestRefundable(target, store: store, customer: customer)
    }
    let requested = try store.requestRefund(id, reason: reason, customer: customer)
    let (request, events) = (requested.value, requested.events)
    if !inv.json {
      inv.out("refund request \(request.id) for transaction \(id) (\(request.productID)): waiting for the App Store")
    }
    return RefundChange(
      id: id,
      events: events.filter {
        if case .refundRequested = $0.kind { return inv.json }
        return true
      }, extra: ["requestId": .string(request.id), "consumptionRequestReason": .string(reason.rawValue)])
  }
}

/// `refund approve|decline REQUEST`.
private func answerRefundRequest(_ inv: Invocation, _ requestID: String, approve: Bool) throws -> ExitCode {
  if !approve, inv.arguments.value("reason") != nil {
    throw CLIError.usage("--reason is not an option of 'refund decline'", command: "refund")
  }
  let reason = try revocationReason(inv)
  return try refunding(inv) { store, _ in
    let answered =
      approve ? try store.approveRefundRequest(requestID, reason: reason) : try store.declineRefundRequest(requestID)
    return RefundChange(
      id: answered.value, events: answered.events,
      extra: ["requestId": .string(requestID), "result": .string(approve ? "refunded" : "declined")])
  }
}

/// `refund reverse TXN` (rule refund-reversal-restores-access).
private func reverseRefund(_ inv: Invocation, _ target: String) throws -> ExitCode {
  if inv.arguments.value("reason") != nil {
    throw CLIError.usage("--reason is not an option of 'refund reverse'", command: "refund")
  }
  let id = try ValueParsing.transactionID(target)
  return try refunding(inv) { store, customer in
    RefundChange(id: id, events: try store.reverseRefund(id, customer: customer).events)
  }
}

let restoreCommand = CommandSpec(
  name: "restore", group: "Purchases",
  abstract: "StoreKit 1 restore: list restorable transactions",
  discussion:
    "Lists the non-consumables and auto-renewable subscription transactions a restore would deliver with state 'restored' (not refunded).",
  example: "storesim restore",
  run: { inv in
    try inspecting(inv, 0...0, "") { store, customer, _, _ in
      let list = store.allTransactions(customer: customer).filter {
        ($0.productType == .nonConsumable || $0.productType == .autoRenewable) && !$0.isRevoked
      }
      printTransactions(inv, list, store: store, customer: customer)
      return .success
    }
  })
