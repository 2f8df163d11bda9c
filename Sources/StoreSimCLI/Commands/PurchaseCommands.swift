import Foundation
import StoreSim

let purchaseCommands: [CommandSpec] = [
  CommandSpec(BuyCommand.self), CommandSpec(ApproveCommand.self), CommandSpec(DeclineCommand.self),
  CommandSpec(ResolveCommand.self), CommandSpec(FinishCommand.self), CommandSpec(RefundCommand.self),
  CommandSpec(RestoreCommand.self), CommandSpec(ConsentCommand.self),
]

/// Prints events as text lines (nothing under --json; the caller prints its own JSON).
func reportEvents(_ inv: Invocation, _ events: [StoreEvent], store: Store) {
  if inv.printsText, !events.isEmpty { inv.out(Render.events(events)) }
}

/// Prints events as text lines, or as `{"events": [...]}` under --json; `ifNone` is the text
/// line for no events.
func printEvents(_ inv: Invocation, _ events: [StoreEvent], store: Store, ifNone: String? = nil) {
  inv.emit(json: .object(["events": .array(events.map(Render.eventJSON))])) {
    if events.isEmpty, let ifNone {
      inv.out(ifNone)
    } else {
      reportEvents(inv, events, store: store)
    }
  }
}

/// `--transaction ID`: a product named by one of the customer's transactions, declared once.
struct TransactionOption: OptionGroupDeclaration {
  @Option("<id>", help: "name the product by one of its transactions")
  var transaction: String?
}

/// `<product-id>` or `--transaction ID`: the product a product action acts on.
struct ProductOrTransaction: OptionGroupDeclaration {
  @Arguments(0...1, "product id")
  var arguments: [String]
  @OptionGroup var named: TransactionOption

  var transaction: String? { named.transaction }
}

/// A command on one product, named by `<product-id>` or `--transaction`: act, then print the
/// events. The conforming struct declares `@OptionGroup var target: ProductOrTransaction`.
protocol ProductActionCommand: CommandLineCommand {
  /// The product id or `--transaction ID`.
  var target: ProductOrTransaction { get }
  /// The text line when nothing happened.
  static var ifNone: String? { get }
  /// The change on the store.
  func act(_ store: inout Store, _ product: ProductID, _ customer: CustomerID) throws -> [StoreEvent]
}

extension ProductActionCommand {
  static var ifNone: String? { "no change" }

  var configurationReferences: [ConfigurationReference] {
    target.transaction == nil ? target.arguments.prefix(1).map { .product($0) } : []
  }

  /// A product or `--transaction ID`, not both and not neither.
  func validate() throws {
    let command = Self.configuration.name
    if let transaction = target.transaction {
      guard target.arguments.isEmpty else {
        throw CLIError.usage("give a product or --transaction, not both", command: command)
      }
      _ = try ValueParsing.transactionID(transaction)
    } else if target.arguments.isEmpty {
      throw CLIError.usage("missing product id (or --transaction ID)", command: command)
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    try SessionContext.with(inv, mutating: true) { store in
      let product = try productArgument(
        target.arguments, transaction: target.transaction, store, SessionContext.customer(inv),
        command: Self.configuration.name)
      let events = try act(&store, product, SessionContext.customer(inv))
      printEvents(inv, events, store: store, ifNone: Self.ifNone)
      return .success
    }
  }
}

/// Transactions as JSON payloads or a text table.
func printTransactions(_ inv: Invocation, _ list: [Transaction], store: Store, customer: CustomerID) {
  inv.emit(json: .array(list.map { store.payload($0, customer: customer) }), line: Render.transactions(list))
}

/// `approve` and `decline`: the answer to an Ask to Buy request.
protocol AskToBuyAnswerCommand: CommandLineCommand {
  /// The positional arguments: none or the request id.
  var arguments: [String] { get }
  static var approve: Bool { get }
}

extension AskToBuyAnswerCommand {
  static func answerConfiguration(approve: Bool) -> CommandConfiguration {
    let name = approve ? "approve" : "decline"
    return CommandConfiguration(
      name: name, group: "Purchases",
      abstract: approve
        ? "Approve an Ask to Buy request (the newest without an id)"
        : "Decline an Ask to Buy request (the newest without an id)",
      arguments: "[<request-id>]",
      discussion: approve
        ? "The transaction is created now and delivered through Transaction.updates."
        : "Nothing is delivered to the app and no notification is sent.",
      example: "storesim \(name)")
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let id = arguments.first
    let approve = Self.approve
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
        inv.emit(
          json: .object([
            "result": .string("purchased"), "requestId": .string(requestID), "productId": .string(product),
            "transaction": store.payload(t, customer: t.sharedFrom ?? SessionContext.customer(inv)),
          ])
        ) {
          inv.out("approved   request \(requestID) for \(product): transaction \(t.id)")
          reportEvents(inv, events, store: store)
        }
      } else {
        let events = try store.declineAskToBuyTransaction(identifier: id).events
        // The event line names the request and product: "Ask to Buy request 1 for P declined".
        inv.emit(
          json: .object(["result": .string("declined"), "requestId": .string(requestID), "productId": .string(product)])
        ) { reportEvents(inv, events, store: store) }
      }
      return .success
    }
  }
}

