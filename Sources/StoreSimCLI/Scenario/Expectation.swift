import Foundation
import StoreSim
import StoreSimServer

/// One `expect` line of a scenario or the shell, parsed once from its words
/// (`Expectation.parse`) and checked against the session by `failure(in:)`.
enum Expectation {
  /// `expect result purchased|pending|userCancelled|failed`: the outcome of the last buy.
  case result(PurchaseResultName)
  /// `expect entitled PRODUCT`: the product is in `Transaction.currentEntitlements`.
  case entitled(ProductID)
  /// `expect not-entitled PRODUCT`.
  case notEntitled(ProductID)
  /// `expect state GROUP|PRODUCT STATE`: the group's renewal state.
  case state(String, RenewalState)
  /// `expect pending N`: open Ask to Buy, interrupted and refund requests.
  case pending(Written<Int>)
  /// `expect transactions N [--product PRODUCT]`: `Transaction.all`'s count.
  case transactions(Written<Int>, product: ProductID?)
  /// `expect latest PRODUCT FIELD VALUE`: a field of the latest transaction's JSON.
  case latest(ProductID, field: String, value: String)
  /// `expect renewal GROUP|PRODUCT FIELD VALUE`: a field of the renewal info's JSON.
  case renewal(String, field: String, value: String)
  /// `expect notification TYPE[/SUBTYPE]`: the newest server notification.
  case notification(NotificationTypeV2, Subtype?)
  /// `expect error TEXT`: the previous command failed with a message containing the text.
  case error(String)
  /// `expect now DATE`: the virtual clock.
  case now(Written<Date>)
  /// `expect receipt STATUS [ENDPOINT]`: the verifyReceipt status.
  case receipt(Written<Int>, endpoint: StoreEnvironment?)
  /// `expect retention FIELD VALUE`: the customer's last Retention Messaging request.
  case retention(field: RetentionField, value: String)
  /// `expect delivery FIELD VALUE`: the newest notification's delivery attempts.
  case delivery(field: DeliveryField, value: String)

  /// The forms without their values: each one's name, arguments, help and word count, the one
  /// place `help expect`, completions, errors and the README check read them from.
  enum Kind: String, CaseIterable {
    case result, entitled
    case notEntitled = "not-entitled"
    case state, pending, transactions, latest, renewal, notification, error, now, receipt, retention, delivery

    var name: String { rawValue }

    var arguments: String {
      switch self {
      case .result: return PurchaseResultName.allCases.map(\.rawValue).joined(separator: "|")
      case .entitled, .notEntitled: return "PRODUCT"
      case .state: return "GROUP|PRODUCT STATE"
      case .pending: return "N"
      case .transactions: return "N [--product PRODUCT]"
      case .latest: return "PRODUCT FIELD VALUE"
      case .renewal: return "GROUP|PRODUCT FIELD VALUE"
      case .notification: return "TYPE[/SUBTYPE]"
      case .error: return "TEXT"
      case .now: return "DATE"
      case .receipt: return "STATUS [ENDPOINT]"
      case .retention, .delivery: return "FIELD VALUE"
      }
    }

    var help: String {
      switch self {
      case .result: return "the outcome of the last buy"
      case .entitled: return "the product is in Transaction.currentEntitlements"
      case .notEntitled: return "the product is not in the entitlements"
      case .state:
        return "the group's renewal state: \(RenewalState.allCases.map(\.rawValue).joined(separator: ", "))"
      case .pending: return "open Ask to Buy, interrupted and refund requests"
      case .transactions: return "the number of transactions (Transaction.all)"
      case .latest:
        return
          "a field of the latest transaction's JSON (absent for an omitted field; dates ISO 8601 or milliseconds; "
          + "prices in milliunits: price 9990 is 9.99)"
      case .renewal: return "a field of the renewal info's JSON (renewalPrice in milliunits, as latest)"
      case .notification: return "the newest server notification"
      case .error: return "the previous command failed with a message containing TEXT"
      case .now: return "the virtual clock reads DATE"
      case .receipt: return "the verifyReceipt status (asked at Production or Sandbox)"
      case .retention:
        return "the last 'retention' request: " + RetentionField.allCases.map(\.help).joined(separator: "; ")
      case .delivery:
        return "the newest notification's delivery: " + DeliveryField.allCases.map(\.help).joined(separator: "; ")
      }
    }

