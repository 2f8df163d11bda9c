import Foundation
import StoreSim
import StoreSimServer
import StoreSimSession

/// `storesim notifications [deliver URL | deliver --retry]`.
struct NotificationsCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "notifications", group: "Inspection",
    abstract: "App Store Server Notifications V2 emitted so far, and their delivery",
    arguments: "[deliver <url> | deliver --retry]",
    discussion: """
      JSON gives ResponseBodyV2DecodedPayload objects exactly as Apple signs them: data carries
      bundleId, environment, signedTransactionInfo and signedRenewalInfo (JWS), status and, for
      CONSUMPTION_REQUEST, consumptionRequestReason. --decoded adds the signed data decoded under
      data.transactionInfo and data.renewalInfo, for people only. 'deliver URL' POSTs every
      notification not yet delivered to URL as {"signedPayload": ...}, records each attempt and its HTTP status, and
      keeps failed ones for 'deliver --retry'. 'settings deliver-url URL' delivers as they happen.
      JWS are signed with ES256 under the session's key: Apple's SignedDataVerifier verifies
      Sandbox and Production data given 'storesim certificate' as its root (online checks off),
      and decodes Xcode and LocalTesting data without checks, as it does Xcode's.
      """,
    example: "storesim notifications deliver http://127.0.0.1:8080/notifications")

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
    if let action = args.first {
      guard action == "deliver" else {
        throw CLIError.usage("unknown notifications action '\(action)'; use deliver", command: "notifications")
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
    var planned: [PlannedDelivery] = []
    var attempts: [NotificationDelivery] = []
    _ = try SessionContext.with(inv, mutating: inv.memory != nil) { store in
      planned = plannedDeliveries(store, to: url, retry: retry, since: since)
      // A scenario's session is in memory: no lock to let go of.
      if inv.memory != nil { attempts = Delivery.deliver(planned) { record in record(&store) } }
      return .success
    }
    if inv.memory == nil && !planned.isEmpty {
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

/// To one URL: the new notifications (and the failed ones with --retry); with no URL, the
/// failed ones of every URL delivered to before.
private func plannedDeliveries(_ store: Store, to url: String?, retry: Bool, since: Int) -> [PlannedDelivery] {
  if let url {
    let open = store.undelivered(to: url)
    return (retry ? open.failed + open.new : open.new).sorted().filter { $0 >= since }.map {
      PlannedDelivery(store, index: $0, url: url)
    }
  }
  var planned: [PlannedDelivery] = []
  let urls = Set((store.state.deliveryLog ?? []).map(\.url)).sorted()
  for u in urls {
    planned += store.undelivered(to: u).failed.filter { $0 >= since }.map {
      PlannedDelivery(store, index: $0, url: u)
    }
  }
  return planned
}

private func reportDeliveries(_ inv: Invocation, _ attempts: [NotificationDelivery]) -> ExitCode {
  let failed = attempts.filter { !$0.succeeded }.count
  inv.emit(
    json: .array(
      attempts.map { a in
        .object([
          "index": .int(Int64(a.index)), "url": .string(a.url),
          "httpStatus": a.httpStatus.map { .int(Int64($0)) }, "error": a.error.map(JSONOutput.string),
        ])
      })
  ) {
    for a in attempts {
      inv.out("#\(a.index) -> \(a.url): " + (a.httpStatus != nil ? a.outcome : "failed (\(a.outcome))"))
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
  Table.render(
    [["#", "DATE", "CUSTOMER", "TYPE", "PRODUCT", "STATUS", "DELIVERY"]]
      + list.map { (i, n) in
        let attempts = log.filter { $0.index == i }
        let delivery =
          attempts.isEmpty
          ? "" : attempts.contains(where: \.succeeded) ? "delivered" : "failed ×\(attempts.count)"
        return [
          String(i), ISO8601.string(n.signedDate), n.customer.rawValue,
          n.name, n.transaction?.productID ?? "",
          n.status?.rawValue ?? "", delivery,
        ]
      })
}
