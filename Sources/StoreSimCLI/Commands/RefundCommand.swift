import Foundation
import StoreSim

let refundActions = ["request", "approve", "decline", "reverse"]

/// `storesim refund`: at once, or requested and answered later.
struct RefundCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "refund", group: "Purchases",
    abstract: "Refund a transaction at once, or request a refund and answer it later",
    arguments:
      "<transaction-id> | --product <id> | request <transaction-id|product-id> | approve <request-id> | decline <request-id> | reverse <transaction-id>",
    discussion: """
      refund TXN (refundTransaction) is approved at once: revocationDate and revocationReason are
      set and the transaction leaves the entitlements (REFUND). A whole refund carries
      revocationType REFUND_FULL and revocationPercentage 100000; --percent P makes it
      REFUND_PRORATED with revocationPercentage P x 1000 (access ends all the same). Refunding the
      current period of a subscription revokes it; family members who lose access get REVOKE
      (revocationType FAMILY_REVOKE).
      request: the customer asks; the request waits (see 'pending'). A consumable or
      auto-renewable sends CONSUMPTION_REQUEST with consumptionRequestReason; for an
      auto-renewable the App Store also turns auto-renew off (DID_CHANGE_RENEWAL_STATUS).
      approve REQUEST: REFUND, as refund TXN. decline REQUEST: REFUND_DECLINED.
      reverse TXN: REFUND_REVERSED; the revocation fields are removed and access returns until
      the same renewal date.
      """,
    example: """
      storesim refund 2000000000000001 --reason developer-issue
        storesim refund 2000000000000001 --percent 40
        storesim refund request consumable.fuel.octane87 --reason unintended-purchase
        storesim refund approve 3
        storesim refund decline 3
        storesim refund reverse 2000000000000001
      """)

  @Arguments(0...2, "transaction id")
  var arguments: [String]
  @Option(
    "<reason>",
    help:
      "refund and approve: developer-issue or other (default); request: unintended-purchase, fulfillment-issue, unsatisfied-with-purchase, legal or other (default)"
  )
  var reason: String?
  @Option("<id>", help: "refund the latest transaction of this product, finished or not")
  var product: String?
  @Option(
    "<percent>",
    help:
      "refund and approve: a prorated refund of this share, more than 0 and less than 100, up to three decimals (REFUND_PRORATED; revocationPercentage P x 1000)",
    parse: RefundCommand.percentage)
  var percent: UInt64?

  /// `--percent P` as milliunits of a percent (`40` → 40000, `67.932` → 67932).
  static func percentage(_ text: String, _ context: ParseContext) throws -> UInt64 {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    let digits = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 >= "0" && $0 <= "9" } }
    guard digits, parts.count <= 2, parts[0].count <= 3, parts.count == 1 || parts[1].count <= 3,
      let whole = UInt64(parts[0])
    else {
      throw CLIError.usage(
        "refund percentage must be a number like 40 or 67.932 (at most three decimals), not '\(text)'",
        command: "refund")
    }
    let fraction = parts.count == 2 ? UInt64(parts[1].padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0 : 0
    let milliunits = whole * 1000 + fraction
    guard milliunits > 0, milliunits < 100_000 else {
      throw CLIError.usage(
        "refund percentage must be more than 0 and less than 100, not '\(text)' (a whole refund needs no --percent)",
        command: "refund")
    }
    return milliunits
  }

  var configurationReferences: [ConfigurationReference] {
    var names: [ConfigurationReference] = []
    if arguments.first == "request", arguments.count > 1, !arguments[1].allSatisfy(\.isNumber) {
      names.append(.product(arguments[1]))
    }
    if let product { names.append(.product(product)) }
    return names
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let args = arguments
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
    let byProduct = product
    guard (given == nil) != (byProduct == nil) else {
      throw CLIError.usage(
        given == nil ? "missing transaction id (or --product ID)" : "give a transaction id or --product, not both",
        command: "refund")
    }
    let reason = try revocationReason()
    let givenID = try given.map(ValueParsing.transactionID)
    return try refunding(inv) { store, customer in
      let id: TransactionID
      if let givenID {
        id = givenID
      } else {
        id = try latestRefundable(byProduct!, store: store, customer: customer)
      }
      return RefundChange(
        id: id, events: try store.refund(id, reason: reason, percentage: percent, customer: customer).events)
    }
  }

  func revocationReason() throws -> RevocationReason {
    guard let text = reason else { return .other }
    guard let r = RevocationReason(userInput: text) else {
      throw CLIError.usage(
        Suggest.orValues("unknown refund reason '\(text)'", for: text, in: ["developer-issue", "other"]),
        command: "refund")
    }
    return r
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
    if product != nil {
      throw CLIError.usage("--product is not an option of 'refund \(action)'", command: "refund")
    }
    if percent != nil, action != "approve" {
      throw CLIError.usage("--percent is not an option of 'refund \(action)'", command: "refund")
    }
    switch action {
    case "request": return try requestRefund(inv, rest[0])
    case "approve", "decline": return try answerRefundRequest(inv, rest[0], approve: action == "approve")
    default: return try reverseRefund(inv, rest[0])
    }
  }

  /// `refund request TXN|PRODUCT` (rule refund-requests-wait-for-an-answer).
  private func requestRefund(_ inv: Invocation, _ target: String) throws -> ExitCode {
    var requestReason = ConsumptionRequestReason.other
    if let text = reason {
      guard let r = ConsumptionRequestReason(userInput: text) else {
        throw CLIError.usage(
          Suggest.orValues(
            "unknown refund request reason '\(text)'", for: text,
            in: ["unintended-purchase", "fulfillment-issue", "unsatisfied-with-purchase", "legal", "other"]),
          command: "refund")
      }
      requestReason = r
    }
    let targetID = target.allSatisfy(\.isNumber) ? try ValueParsing.transactionID(target) : nil
    return try refunding(inv) { store, customer in
      let id: TransactionID
      if let targetID {
        id = targetID
      } else {
        id = try latestRefundable(target, store: store, customer: customer)
      }
      let requested = try store.requestRefund(id, reason: requestReason, customer: customer)
      let (request, events) = (requested.value, requested.events)
      // The text's first line stands for the request's event.
      return RefundChange(
        id: id, events: events,
        extra: ["requestId": .string(request.id), "consumptionRequestReason": .string(requestReason.rawValue)],
        line: "refund request \(request.id) for transaction \(id) (\(request.productID)): waiting for the App Store",
        textEvents: events.filter {
          if case .refundRequested = $0.kind { return false }
          return true
        })
    }
  }

  /// `refund approve|decline REQUEST`.
  private func answerRefundRequest(_ inv: Invocation, _ requestID: String, approve: Bool) throws -> ExitCode {
    if !approve, reason != nil {
      throw CLIError.usage("--reason is not an option of 'refund decline'", command: "refund")
    }
    let reason = try revocationReason()
    return try refunding(inv) { store, _ in
      let answered =
        approve
        ? try store.approveRefundRequest(requestID, reason: reason, percentage: percent)
        : try store.declineRefundRequest(requestID)
      return RefundChange(
        id: answered.value, events: answered.events,
        extra: ["requestId": .string(requestID), "result": .string(approve ? "refunded" : "declined")])
    }
  }

  /// `refund reverse TXN` (rule refund-reversal-restores-access).
  private func reverseRefund(_ inv: Invocation, _ target: String) throws -> ExitCode {
    if reason != nil {
      throw CLIError.usage("--reason is not an option of 'refund reverse'", command: "refund")
    }
    let id = try ValueParsing.transactionID(target)
    return try refunding(inv) { store, customer in
      RefundChange(id: id, events: try store.reverseRefund(id, customer: customer).events)
    }
  }
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
  /// The text's first line, if any, and the events the text shows (all, when nil).
  var line: String? = nil
  var textEvents: [StoreEvent]? = nil

  /// The `--json` output: the transaction from whichever customer holds it, and the events.
  func json(_ store: Store, customer: CustomerID) -> JSONOutput {
    let owner = store.customerIDs.first { store.customer($0)?.transaction(id) != nil } ?? customer
    var json = extra
    if let t = store.customer(owner)?.transaction(id) { json["transaction"] = store.payload(t, customer: owner) }
    json["events"] = .array(events.map(Render.eventJSON))
    return .object(json)
  }
}

/// Runs a refund change on the session and prints it: the transaction (under --json, from
/// whichever customer holds it) and the events.
func refunding(
  _ inv: Invocation, _ change: (inout Store, CustomerID) throws -> RefundChange
) throws -> ExitCode {
  try SessionContext.with(inv, mutating: true) { store in
    let customer = SessionContext.customer(inv)
    let done = try change(&store, customer)
    inv.emit(json: done.json(store, customer: customer)) {
      if let line = done.line { inv.out(line) }
      reportEvents(inv, done.textEvents ?? done.events, store: store)
    }
    return .success
  }
}
