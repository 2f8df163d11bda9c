import Foundation
import StoreSim
import StoreSimServer
import StoreSimSession

/// `storesim notifications [deliver URL | deliver --retry | replay [FILE] --to URL]`.
struct NotificationsCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "notifications", group: "Inspection",
    abstract: "App Store Server Notifications V2 emitted so far, and their delivery",
    arguments: "[deliver <url> | deliver --retry | replay [<file>] --to <url>]",
    discussion: """
      JSON gives ResponseBodyV2DecodedPayload objects exactly as Apple signs them: data carries
      bundleId, environment, signedTransactionInfo and signedRenewalInfo (JWS), status and, for
      CONSUMPTION_REQUEST, consumptionRequestReason. --decoded adds the signed data decoded under
      data.transactionInfo and data.renewalInfo, for people only. 'deliver URL' POSTs every
      notification not yet delivered to URL as {"signedPayload": ...}, records each attempt and its HTTP status, and
      keeps failed ones for 'deliver --retry'. 'settings deliver-url URL' delivers as they happen.
      'replay FILE --to URL' POSTs the bodies of a webhook log (each line as it is) or of a Get
      Notification History response ({"signedPayload": ...} each) to URL, verbatim and in order,
      and reports each; without FILE, the original bodies of the notifications 'import' read
      (kept in the session). A replay changes nothing in the session.
      JWS are signed with ES256 under the session's key: Apple's SignedDataVerifier verifies
      Sandbox and Production data given 'storesim certificate' as its root (online checks off),
      and decodes Xcode and LocalTesting data without checks, as it does Xcode's.
      """,
    example: """
      storesim notifications deliver http://127.0.0.1:8080/notifications
        storesim notifications replay webhook.log --to http://127.0.0.1:8080/notifications
      """)

  @Arguments(0...2, "")
  var arguments: [String]
  @Option("<n>", help: "skip the first n notifications", parse: NotificationsCommand.since)
  var since: Int?
  @Flag(help: "print what Apple POSTs: {\"signedPayload\": \"<JWS>\"}")
  var signed: Bool
  @Flag(help: "JSON for reading: data also holds transactionInfo and renewalInfo decoded (never signed or sent)")
  var decoded: Bool
  @Flag(help: "with deliver: send again the deliveries that failed")
  var retry: Bool
  @Option("<url>", help: "with replay: the URL to POST the bodies to")
  var to: String?

  /// `--since N`: how many notifications to skip.
  static func since(_ s: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(s), n >= 0 else {
      throw CLIError.usage("--since takes a count of notifications, not '\(s)'", command: "notifications")
    }
    return n
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let args = arguments
    let since = self.since ?? 0
    if args.first == nil, retry {
      throw CLIError.usage("--retry goes with 'notifications deliver'", command: "notifications")
    }
    if args.first != "replay", to != nil {
      throw CLIError.usage("--to goes with 'notifications replay'", command: "notifications")
    }
    if let action = args.first {
      if action == "replay" { return try replay(inv, file: args.count == 2 ? args[1] : nil) }
      guard action == "deliver" else {
        throw CLIError.usage(
          "unknown notifications action '\(action)'; use deliver or replay", command: "notifications")
      }
      return try deliverNotifications(inv, url: args.count == 2 ? args[1] : nil, since: since)
    }
    return try listNotifications(inv, since: since)
  }

  /// `notifications deliver <url> | --retry`: plans, sends and records, then reports each attempt.
  func deliverNotifications(_ inv: Invocation, url text: String?, since: Int) throws -> ExitCode {
    let url = try text.map { try Delivery.validate($0, command: "notifications") }
    guard url != nil || retry else {
      throw CLIError.usage("deliver needs a URL (or --retry)", command: "notifications")
    }
    var planned: PlannedDeliveries?
    var attempts: [NotificationDelivery] = []
    _ = try SessionContext.with(inv, mutating: inv.memory != nil) { store in
      planned = plannedDeliveries(store, to: url, retry: retry, since: since)
      // A scenario's session is in memory: no lock to let go of.
      if inv.memory != nil, let planned { attempts = Delivery.deliver(planned) { record in record(&store) } }
      return .success
    }
    if inv.memory == nil, let planned, !planned.isEmpty {
      attempts = try SessionContext.deliver(
        inv, SessionLocation(shown: SessionContext.path(inv), environment: inv.environment), planned,
        warnFailed: false)
    }
    return reportDeliveries(inv, attempts)
  }

  /// The notifications after the first `since`: decoded, signed, JSON or a table with their delivery.
  func listNotifications(_ inv: Invocation, since: Int) throws -> ExitCode {
    try SessionContext.with(inv, mutating: false) { store in
      let all = store.notifications
      let list = Array(all.enumerated()).dropFirst(min(since, all.count))
      if decoded {
        guard !signed else {
          throw CLIError.usage("give --signed or --decoded, not both", command: "notifications")
        }
        // JSON on the terminal too.
        let payloads = JSONOutput.array(list.map { store.decodedPayload($0.element) })
        inv.emit(json: payloads) { inv.printJSON(payloads) }
      } else if signed {
        inv.emit(json: .array(list.map { store.signedBody($0.element) })) {
          for (_, n) in list { inv.out(store.signedBody(n).rendered(pretty: false)) }
        }
      } else {
        inv.emit(json: .array(list.map { store.payload($0.element) })) {
          inv.out(list.isEmpty ? "(none)" : notificationsTable(list, log: store.state.deliveryLog ?? []))
        }
      }
      return .success
    }
  }
}