    /// How many words follow the form's name.
    var wordCount: ClosedRange<Int> {
      switch self {
      case .state: return 2...2
      case .transactions: return 1...3
      case .latest, .renewal: return 3...3
      case .retention, .delivery: return 2...2
      case .error: return 1...Int.max
      case .receipt: return 1...2
      case .result, .entitled, .notEntitled, .pending, .notification, .now: return 1...1
      }
    }

    /// The form with its arguments, as the fix of an error gives it.
    var usage: ScenarioProblem { ScenarioProblem("write '\(form)'") }

    /// `expect FORM ARGUMENTS [--customer NAME]`, as `help expect` and the README show it.
    var form: String { "expect \(name) \(arguments)" + (takesCustomer ? " [--customer NAME]" : "") }

    /// Whether the form checks a customer's store (`--customer`, default the default customer).
    var takesCustomer: Bool {
      self != .error && self != .now && self != .notification && self != .result && self != .delivery
    }

    /// The words after the form's name, as the form names them (`GROUP|PRODUCT`, `STATE`).
    var argumentNames: [String] {
      arguments.split(separator: " ").map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
    }

    /// The problem of a line with too few or too many words: which word, and the form.
    func wordCountProblem(_ args: [String]) -> ScenarioProblem {
      if args.count > wordCount.upperBound {
        return ScenarioProblem(
          "unexpected word '\(args[wordCount.upperBound])' after 'expect \(name) "
            + args.prefix(wordCount.upperBound).joined(separator: " ") + "'; write '\(form)'")
      }
      let missing = argumentNames.indices.contains(args.count) ? argumentNames[args.count] : "a value"
      return ScenarioProblem("'expect \(name)' is missing \(missing); write '\(form)'")
    }

    /// Whether the form answers a failed command before it (`expect error`, `expect result`).
    var answersFailure: Bool { self == .error || self == .result }
  }

  var kind: Kind {
    switch self {
    case .result: return .result
    case .entitled: return .entitled
    case .notEntitled: return .notEntitled
    case .state: return .state
    case .pending: return .pending
    case .transactions: return .transactions
    case .latest: return .latest
    case .renewal: return .renewal
    case .notification: return .notification
    case .error: return .error
    case .now: return .now
    case .receipt: return .receipt
    case .retention: return .retention
    case .delivery: return .delivery
    }
  }

}

/// Why a scenario or shell line cannot be read: the message after `file:line: error: `.
struct ScenarioProblem: Error, Equatable {
  var message: String
  init(_ message: String) { self.message = message }
}

/// A purchase's outcome as `expect result` names it: `Product.PurchaseResult`'s cases, and
/// `failed` for a purchase that threw (`PurchaseResult.name` in the core).
enum PurchaseResultName: String, CaseIterable {
  case purchased, pending, userCancelled, failed
}

/// A value with the text the scenario wrote for it: checks use the value, messages the text.
struct Written<Value> {
  var value: Value
  var text: String
}

// MARK: - Parsing

extension Expectation {
  /// Reads an `expect` line (`words[0]` is `expect`). `store` (the scenario's configuration,
  /// once its `init` loaded) lets products and groups be checked by name.
  static func parse(_ words: [String], store: Store?) throws(ScenarioProblem) -> Expectation {
    try parseLine(words, store: store).expectation
  }

  /// Reads an `expect` line with its `--customer NAME` (anywhere after the form; the default
  /// customer without it).
  static func parseLine(
    _ words: [String], store: Store?
  ) throws(ScenarioProblem) -> (expectation: Expectation, customer: CustomerID) {
    let kind = try kind(of: words)
    var args = Array(words.dropFirst(2))
    var customer = CustomerID.default
    if let i = args.firstIndex(where: { $0 == "--customer" || $0.hasPrefix("--customer=") }) {
      guard kind.takesCustomer else {
        throw ScenarioProblem("'expect \(kind.name)' takes no --customer; write '\(kind.form)'")
      }
      if args[i] == "--customer" {
        guard i + 1 < args.count, !args[i + 1].isEmpty else {
          throw ScenarioProblem("--customer needs a name; write '\(kind.form)'")
        }
        customer = CustomerID(args[i + 1])
        args.removeSubrange(i...(i + 1))
      } else {
        customer = CustomerID(String(args[i].dropFirst("--customer=".count)))
        args.remove(at: i)
      }
    }
    return (try parse(kind, args, store: store), customer)
  }

