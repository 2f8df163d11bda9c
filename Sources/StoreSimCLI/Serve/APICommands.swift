import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer

let apiMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]

/// `storesim api METHOD PATH`.
struct APICommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "api", group: "Server",
    abstract: "Answer one App Store Server API request without a port (what 'serve' would send)",
    arguments: "<method> <path>",
    discussion: """
      Prints the status line and the JSON body that 'storesim serve' answers for the same request
      on the same session, e.g. 'HTTP/1.1 200 OK' then '{"signedTransactionInfo":"..."}'. The
      path is Apple's, with its query (quote it in the shell). Requests that change the session
      save it like any command. Without --authorization (and without --api-key) the caller is
      trusted; with it, the header is checked as the server checks it (an ES256 bearer token
      with kid, iss, exp at most an hour away, aud appstoreconnect-v1 and bid equal to the
      session's bundle id). Its signature is checked only with --api-key AuthKey.p8 --key-id KID
      --issuer ISS, which also require that kid and iss, or, without them, with the key given at
      'init --api-key'. With --log, the request's log line goes to standard error, in the format
      of serve's (peer '-', the time from the request to its answer); standard output stays the
      answer. Exit 0 for a 2xx answer, 1 for any other.
      """,
    example: "storesim api GET '/inApps/v1/history/2000000000000001?sort=DESCENDING'")

  @Arguments(2...2, "method and path")
  var arguments: [String]
  @Option("<file>", help: "the request body (JSON; '-' reads standard input)")
  var body: String?
  @Option("<json>", help: "the request body given inline (instead of --body)")
  var data: String?
  @Option("<value>", help: "check this Authorization header as 'serve' does (default: trusted, no check)")
  var authorization: String?
  @Option("<path>", help: APIKeyOptions.keyHelp)
  var apiKey: String?
  @Option("<kid>", help: APIKeyOptions.keyIDHelp)
  var keyID: String?
  @Option("<iss>", help: APIKeyOptions.issuerHelp)
  var issuer: String?
  @Flag(help: "log the request on stderr as 'serve' does (peer '-')")
  var log: Bool

  func run(_ inv: Invocation) throws -> ExitCode {
    let started = HTTPRequest.monotonicNow
    let p = arguments
    let method = p[0].uppercased()
    guard apiMethods.contains(method) else {
      throw CLIError.usage("unknown method '\(p[0])'; use GET, POST or PUT", command: "api")
    }
    guard p[1].hasPrefix("/") else { throw CLIError.usage("the path must start with '/': \(p[1])", command: "api") }
    var body: [UInt8] = []
    if let data {
      guard self.body == nil else { throw CLIError.usage("give --body or --data, not both", command: "api") }
      body = Array(data.utf8)
    } else if let file = self.body {
      if file == "-" {
        body = Array(FileHandle.standardInput.readDataToEndOfFile())
      } else {
        let path = try inv.environment.resolve(file)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.noInput("no such file: \(file)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.noInput("cannot read \(file)") }
        body = Array(handle.readDataToEndOfFile())
      }
    }
    let key = try APIKeyOptions.key(inv, path: apiKey, keyID: keyID, issuer: issuer, command: "api")
    var headers: [String: String] = [:]
    if let auth = authorization { headers["authorization"] = auth }
    let request = HTTPRequest(method: method, target: p[1], headers: headers, body: body)
    let trusted = authorization == nil && key == nil
    let mutating = ServerAPI.match(request).route?.changesSession ?? false
    var response = APIResponse(status: 500, body: "")
    _ = try SessionContext.with(inv, mutating: mutating, needsNotifications: true) { store in
      // Without --api-key, the team's key given at init checks a token given with --authorization.
      let key = key ?? store.state.teamKey.flatMap(APIKeyOptions.key)
      response = ServerAPI.respond(request, store: store, now: inv.environment.now(), trusted: trusted, key: key)
      if let changed = response.changed { store = changed }
      return .success
    }
    if log { RequestLog(inv).record(request, response, started: started) }
    inv.out("HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\n\(response.body)")
    return (200...299).contains(response.status) ? .success : .failure
  }
}

/// The help of the options `extend` and `extend-all` share.
enum ExtensionOptionHelp {
  static let days = "days to add, 1 to 90 (Apple's limit)"
  static let reason = "extendReasonCode: 0 undeclared (default), 1 customer satisfaction, 2 other, 3 service issue"
  static let requestID = "the request identifier (default: a new one); reusing one does not extend twice"
}

/// `extend` and `extend-all`: `--days`, `--reason`, `--request-id`.
protocol RenewalExtensionCommand: CommandLineCommand {
  var days: String? { get }
  var reason: String? { get }
  var requestID: String? { get }
}

/// `--days`, `--reason`, `--request-id` as Apple validates them.
extension RenewalExtensionCommand {
  /// `--days`, `--reason` and `--request-id` are checked before anything runs.
  func validate() throws {
    _ = try extensionArguments(nil)
  }

  /// The days, reason and request identifier (a new one from `store` when not given).
  func extensionArguments(_ store: Store?) throws -> (days: Int, reason: Int, request: String) {
    let command = Self.configuration.name
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
  @Option("<n>", help: ExtensionOptionHelp.days)
  var days: String?
  @Option("<code>", help: ExtensionOptionHelp.reason)
  var reason: String?
  @Option("<id>", help: ExtensionOptionHelp.requestID)
  var requestID: String?

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
  @Option("<n>", help: ExtensionOptionHelp.days)
  var days: String?
  @Option("<code>", help: ExtensionOptionHelp.reason)
  var reason: String?
  @Option("<id>", help: ExtensionOptionHelp.requestID)
  var requestID: String?
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

/// `storesim consumption`.
struct ConsumptionCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "consumption", group: "Server",
    abstract: "Consumption information sent through the Server API",
    discussion: """
      Lists what PUT /inApps/v1|v2/transactions/consumption/{transactionId} recorded: the
      transaction, the body's version and fields, and the refund request (CONSUMPTION_REQUEST)
      it answered, if one was pending.
      """,
    example: "storesim consumption --json")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv, needsNotifications: false) { store, _ in
      let list = store.serverRecords.consumption
      inv.emit(
        json: .array(
          list.map { c in
            .object([
              "transactionId": .string(String(c.transactionID)), "customer": .string(c.customer.rawValue),
              "version": .int(Int64(c.version)),
              "date": .int(c.date.epochMilliseconds),
              "refundRequestId": c.refundRequestID.map(JSONOutput.string),
              "fields": .object(c.fields.mapValues { JSONOutput.number($0) }),
            ])
          })
      ) {
        guard !list.isEmpty else { return inv.out("(none)") }
        inv.out(
          Table.render(
            [["TRANSACTION", "CUSTOMER", "SENT", "VERSION", "ANSWERS", "FIELDS"]]
              + list.map { c in
                [
                  String(c.transactionID), c.customer.rawValue, ISO8601.string(c.date), "v\(c.version)",
                  c.refundRequestID ?? "-",
                  c.fields.keys.sorted().map { "\($0)=\(c.fields[$0]!)" }.joined(separator: " "),
                ]
              }))
      }
      return .success
    }
  }
}