/// `storesim approve [REQUEST]`.
struct ApproveCommand: AskToBuyAnswerCommand {
  static let configuration = answerConfiguration(approve: true)
  static let approve = true
  @Arguments(0...1, "request id")
  var arguments: [String]
}

/// `storesim decline [REQUEST]`.
struct DeclineCommand: AskToBuyAnswerCommand {
  static let configuration = answerConfiguration(approve: false)
  static let approve = false
  @Arguments(0...1, "request id")
  var arguments: [String]
}

/// A product argument, or the product of `--transaction ID`.
func productArgument(
  _ positionals: [String], transaction: String?, _ store: Store, _ customer: CustomerID, command: String
) throws -> ProductID {
  if let text = transaction {
    let id = try ValueParsing.transactionID(text)
    guard let t = store.customer(customer)?.transaction(id) else { throw StoreError.transactionNotFound(id) }
    if !positionals.isEmpty {
      throw CLIError.usage("give a product or --transaction, not both", command: command)
    }
    return t.productID
  }
  guard let p = positionals.first else {
    throw CLIError.usage("missing product id (or --transaction ID)", command: command)
  }
  return p
}

/// `storesim resolve PRODUCT`.
struct ResolveCommand: ProductActionCommand {
  static let configuration = CommandConfiguration(
    name: "resolve", group: "Purchases",
    abstract: "Resolve an interrupted purchase or a billing issue (resolveIssueForTransaction)",
    arguments: "<product-id>",
    discussion:
      "Completes an interrupted purchase, or recovers a subscription in grace or billing retry (DID_RENEW/BILLING_RECOVERY); the new transaction arrives on Transaction.updates.",
    example: "storesim resolve subscription.pro")
  static let ifNone: String? = nil

  @OptionGroup var target: ProductOrTransaction

  func act(_ store: inout Store, _ product: ProductID, _ customer: CustomerID) throws -> [StoreEvent] {
    try store.resolveIssue(productID: product, customer: customer).events
  }
}

/// `storesim finish TRANSACTION | --all`.
struct FinishCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "finish", group: "Purchases",
    abstract: "Finish a transaction (Transaction.finish()) or all of them",
    arguments: "<transaction-id> | --all",
    example: "storesim finish --all")

  @Arguments(0...1, "transaction id")
  var arguments: [String]
  @Flag(help: "finish every unfinished transaction of the customer")
  var all: Bool

  /// A transaction id or `--all`, not both and not neither.
  func validate() throws {
    if all {
      guard arguments.isEmpty else {
        throw CLIError.usage("give a transaction id or --all, not both", command: "finish")
      }
    } else {
      guard let text = arguments.first else {
        throw CLIError.usage("missing transaction id (or --all)", command: "finish")
      }
      _ = try ValueParsing.transactionID(text)
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let args = arguments
    return try SessionContext.with(inv, mutating: true) { store in
      let customer = SessionContext.customer(inv)
      if all {
        let n = try store.finishAll(customer: customer).value
        inv.emit(json: .object(["finished": .int(Int64(n))]), line: "finished \(n) transaction\(n == 1 ? "" : "s")")
      } else {
        let id = try ValueParsing.transactionID(args[0])
        try store.finish(id, customer: customer)
        inv.emit(json: .object(["finished": .int(1)]), line: "finished transaction \(id)")
      }
      return .success
    }
  }
}

/// `storesim restore`.
struct RestoreCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "restore", group: "Purchases",
    abstract: "StoreKit 1 restore: list restorable transactions",
    discussion:
      "Lists the non-consumables and auto-renewable subscription transactions a restore would deliver with state 'restored' (not refunded).",
    example: "storesim restore")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv) { store, customer in
      let list = store.allTransactions(customer: customer).filter {
        ($0.productType == .nonConsumable || $0.productType == .autoRenewable) && !$0.isRevoked
      }
      printTransactions(inv, list, store: store, customer: customer)
      return .success
    }
  }
}
