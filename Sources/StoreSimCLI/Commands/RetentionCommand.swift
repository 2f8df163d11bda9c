import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

/// `storesim retention PRODUCT [--accept|--decline]` and `storesim retention --list`.
struct RetentionCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "retention", group: "Subscriptions and time",
    abstract: "Open a subscription's cancel flow: the Retention Messaging realtime request and the message shown",
    arguments: "<product-id> | --list | --review <id> --state <state>",
    discussion: """
      The customer selects Cancel Subscription: storesim signs a realtime request and POSTs
      {"signedPayload": "..."} to the realtime URL set with PUT /inApps/v1/messaging/realtime/url.
      Your server must answer within --timeout (700 ms, Apple's deadline) with HTTP 200 and exactly
      one of message, alternateProduct or promotionalOffer; otherwise the default message for the
      product and locale is shown, or none. --accept takes what is shown (a switch, an offer, or a
      message that keeps the subscription); --decline cancels as 'cancel' does. --list shows every
      request and its outcome; a scenario checks the last one with 'expect retention'. --review ID
      --state PENDING|APPROVED|REJECTED changes an uploaded message's review state (storesim
      approves at once, as the sandbox does). Every rule the answer is held to:
      docs/retention-messaging.md.
      """,
    example: "storesim retention subscription.pro --decline\nstoresim retention --list")

  @Arguments(0...1, "product id")
  var arguments: [String]
  @Option("<locale>", help: "userLocale of the request and the default message's locale (default en-US)")
  var locale: String?
  @Option("<duration>", help: "the deadline of the answer, e.g. 700ms (default) or 2s", parse: RetentionCommand.timeout)
  var timeout: TimeInterval?
  @Flag(help: "take the switch or offer shown (a plain message keeps the subscription)")
  var accept: Bool
  @Flag(help: "cancel anyway: auto-renew off, as 'cancel'")
  var decline: Bool
  @Flag(help: "list every realtime request made and its outcome")
  var list: Bool
  @Option("<id>", help: "an uploaded message or image whose review state --state sets")
  var review: String?
  @Option("<state>", help: "with --review: PENDING, APPROVED or REJECTED")
  var state: String?

  var configurationReferences: [ConfigurationReference] { arguments.map { .product($0) } }

  static func timeout(_ text: String, _ context: ParseContext) throws -> TimeInterval {
    let lower = text.lowercased()
    let value: Double?
    if lower.hasSuffix("ms") {
      value = Double(lower.dropLast(2)).map { $0 / 1000 }
    } else if lower.hasSuffix("s") {
      value = Double(lower.dropLast())
    } else {
      value = nil
    }
    guard let value, value >= 0.001, value <= 60 else {
      throw CLIError.usage(
        "--timeout must be a duration from 1ms to 60s like 700ms or 2s, not '\(text)'", command: "retention")
    }
    return value
  }

  func validate() throws {
    if review != nil || state != nil {
      guard let review, let state else {
        throw CLIError.usage("--review and --state go together", command: "retention")
      }
      guard arguments.isEmpty, !list, !accept, !decline, locale == nil, timeout == nil else {
        throw CLIError.usage("--review takes no product and no other option but --state", command: "retention")
      }
      guard UUID(uuidString: review) != nil else {
        throw CLIError.usage(
          "--review needs a message or image identifier (a UUID), not '\(review)'", command: "retention")
      }
      guard RetentionReviewState(rawValue: state.uppercased()) != nil else {
        throw CLIError.usage("--state must be PENDING, APPROVED or REJECTED, not '\(state)'", command: "retention")
      }
      return
    }
    if list {
      guard arguments.isEmpty, !accept, !decline, locale == nil, timeout == nil else {
        throw CLIError.usage("--list takes no product and no other option", command: "retention")
      }
      return
    }
    guard !arguments.isEmpty else { throw CLIError.usage("missing product id (or --list)", command: "retention") }
    if accept && decline { throw CLIError.usage("give --accept or --decline, not both", command: "retention") }
    if let locale, !ServerAPI.isLocale(locale) {
      throw CLIError.usage("--locale must be a locale like en-US, not '\(locale)'", command: "retention")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    if let review, let text = state, let state = RetentionReviewState(rawValue: text.uppercased()) {
      return try SessionContext.with(inv, mutating: true) { store in
        let messaging = store.retentionMessaging
        let kind: String
        if messaging.message(review) != nil {
          kind = "message"
          store.updateRetentionMessaging { m in
            for i in m.messages.indices where m.messages[i].identifier == review.lowercased() {
              m.messages[i].state = state
            }
          }
        } else if messaging.image(review) != nil {
          kind = "image"
          store.updateRetentionMessaging { m in
            for i in m.images.indices where m.images[i].identifier == review.lowercased() { m.images[i].state = state }
          }
        } else {
          throw CLIError.refusedArgument("no uploaded message or image has the identifier \(review.lowercased())")
        }
        inv.emit(
          json: .object(["\(kind)Identifier": .string(review.lowercased()), "\(kind)State": .string(state.rawValue)]),
          line: "\(kind) \(review.lowercased()) is \(state.rawValue)")
        return .success
      }
    }
    if list {
      return try SessionContext.with(inv, mutating: false, needsNotifications: false) { store in
        let calls = store.retentionMessaging.calls
        inv.emit(
          json: .array(calls.map { RetentionOutput.json($0, store) }),
          line: calls.isEmpty
            ? "no retention requests yet ('storesim retention PRODUCT' makes one)" : RetentionOutput.table(calls))
        return .success
      }
    }
    let customer = SessionContext.customer(inv)
    return try SessionContext.with(inv, mutating: true) { store in
      let target = try store.retentionTarget(productID: arguments[0], customer: customer)
      guard target.willAutoRenew else {
        throw CLIError.failed(
          "the subscription to '\(target.productID)' does not renew, so it has no cancel flow ('resume' turns auto-renew on)"
        )
      }
      var call = store.retentionCall(target, locale: locale ?? "en-US")
      let answer: RealtimeAnswer
      if let url = call.url {
        answer =
          RetentionRealtime.send(
            store.realtimeRequestBody(call).rendered(pretty: false), to: url,
            timeout: timeout ?? RetentionRealtime.defaultTimeout
          ).0
      } else {
        answer = .notConfigured
      }
      call = store.decide(call, answer: answer)
      let before = store
      var events: [StoreEvent] = []
      if decline {
        events = try store.disableAutoRenew(productID: target.productID, customer: customer).events
        call.action = "declined"
      } else if accept {
        events = try RetentionOutput.accept(call, &store)
        call.action = "accepted"
      }
      store.recordRetentionCall(call)
      var object = RetentionOutput.fields(call, before)
      object["events"] = .array(events.map(Render.eventJSON))
      inv.emit(json: .object(object)) {
        inv.out(RetentionOutput.lines(call, before).joined(separator: "\n"))
        reportEvents(inv, events, store: store)
      }
      return .success
    }
  }
}

