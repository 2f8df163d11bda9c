import Foundation
import StoreSim

/// The field names of Apple's wire models that `expect latest` and `expect renewal` read.
enum WireFields {
  /// `JWSTransactionDecodedPayload`.
  static let transaction = [
    "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
    "subscriptionGroupIdentifier",
    "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "type", "appAccountToken", "inAppOwnershipType",
    "signedDate", "revocationReason", "revocationDate", "revocationPercentage", "revocationType", "isUpgraded",
    "offerType",
    "offerIdentifier", "offerDiscountType", "offerPeriod", "environment", "transactionReason", "storefront",
    "storefrontId",
    "price", "currency", "appTransactionId",
  ]
  /// `JWSRenewalInfoDecodedPayload`.
  static let renewalInfo = [
    "autoRenewStatus", "autoRenewProductId", "productId", "expirationIntent", "gracePeriodExpiresDate",
    "isInBillingRetryPeriod", "priceIncreaseStatus", "renewalDate", "recentSubscriptionStartDate",
    "originalTransactionId",
    "offerType", "offerIdentifier", "offerDiscountType", "offerPeriod", "eligibleWinBackOfferIds", "renewalPrice",
    "currency",
    "signedDate", "environment", "appAccountToken", "appTransactionId",
  ]
  /// Apple's `NotificationTypeV2` and `Subtype` values.
  static let notificationTypes = NotificationTypeV2.allCases.map(\.rawValue)
  static let notificationSubtypes = Subtype.allCases.map(\.rawValue)
  /// Fields holding dates (epoch milliseconds on the wire; ISO 8601 in expectations).
  static let dates: Set<String> = [
    "purchaseDate", "originalPurchaseDate", "expiresDate", "signedDate", "revocationDate", "gracePeriodExpiresDate",
    "renewalDate", "recentSubscriptionStartDate",
  ]
}

/// The forms of `expect` and `echo`, the scenario-only lines: their syntax, checks and help.
struct ExpectForm {
  var name: String
  var arguments: String
  var help: String
  /// How many words follow the form name.
  var count: ClosedRange<Int>

  static let all: [ExpectForm] = [
    ExpectForm(
      name: "result", arguments: "purchased|pending|userCancelled|failed", help: "the outcome of the last buy",
      count: 1...1),
    ExpectForm(
      name: "entitled", arguments: "PRODUCT", help: "the product is in Transaction.currentEntitlements", count: 1...1),
    ExpectForm(
      name: "not-entitled", arguments: "PRODUCT", help: "the product is not in the entitlements", count: 1...1),
    ExpectForm(
      name: "state", arguments: "GROUP|PRODUCT STATE",
      help: "the group's renewal state: \(RenewalState.allCases.map(\.rawValue).joined(separator: ", "))", count: 2...2),
    ExpectForm(name: "pending", arguments: "N", help: "open Ask to Buy, interrupted and refund requests", count: 1...1),
    ExpectForm(
      name: "transactions", arguments: "N [--product PRODUCT]", help: "the number of transactions (Transaction.all)",
      count: 1...3),
    ExpectForm(
      name: "latest", arguments: "PRODUCT FIELD VALUE",
      help: "a field of the latest transaction's JSON (absent for an omitted field; dates ISO 8601 or milliseconds)",
      count: 3...3),
    ExpectForm(
      name: "renewal", arguments: "GROUP|PRODUCT FIELD VALUE", help: "a field of the renewal info's JSON", count: 3...3),
    ExpectForm(name: "notification", arguments: "TYPE[/SUBTYPE]", help: "the newest server notification", count: 1...1),
    ExpectForm(
      name: "error", arguments: "TEXT", help: "the previous command failed with a message containing TEXT",
      count: 1...Int.max),
    ExpectForm(name: "now", arguments: "DATE", help: "the virtual clock reads DATE", count: 1...1),
    ExpectForm(
      name: "receipt", arguments: "STATUS [ENDPOINT]",
      help: "the verifyReceipt status (asked at Production or Sandbox)", count: 1...2),
  ]

  static func named(_ name: String) -> ExpectForm? { all.first { $0.name == name } }

  /// `help expect`.
  static var helpText: String {
    var text = """
      OVERVIEW: Check the store in a scenario (.storesim files, 'storesim run' and the shell)

      USAGE: expect <form> [arguments]

      A failed expectation prints file:line: expected ..., got ...; the run goes on and the exit
      code is 1. Every expectation is checked before anything runs: forms, counts, dates and field
      names (against Apple's JWSTransactionDecodedPayload and JWSRenewalInfoDecodedPayload).

      FORMS:

      """
    for form in all {
      text += "  expect \(form.name) \(form.arguments)\n" + HelpText.wrapLine("      \(form.help)") + "\n"
    }
    text += "\nEXAMPLE:\n  expect latest com.example.premium.monthly expiresDate 2026-02-07T00:00:00Z\n"
    return text
  }