/// To one URL: the new notifications (first attempts, the App Store's) and with --retry the
/// failed ones (the tester's resends); with no URL, the failed ones of every URL delivered to
/// before (resends).
private func plannedDeliveries(_ store: Store, to url: String?, retry: Bool, since: Int) -> PlannedDeliveries {
  var items: [(index: Int, url: String, origin: DeliveryOrigin?)] = []
  if let url {
    let open = store.undelivered(to: url)
    let failed = Set(retry ? open.failed : [])
    items = (Array(failed) + open.new).sorted().filter { $0 >= since }.map {
      (index: $0, url: url, origin: failed.contains($0) ? .resend : nil)
    }
  } else {
    // Imported attempts (Apple's, to the team's server) have no URL: nothing to resend to.
    for u in Set((store.state.deliveryLog ?? []).map(\.url)).sorted() where !u.isEmpty {
      items += store.undelivered(to: u).failed.filter { $0 >= since }.map { (index: $0, url: u, origin: .resend) }
    }
  }
  return PlannedDeliveries(store, DeliveryPlan(store, explicit: items))
}

private func reportDeliveries(_ inv: Invocation, _ attempts: [NotificationDelivery]) -> ExitCode {
  let failed = attempts.filter { !$0.succeeded }.count
  inv.emit(
    json: .array(
      attempts.map { a in
        .object([
          "index": .int(Int64(a.index)), "url": .string(a.url),
          "httpStatus": a.httpStatus.map { .int(Int64($0)) }, "error": a.error.map(JSONOutput.string),
          "sendAttemptResult": .string(ServerAPI.sendAttemptResult(a)), "date": .string(ISO8601.string(a.date)),
          "origin": .string(a.origin?.rawValue ?? "appStore"), "fault": a.fault.map(JSONOutput.string),
          "nextAttempt": a.nextAttempt.map { .string(ISO8601.string($0)) },
        ])
      })
  ) {
    for a in attempts {
      inv.out("#\(a.index) -> \(a.url): " + (a.httpStatus != nil ? a.outcome : "failed (\(a.outcome))") + a.label)
    }
    inv.out(
      "delivered \(attempts.count - failed), failed \(failed)"
        + (failed > 0 ? " (kept for 'notifications deliver --retry')" : ""))
  }
  return failed == 0 ? .success : .failure
}

private func notificationsTable(
  _ list: ArraySlice<EnumeratedSequence<[ServerNotification]>.Element>, log: [NotificationDelivery]
) -> String {
  var attempts: [Int: [NotificationDelivery]] = [:]
  for a in log { attempts[a.index, default: []].append(a) }
  return Table.render(
    [["#", "DATE", "CUSTOMER", "TYPE", "PRODUCT", "STATUS", "DELIVERY"]]
      + list.map { (i, n) in
        [
          String(i), ISO8601.string(n.signedDate), n.customer.rawValue,
          n.name, n.transaction?.productID ?? "",
          n.status?.rawValue ?? "", deliverySummary(attempts[i] ?? []),
        ]
      })
}

/// `delivered`, `failed ×2, next 2026-01-01T13:00:00Z`, `delivered (attempt 3)`, with the
/// tester's resends and storesim's faults named (`+1 resend`, `fault: duplicate`).
func deliverySummary(_ attempts: [NotificationDelivery]) -> String {
  guard !attempts.isEmpty else { return "" }
  let own = attempts.filter(\.isAppStoreAttempt)
  var text: String
  if let success = own.firstIndex(where: \.succeeded) {
    text = success == 0 ? "delivered" : "delivered (attempt \(success + 1))"
  } else if attempts.contains(where: \.succeeded) {
    text = "delivered by resend"
  } else {
    text = "failed ×\(own.count)" + (own.last?.nextAttempt.map { ", next \(ISO8601.string($0))" } ?? "")
  }
  let resends = attempts.filter { $0.origin == .resend }.count
  if resends > 0 { text += ", +\(resends) resend" + (resends == 1 ? "" : "s") }
  let faults = Array(Set(attempts.compactMap(\.fault))).sorted()
  if !faults.isEmpty { text += " [fault: " + faults.joined(separator: "; ") + "]" }
  return text
}
