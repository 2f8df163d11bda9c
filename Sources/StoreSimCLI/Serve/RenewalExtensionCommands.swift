import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer

/// `--days`, `--reason`, `--request-id`: the options `extend` and `extend-all` share, declared
/// once, checked as Apple validates them.
struct RenewalExtensionOptions: OptionGroupDeclaration {
  @Option("<n>", help: "days to add, 1 to 90 (Apple's limit)")
  var days: String?
  @Option("<code>", help: "extendReasonCode: 0 undeclared (default), 1 customer satisfaction, 2 other, 3 service issue")
  var reason: String?
  @Option("<id>", help: "the request identifier (default: a new one); reusing one does not extend twice")
  var requestID: String?

  /// The days, reason and request identifier (a new one from `store` when not given).
  func checked(_ store: Store?, command: String) throws -> (days: Int, reason: Int, request: String) {
    guard let text = days else {
      throw CLIError.usage("missing --days", command: command)
    }
    guard let days = Int(text), (1...90).contains(days) else {
      throw CLIError.usage("--days must be 1 to 90 (Apple's limit), not '\(text)'", command: command)
    }
    let reasonText = reason ?? "0"
    guard let reason = Int(reasonText), (0...3).contains(reason) else {
      throw CLIError.usage("--reason must be 0, 1, 2 or 3 (extendReasonCode), not '\(reasonText)'", command: command)
    }
    let request =
      requestID
      ?? "storesim-\((store?.serverRecords.extensions.count ?? 0) + (store?.serverRecords.massExtensions.count ?? 0) + 1)"
    guard !request.isEmpty, request.count <= 128 else {
      throw CLIError.usage("--request-id must be 1 to 128 characters", command: command)
    }
    return (days, reason, request)
  }
}

/// `extend` and `extend-all`: a command with the renewal extension options.
protocol RenewalExtensionCommand: CommandLineCommand {
  var extensionOptions: RenewalExtensionOptions { get }
}

extension RenewalExtensionCommand {
  /// `--days`, `--reason` and `--request-id` are checked before anything runs.
  func validate() throws {
    _ = try extensionArguments(nil)
  }

  /// The days, reason and request identifier (a new one from `store` when not given).
  func extensionArguments(_ store: Store?) throws -> (days: Int, reason: Int, request: String) {
    try extensionOptions.checked(store, command: Self.configuration.name)
  }
}

/// `storesim extend TRANSACTION|PRODUCT`.
struct ExtendCommand: RenewalExtensionCommand {
  static let configuration = CommandConfiguration(
    name: "extend", group: "Subscriptions and time",
    abstract: "Extend a subscription's renewal date (RENEWAL_EXTENDED), as the Server API does",
    arguments: "<original-transaction-id>|<product-id>",
    discussion: """
      The same as PUT /inApps/v1/subscriptions/extend/{originalTransactionId}: the latest
      transaction's expiresDate and the renewal date move by --days, renewals continue from the
      new date, and RENEWAL_EXTENDED is sent. Apple's limits apply: 1 to 90 days, reason 0 to 3,
      at most two extensions per subscription in 365 days, active subscriptions only (not
      expired, revoked, in grace or billing retry), never a family member's shared copy. A
      product id extends the customer's subscription to it.
      """,
    example: "storesim extend 2000000000000001 --days 7 --reason 3")

  @Arguments(1...1, "original transaction id or product id")
  var arguments: [String]
  @OptionGroup var extensionOptions: RenewalExtensionOptions

  func run(_ inv: Invocation) throws -> ExitCode {
    let target = arguments[0]
    return try SessionContext.with(inv, mutating: true) { store in
      let (days, reason, request) = try extensionArguments(store)
      var id = TransactionID(target)
      if id == nil {
        _ = try store.checkedProduct(target)
        let customer = SessionContext.customer(inv)
        guard
          let s = store.configuration.product(target)?.subscription.flatMap({
            store.statuses(forGroup: $0.groupID, customer: customer).first(where: { !$0.isFamilyShared })
          }),
          s.transaction.productID == target
        else { throw CLIError.failed("\(customer) has no subscription to \(target)") }
        id = s.transaction.originalID
      }
      do {
        let record = try store.extendRenewalDate(
          originalTransactionID: id!, days: days, reason: reason, requestIdentifier: request
        ).value
        inv.emit(
          json: .object([
            "originalTransactionId": .string(String(record.originalTransactionID)), "success": .bool(true),
            "effectiveDate": .int(record.effectiveDate.epochMilliseconds),
            "requestIdentifier": .string(record.requestIdentifier),
          ]),
          line:
            "extended \(record.originalTransactionID) by \(record.days) days: renews \(ISO8601.string(record.effectiveDate))  (request \(record.requestIdentifier))"
        )
        return .success
      } catch let refusal as ExtensionRefusal {
        switch refusal {
        case .notFound: throw CLIError.refusedArgument("no subscription has original transaction id \(target)")
        case .ineligible:
          throw CLIError.failed("subscription \(target) is not active; only active subscriptions can be extended")
        case .maximumReached:
          throw CLIError.failed("subscription \(target) was extended twice in the last 365 days (Apple's limit)")
        case .familyShared:
          throw CLIError.failed("\(target) is a family member's shared copy; extend the purchaser's subscription")
        case .notAutoRenewable:
          throw CLIError.failed("\(target) is not an auto-renewable subscription; only those can be extended")
        case .freeOfferPeriod:
          throw CLIError.failed(
            "subscription \(target) is in a free offer period; only paid periods can be extended (Apple's rule)")
        }
      }
    }
  }
}

/// `storesim extend-all PRODUCT`.
struct ExtendAllCommand: RenewalExtensionCommand {
  static let configuration = CommandConfiguration(
    name: "extend-all", group: "Subscriptions and time",
    abstract: "Extend every active subscriber of a product (mass extension)",
    arguments: "<product-id>",
    discussion: """
      The same as POST /inApps/v1/subscriptions/extend/mass: every active subscription to the
      product (optionally in the given storefronts) is extended as 'extend' does; those that
      reached the yearly limit get RENEWAL_EXTENSION/FAILURE. storesim completes the request at
      once; GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier} reports it.
      """,
    example: "storesim extend-all subscription.pro --days 3 --reason 3 --request-id outage-1")

  @Arguments(1...1, "product id")
  var arguments: [String]
  @OptionGroup var extensionOptions: RenewalExtensionOptions
  @RepeatedOption("<code>", help: "only subscribers in this storefront (ISO 3166-1 alpha-3; repeatable)")
  var storefront: [String]?

  func run(_ inv: Invocation) throws -> ExitCode {
    let product = arguments[0]
    return try SessionContext.with(inv, mutating: true) { store in
      let (days, reason, request) = try extensionArguments(store)
      guard try store.checkedProduct(product).type == .autoRenewable else {
        throw CLIError.refusedArgument("\(product) is not an auto-renewable subscription")
      }
      let storefronts = storefront
      let m = store.massExtendRenewalDate(
        productID: product, days: days, reason: reason, requestIdentifier: request, storefronts: storefronts
      ).value
      inv.emit(
        json: .object([
          "requestIdentifier": .string(m.requestIdentifier), "complete": .bool(true),
          "succeededCount": .int(Int64(m.succeeded)), "failedCount": .int(Int64(m.failed)),
        ]),
        line:
          "extended \(m.succeeded) subscription\(m.succeeded == 1 ? "" : "s") of \(product) by \(m.days) days; \(m.failed) failed  (request \(m.requestIdentifier))"
      )
      return .success
    }
  }
}