  /// `help echo`.
  static let echoHelp = """
    OVERVIEW: Print a line of text (scenarios and the shell only)

    USAGE: echo [text...]

    The words are printed as they are, one space apart, on stdout. Handy to explain a scenario
    as it runs.

    EXAMPLE:
      echo Billing fails from here on

    """

  /// The problem with an `expect` line, or nil. `store` (the scenario's configuration, when its
  /// `init` loaded) lets products and groups be checked by name.
  static func problem(_ words: [String], store: Store?) -> String? {
    guard words.count >= 2 else { return "expect needs a form: \(all.map(\.name).joined(separator: ", "))" }
    guard let form = named(words[1]) else {
      let message = "unknown expectation '\(words[1])'"
      if let near = Suggest.closest(to: words[1], in: all.map(\.name)) { return message + "; did you mean '\(near)'?" }
      return message + "; use one of \(all.map(\.name).joined(separator: ", "))"
    }
    let args = Array(words.dropFirst(2))
    guard form.count.contains(args.count) else {
      return "use 'expect \(form.name) \(form.arguments)'"
    }
    func product(_ id: String) -> String? {
      guard let store, store.configuration.product(id) == nil else { return nil }
      var message = "product '\(id)' is not in the configuration"
      if let near = Suggest.closest(to: id, in: store.configuration.products.map(\.id)) {
        message += "; did you mean '\(near)'?"
      }
      return message
    }
    func groupOrProduct(_ id: String) -> String? {
      guard let store else { return nil }
      if store.configuration.group(named: id) != nil || store.configuration.product(id)?.subscription != nil {
        return nil
      }
      var message = "'\(id)' is neither a subscription group nor an auto-renewable product"
      let names =
        store.configuration.subscriptionGroups.flatMap { [$0.id, $0.name] }
        + store.configuration.products.filter { $0.subscription != nil }.map(\.id)
      if let near = Suggest.closest(to: id, in: names) { message += "; did you mean '\(near)'?" }
      return message
    }
    func field(_ name: String, value: String, in fields: [String], of what: String) -> String? {
      guard fields.contains(name) else {
        var message = "unknown field '\(name)' of \(what)"
        if let near = Suggest.closest(to: name, in: fields) { message += "; did you mean '\(near)'?" }
        return message
      }
      if value == "absent" { return nil }
      if WireFields.dates.contains(name), Int64(value) == nil {
        do { _ = try ValueParsing.date(value) } catch {
          return "\(name) is a date: \((error as? CLIError)?.message ?? "invalid date '\(value)'")"
        }
      }
      return nil
    }
    switch form.name {
    case "result":
      let outcomes = ["purchased", "pending", "userCancelled", "failed"]
      guard outcomes.contains(args[0]) else {
        var message = "unknown purchase result '\(args[0])'"
        if let near = Suggest.closest(to: args[0], in: outcomes) { message += "; did you mean '\(near)'?" }
        return message + "; use purchased, pending, userCancelled or failed"
      }
    case "entitled", "not-entitled":
      return product(args[0])
    case "state":
      if RenewalState(rawValue: args[1]) == nil {
        var message = "unknown state '\(args[1])'"
        if let near = Suggest.closest(to: args[1], in: RenewalState.allCases.map(\.rawValue)) {
          message += "; did you mean '\(near)'?"
        }
        return message + "; use \(RenewalState.allCases.map(\.rawValue).joined(separator: ", "))"
      }
      return groupOrProduct(args[0])
    case "pending":
      if Int(args[0]).map({ $0 >= 0 }) != true { return "expect pending takes a count, not '\(args[0])'" }
    case "transactions":
      if Int(args[0]).map({ $0 >= 0 }) != true { return "expect transactions takes a count, not '\(args[0])'" }
      if args.count > 1 {
        guard args.count == 3, args[1] == "--product" else { return "use 'expect transactions N [--product PRODUCT]'" }
        return product(args[2])
      }
    case "latest":
      return product(args[0])
        ?? field(
          args[1], value: args[2], in: WireFields.transaction, of: "a transaction (JWSTransactionDecodedPayload)")
    case "renewal":
      return groupOrProduct(args[0])
        ?? field(args[1], value: args[2], in: WireFields.renewalInfo, of: "renewal info (JWSRenewalInfoDecodedPayload)")
    case "notification":
      let parts = args[0].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
      for (part, known, what) in [(parts[0], WireFields.notificationTypes, "notification type")]
        + (parts.count > 1 ? [(parts[1], WireFields.notificationSubtypes, "notification subtype")] : [])
      {
        guard !known.contains(part) else { continue }
        var message = "unknown \(what) '\(part)'"
        if let near = Suggest.closest(to: part, in: known) { message += "; did you mean '\(near)'?" }
        return message
      }
      if parts.count > 2 { return "use 'expect notification TYPE[/SUBTYPE]'" }
    case "now":
      do { _ = try ValueParsing.date(args[0]) } catch {
        return (error as? CLIError)?.message ?? "invalid date '\(args[0])'"
      }
    case "receipt":
      if Int(args[0]) == nil { return "expect receipt takes a status number, not '\(args[0])'" }
      if args.count == 2, StoreEnvironment(userInput: args[1]) == nil {
        return "unknown endpoint '\(args[1])'; use Production or Sandbox"
      }
    default:
      break
    }
    return nil
  }
}