  private static func parse(_ kind: Kind, _ args: [String], store: Store?) throws(ScenarioProblem) -> Expectation {
    guard kind.wordCount.contains(args.count) else { throw kind.wordCountProblem(args) }
    let names = ConfigurationNames(store: store)
    switch kind {
    case .result:
      return .result(try purchaseResult(args[0]))
    case .entitled:
      return .entitled(try names.product(args[0]))
    case .notEntitled:
      return .notEntitled(try names.product(args[0]))
    case .state:
      let state = try renewalState(args[1])
      return .state(try names.groupOrProduct(args[0]), state)
    case .pending:
      return .pending(try count(args[0], of: kind))
    case .transactions:
      let count = try count(args[0], of: kind)
      guard args.count > 1 else { return .transactions(count, product: nil) }
      guard args[1] == "--product" else {
        throw ScenarioProblem(
          "unexpected word '\(args[1])' after 'expect transactions \(args[0])'; write '\(kind.form)'")
      }
      guard args.count == 3 else { throw ScenarioProblem("--product needs a product id; write '\(kind.form)'") }
      return .transactions(count, product: try names.product(args[2]))
    case .latest:
      let product = try names.product(args[0])
      try WireFields.check(args[1], value: args[2], in: WireFields.transaction, of: WireFields.transactionModel)
      return .latest(product, field: args[1], value: args[2])
    case .renewal:
      let subject = try names.groupOrProduct(args[0])
      try WireFields.check(args[1], value: args[2], in: WireFields.renewalInfo, of: WireFields.renewalInfoModel)
      return .renewal(subject, field: args[1], value: args[2])
    case .notification:
      let (type, subtype) = try notification(args[0], usage: kind.usage)
      return .notification(type, subtype)
    case .error:
      return .error(args.joined(separator: " "))
    case .now:
      return .now(try date(args[0]))
    case .receipt:
      return .receipt(try status(args[0]), endpoint: try args.count == 2 ? endpoint(args[1]) : nil)
    case .retention:
      guard let field = RetentionField(rawValue: args[0]) else {
        throw ScenarioProblem(
          Suggest.orValues(
            "unknown retention field '\(args[0])'", for: args[0], in: RetentionField.allCases.map(\.rawValue)))
      }
      if field == .requests, Int(args[1]) == nil {
        throw ScenarioProblem("expect retention requests takes a count, not '\(args[1])'")
      }
      return .retention(field: field, value: args[1])
    case .delivery:
      guard let field = DeliveryField(rawValue: args[0]) else {
        throw ScenarioProblem(
          Suggest.orValues(
            "unknown delivery field '\(args[0])'", for: args[0], in: DeliveryField.allCases.map(\.rawValue)))
      }
      if [.attempts, .duplicates].contains(field), Int(args[1]) == nil {
        throw ScenarioProblem("expect delivery \(field.rawValue) takes a count, not '\(args[1])'")
      }
      return .delivery(field: field, value: args[1])
    }
  }

  /// The form a line names, or the problem: no form, or an unknown one.
  private static func kind(of words: [String]) throws(ScenarioProblem) -> Kind {
    let names = Kind.allCases.map(\.name)
    guard words.count >= 2 else {
      throw ScenarioProblem("'expect' is missing its form; write one of \(names.joined(separator: ", "))")
    }
    guard let kind = Kind(rawValue: words[1]) else {
      let message = "unknown expectation '\(words[1])'"
      throw ScenarioProblem(
        Suggest.appending(
          to: message, for: words[1], in: names, otherwise: message + "; write one of \(names.joined(separator: ", "))")
      )
    }
    return kind
  }

  private static func purchaseResult(_ text: String) throws(ScenarioProblem) -> PurchaseResultName {
    if let result = PurchaseResultName(rawValue: text) { return result }
    let names = PurchaseResultName.allCases.map(\.rawValue)
    let listed = names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    throw ScenarioProblem(
      Suggest.appending(
        to: "unknown purchase result '\(text)'", for: text, in: names,
        otherwise: "unknown purchase result '\(text)'; write \(listed)"))
  }