/// How a retention request is shown and applied.
enum RetentionOutput {
  /// Applies `--accept`: buys the alternate product, redeems the offer, or keeps the subscription.
  static func accept(_ call: RetentionCall, _ store: inout Store) throws -> [StoreEvent] {
    let outcome: Outcome<PurchaseResult>
    let product: ProductID
    if let alternate = call.alternateProductID {
      product = alternate
      outcome = try store.purchase(alternate, customer: call.customer)
    } else if let offerProduct = call.offerProductID, let offer = call.offerIdentifier {
      product = offerProduct
      outcome = try store.purchase(
        offerProduct, options: PurchaseOptions(offer: .promotional(offer)), customer: call.customer)
    } else {
      return []
    }
    guard outcome.transaction != nil else {
      throw CLIError.failed("accepting failed: the purchase of '\(product)' ended \(outcome.value)")
    }
    return outcome.events
  }

  /// The text lines: the request's outcome, then what is shown.
  static func lines(_ call: RetentionCall, _ store: Store) -> [String] {
    let to = call.url.map { " to \($0)" } ?? ""
    var lines = [
      "realtime request \(call.requestIdentifier) for \(call.productID) (\(call.locale))\(to): \(call.outcome)"
    ]
    if let fallback = call.fallback {
      lines.append("fallback: \(fallback == "none" ? "no default message" : "the default message")")
    }
    lines.append("shown: " + shown(call, store))
    if let action = call.action { lines.append("customer: \(action)") }
    return lines
  }

  static func shown(_ call: RetentionCall, _ store: Store) -> String {
    guard let id = call.messageIdentifier, let m = store.retentionMessaging.message(id) else { return "nothing" }
    var text = "\"\(m.header)\" \(m.body)"
    if let alternate = call.alternateProductID { text += " [switch to \(alternate)]" }
    if let offer = call.offerIdentifier, let product = call.offerProductID { text += " [offer \(offer) on \(product)]" }
    return text + " (message \(m.identifier))"
  }

  static func fields(_ call: RetentionCall, _ store: Store) -> [String: JSONOutput] {
    let message = call.messageIdentifier.flatMap { store.retentionMessaging.message($0) }
    var object: [String: JSONOutput] = [
      "requestIdentifier": .string(call.requestIdentifier), "signedDate": .int(call.date.epochMilliseconds),
      "customer": .string(call.customer.rawValue), "originalTransactionId": .string(String(call.originalTransactionID)),
      "productId": .string(call.productID), "userLocale": .string(call.locale), "outcome": .string(call.outcome),
    ]
    object["url"] = call.url.map { .string($0) }
    object["shown"] = call.shown.map { .string($0) }
    object["messageIdentifier"] = call.messageIdentifier.map { .string($0) }
    object["header"] = message.map { .string($0.header) }
    object["body"] = message.map { .string($0.body) }
    object["alternateProductId"] = call.alternateProductID.map { .string($0) }
    object["offerProductId"] = call.offerProductID.map { .string($0) }
    object["offerIdentifier"] = call.offerIdentifier.map { .string($0) }
    object["fallback"] = call.fallback.map { .string($0) }
    object["action"] = call.action.map { .string($0) }
    return object
  }

  static func json(_ call: RetentionCall, _ store: Store) -> JSONOutput { .object(fields(call, store)) }

  static func table(_ calls: [RetentionCall]) -> String {
    var rows = [["#", "DATE", "CUSTOMER", "PRODUCT", "OUTCOME", "SHOWN", "FALLBACK", "ACTION"]]
    for (i, c) in calls.enumerated() {
      rows.append([
        String(i + 1), ISO8601.string(c.date), c.customer.rawValue, c.productID, c.outcome, c.shown ?? "-",
        c.fallback ?? "-", c.action ?? "-",
      ])
    }
    let widths = rows[0].indices.map { col in rows.map { $0[col].count }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { col, cell in
        col == row.count - 1 ? cell : cell.padding(toLength: widths[col], withPad: " ", startingAt: 0)
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }
}