/// Checking a scenario before it runs: every command line goes through the command's own
/// argument parsing on a session that stops at the point the command would touch the store.
enum ScenarioCheck {
  /// Thrown by `SessionContext.with` in a checking run: the command got as far as the session.
  struct Reached: Error {}
  /// Thrown by `SessionContext.with` in a checking run before any `init`.
  struct NoSession: Error {}

  /// Commands whose first argument is a product id (unless `--transaction` names it).
  static let productCommands: Set<String> = [
    "buy", "resolve", "cancel", "resume", "expire", "renew", "price-increase", "latest",
  ]

  /// Called by `SessionContext.with` for a checking run: checks the names the command line gives
  /// against the scenario's configuration, then stops the command.
  static func reached(_ inv: Invocation, _ memory: MemorySession) throws -> Never {
    guard let store = memory.store else { throw NoSession() }
    let name = inv.arguments.command ?? ""
    let positionals = inv.arguments.positionals
    var products: [String] = []
    if productCommands.contains(name), inv.arguments.value("transaction") == nil, let first = positionals.first {
      products.append(first)
    }
    if name == "refund", positionals.first == "request", positionals.count > 1, !positionals[1].allSatisfy(\.isNumber) {
      products.append(positionals[1])
    }
    if name == "transactions" || name == "refund", let p = inv.arguments.value("product") { products.append(p) }
    for p in products {
      do { _ = try store.checkedProduct(p) } catch { throw CLIError(error) }
    }
    if name == "buy", let q = inv.arguments.value("quantity"), q != "1", let p = positionals.first,
      let product = store.configuration.product(p), product.type != .consumable && product.type != .nonRenewable
    {
      throw CLIError.usage(
        "--quantity applies to consumables and non-renewing subscriptions; '\(p)' is \(product.type.rawValue.lowercased()) and is bought one at a time"
      )
    }
    if (name == "status" || name == "timeline"), let arg = positionals.first,
      let problem = ExpectForm.problem(["expect", "state", arg, "subscribed"], store: store)
    {
      throw CLIError.notFound(problem)
    }
    throw Reached()
  }

  /// Every error of a scenario file, each with its line, and its lines to run.
  static func check(
    _ text: String, file: String, folder: String, table: CommandTable, environment: CLIEnvironment
  ) -> (lines: [ScenarioLine], errors: [ScenarioFailure]) {
    var lines: [ScenarioLine] = []
    var errors: [ScenarioFailure] = []
    let memory = MemorySession()
    memory.checking = true
    var initFailed = false
    let quiet = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, variables: environment.variables, currentDirectory: folder,
      now: environment.now, isTerminal: false)
    for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = i + 1
      let words: [String]
      do {
        words = try ScriptLineSplitter.split(String(raw))
      } catch {
        errors.append(
          ScenarioFailure(line: number, message: (error as? ScriptLineSplitter.SyntaxError)?.message ?? "bad line"))
        continue
      }
      guard !words.isEmpty else { continue }
      if let problem = ScenarioRunner.lineProblem(words, table: table, store: memory.store) {
        errors.append(ScenarioFailure(line: number, message: problem))
        continue
      }
      lines.append(ScenarioLine(number: number, words: words, text: String(raw)))
      if words[0] == "expect" || words[0] == "echo" { continue }
      do {
        let parsed = try ArgumentScanner.scan(words, commands: table)
        _ = try CLI.dispatch(parsed, environment: quiet, table: table, memory: memory)
      } catch is Reached {
      } catch is NoSession {
        if !initFailed {
          errors.append(
            ScenarioFailure(line: number, message: "no session yet; start the scenario with 'init CONFIG.storekit'"))
          initFailed = true
        }
      } catch let error as CLIError {
        if words[0] == "init" { initFailed = true }
        errors.append(ScenarioFailure(line: number, message: error.message))
      } catch {
        errors.append(ScenarioFailure(line: number, message: String(describing: error)))
      }
    }
    return (lines, errors)
  }
}