  private static func renewalState(_ text: String) throws(ScenarioProblem) -> RenewalState {
    if let state = RenewalState(rawValue: text) { return state }
    let names = RenewalState.allCases.map(\.rawValue)
    throw ScenarioProblem(
      Suggest.appending(
        to: "unknown state '\(text)'", for: text, in: names,
        otherwise: "unknown state '\(text)'; write one of \(names.joined(separator: ", "))"))
  }

  /// A count of zero or more.
  private static func count(_ text: String, of kind: Kind) throws(ScenarioProblem) -> Written<Int> {
    guard let value = Int(text), value >= 0 else {
      throw ScenarioProblem("expect \(kind.name) takes a count, not '\(text)'")
    }
    return Written(value: value, text: text)
  }

  /// `TYPE` or `TYPE/SUBTYPE`, Apple's raw values.
  private static func notification(
    _ text: String, usage: ScenarioProblem
  ) throws(ScenarioProblem) -> (NotificationTypeV2, Subtype?) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard let type = NotificationTypeV2(rawValue: parts[0]) else {
      throw ScenarioProblem(
        Suggest.orValues("unknown notification type '\(parts[0])'", for: parts[0], in: WireFields.notificationTypes))
    }
    guard parts.count > 1 else { return (type, nil) }
    guard let subtype = Subtype(rawValue: parts[1]) else {
      throw ScenarioProblem(
        Suggest.orValues(
          "unknown notification subtype '\(parts[1])'", for: parts[1], in: WireFields.notificationSubtypes))
    }
    guard parts.count == 2 else { throw usage }
    return (type, subtype)
  }

  private static func date(_ text: String) throws(ScenarioProblem) -> Written<Date> {
    do {
      return Written(value: try ValueParsing.date(text), text: text)
    } catch {
      throw ScenarioProblem((error as? CLIError)?.message ?? "invalid date '\(text)'")
    }
  }

  private static func status(_ text: String) throws(ScenarioProblem) -> Written<Int> {
    guard let value = Int(text) else { throw ScenarioProblem("expect receipt takes a status number, not '\(text)'") }
    return Written(value: value, text: text)
  }

  private static func endpoint(_ text: String) throws(ScenarioProblem) -> StoreEnvironment {
    guard let endpoint = StoreEnvironment(userInput: text) else {
      throw ScenarioProblem("unknown endpoint '\(text)'; write Production or Sandbox")
    }
    return endpoint
  }
}

/// Product and group names checked against a scenario's configuration; without one (the shell
/// checking a line, a scenario before its `init`) every name passes.
struct ConfigurationNames {
  var store: Store?

  func product(_ id: String) throws(ScenarioProblem) -> ProductID {
    guard let configuration = store?.configuration, configuration.product(id) == nil else { return id }
    throw ScenarioProblem(
      Suggest.appending(
        to: "product '\(id)' is not in the configuration", for: id, in: configuration.products.map(\.id)))
  }

  /// A subscription group's id or name, or an auto-renewable product's id.
  func groupOrProduct(_ text: String) throws(ScenarioProblem) -> String {
    guard let configuration = store?.configuration, SubscriptionSubject.group(text, in: configuration) == nil else {
      return text
    }
    throw ScenarioProblem(SubscriptionSubject.unknown(text, in: configuration))
  }
}

/// What `status`, `expect state` and `expect renewal` accept for a subscription: a group's id or
/// name, or the id of one of its auto-renewable products.
enum SubscriptionSubject {
  static func group(_ text: String, in configuration: StoreConfiguration) -> SubscriptionGroupID? {
    configuration.group(named: text)?.id ?? configuration.product(text)?.subscription?.groupID
  }

  /// The message for a name that is neither, with a "did you mean".
  static func unknown(_ text: String, in configuration: StoreConfiguration) -> String {
    let names =
      configuration.subscriptionGroups.flatMap { [$0.id, $0.name] }
      + configuration.products.filter { $0.subscription != nil }.map(\.id)
    return Suggest.appending(
      to: "'\(text)' is neither a subscription group nor an auto-renewable product", for: text, in: names)
  }
}
