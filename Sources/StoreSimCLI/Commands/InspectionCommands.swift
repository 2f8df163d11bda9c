import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

let signedOption = OptionSpec(
  name: "signed", value: nil, help: "print compact JWS (HS256, storesim's key; see 'help notifications')")
let formatOption = OptionSpec(name: "format", value: "<format>", help: "api: the App Store Server API response shape")

func apiFormat(_ inv: Invocation) throws -> Bool {
  guard let f = inv.arguments.value("format") else { return false }
  guard f.lowercased() == "api" else {
    throw CLIError.usage("unknown format '\(f)'; the only format is api", command: inv.arguments.command)
  }
  if inv.arguments.has("signed") {
    throw CLIError.usage(
      "give --signed or --format api, not both (the API response already holds signed data)",
      command: inv.arguments.command)
  }
  return true
}

/// The run of a reading command: its positionals checked (and, for a command with `--format`,
/// the format first, before the session, and so in a scenario's check too), then `body` on the
/// session for the customer, with the positionals and whether `--format api` was given.
func inspecting(
  _ inv: Invocation, _ positionals: ClosedRange<Int>, _ what: String, format: Bool = false,
  needsNotifications: Bool = true,
  _ body: (_ store: Store, _ customer: CustomerID, _ arguments: [String], _ api: Bool) throws -> ExitCode
) throws -> ExitCode {
  let api = format ? try apiFormat(inv) : false
  let arguments = try inv.positionals(positionals, what)
  return try SessionContext.with(inv, mutating: false, needsNotifications: needsNotifications) { store in
    try body(store, SessionContext.customer(inv), arguments, api)
  }
}

let inspectCommands: [CommandSpec] = [
  entitlementsCommand, transactionsCommand, latestCommand, statusCommand, pendingCommand, notificationsCommand,
  receiptCommand,
]

let entitlementsCommand = CommandSpec(
  name: "entitlements", group: "Inspection",
  abstract: "Transaction.currentEntitlements",
  discussion:
    "Non-consumables, active subscriptions (subscribed or in grace, own or family) and the latest non-renewing subscriptions; never consumables or refunded transactions.",
  example: "storesim entitlements --json",
  run: { inv in
    try inspecting(inv, 0...0, "", needsNotifications: false) { store, customer, _, _ in
      printTransactions(inv, store.currentEntitlements(customer: customer), store: store, customer: customer)
      return .success
    }
  })

let transactionsCommand = CommandSpec(
  name: "transactions", group: "Inspection",
  abstract: "Transaction.all (or Transaction.unfinished)",
  options: [
    OptionSpec(name: "product", value: "<id>", help: "only this product (Transaction.all(for:))"),
    OptionSpec(name: "unfinished", value: nil, help: "only unfinished transactions"),
    signedOption, formatOption,
  ],
  discussion:
    "The text table shows each purchase's order id (ORDER), which 'GET /inApps/v1/lookup/{orderId}' finds; renewals and family copies have none.",
  example: "storesim transactions --product subscription.pro",
  run: { inv in
    try inspecting(inv, 0...0, "", format: true, needsNotifications: false) { store, customer, _, api in
      var list =
        inv.arguments.has("unfinished")
        ? store.unfinishedTransactions(customer: customer) : store.allTransactions(customer: customer)
      if let p = inv.arguments.value("product") {
        _ = try store.checkedProduct(p)
        list = list.filter { $0.productID == p }
      }
      if api {
        inv.printJSON(store.transactionHistoryResponse(customer: customer, productID: inv.arguments.value("product")))
      } else if inv.arguments.has("signed") {
        let jws = list.map { store.signed($0, customer: customer) }
        if inv.json { inv.printJSON(.array(jws.map(JSONOutput.string))) } else { jws.forEach { inv.out($0) } }
      } else if inv.json {
        inv.printJSON(.array(list.map { store.payload($0, customer: customer) }))
      } else {
        inv.out(Render.transactions(list, orders: true))
      }
      return .success
    }
  })

let latestCommand = CommandSpec(
  name: "latest", group: "Inspection",
  abstract: "Transaction.latest(for:) of a product",
  arguments: "<product-id>",
  options: [signedOption, formatOption],
  discussion:
    "Prints null (JSON) or '(none)' when the product was never bought; exit 0 either way. --format api prints the App Store Server API TransactionInfoResponse.",
  example: "storesim latest subscription.pro --json",
  run: { inv in
    try inspecting(inv, 1...1, "product id", format: true, needsNotifications: false) { store, customer, args, api in
      let p = args[0]
      _ = try store.checkedProduct(p)
      let t = store.latestTransaction(for: p, customer: customer)
      if api {
        inv.printJSON(.object(["signedTransactionInfo": t.map { .string(store.signed($0, customer: customer)) }]))
      } else if inv.arguments.has("signed") {
        inv.out(
          t.map {
            inv.json
              ? JSONOutput.string(store.signed($0, customer: customer)).rendered()
              : store.signed($0, customer: customer)
          } ?? (inv.json ? "null" : "(none)"))
      } else if inv.json {
        inv.out(t.map { store.payload($0, customer: customer).rendered() } ?? "null")
      } else {
        inv.out(t.map { Render.transactions([$0]) } ?? "(none)")
      }
      return .success
    }
  })

let statusCommand = CommandSpec(
  name: "status", group: "Inspection",
  abstract: "Subscription status per group: state, renewal info, latest transaction",
  arguments: "[<group>|<product-id>]",
  options: [signedOption, formatOption],
  discussion:
    "--signed replaces transaction and renewalInfo with signedTransactionInfo and signedRenewalInfo (JWS); "
    + "--format api prints the App Store Server API StatusResponse. state is subscribed, expired, "
    + "inBillingRetryPeriod, inGracePeriod or revoked; status is the server's 1–5. JSON gives one object per status "
    + "(own and family shared).",
  example: "storesim status --json",
  run: { inv in
    try inspecting(inv, 0...1, "group or product", format: true, needsNotifications: false) {
      store, customer, args, api in
      if let error = store.settings.simulatedError(forAPI: .subscriptionStatus) {
        throw CLIError.failed("Subscription Status failed with simulated error \(error)")
      }
      let arg = args.first
      var groups = store.configuration.subscriptionGroups.map(\.id)
      if let arg {
        guard let group = SubscriptionSubject.group(arg, in: store.configuration) else {
          throw CLIError.refusedArgument(SubscriptionSubject.unknown(arg, in: store.configuration))
        }
        groups = [group]
      }
      let statuses = groups.flatMap { store.statuses(forGroup: $0, customer: customer) }
      if api {
        inv.printJSON(store.allSubscriptionStatusesResponse(customer: customer, groups: groups))
        return .success
      }
      if inv.arguments.has("signed") {
        inv.printJSON(
          .array(
            statuses.map { s in
              .object([
                "subscriptionGroupIdentifier": .string(s.groupID), "state": .string(s.state.rawValue),
                "status": .int(Int64(s.state.serverStatus)),
                "signedTransactionInfo": .string(store.signed(s.transaction, customer: customer)),
                "signedRenewalInfo": .string(store.signed(s.renewalInfo, customer: customer)),
              ])
            }))
        return .success
      }
      if inv.json {
        inv.printJSON(.array(statuses.map { store.payload($0, customer: customer) }))
        return .success
      }
      if statuses.isEmpty { inv.out("(no subscriptions)"); return .success }
      inv.out(
        Table.render(
          [["GROUP", "STATE", "PRODUCT", "EXPIRES", "AUTO-RENEW", "NOTES"]]
            + statuses.map { s in
              [
                store.configuration.group(s.groupID)?.name ?? s.groupID, s.state.rawValue, s.transaction.productID,
                Render.date(s.transaction.expirationDate), s.renewalInfo.willAutoRenew ? "on" : "off",
                statusNotes(s).joined(separator: "; "),
              ]
            }))
      return .success
    }
  })

/// The NOTES column of `status`: what the renewal info says beyond the state.
private func statusNotes(_ s: SubscriptionStatus) -> [String] {
  let r = s.renewalInfo
  var notes: [String] = []
  if r.autoRenewProductID != r.currentProductID { notes.append("renews as \(r.autoRenewProductID)") }
  if let reason = r.expirationReason { notes.append("reason \(reason.storeKitName)") }
  if let g = r.gracePeriodExpirationDate { notes.append("grace until \(ISO8601.string(g))") }
  if r.priceIncreaseStatus != .noIncreasePending {
    notes.append("price increase \(r.priceIncreaseStatus.rawValue)")
  }
  if let o = r.offer { notes.append("next: \(o.type.storeKitName) offer \(o.id ?? "")") }
  if !r.eligibleWinBackOfferIDs.isEmpty {
    notes.append("win-back: " + r.eligibleWinBackOfferIDs.joined(separator: ","))
  }
  if s.isFamilyShared { notes.append("family shared") }
  return notes
}

let pendingCommand = CommandSpec(
  name: "pending", group: "Inspection",
  abstract: "Open Ask to Buy requests, interrupted purchases and refund requests",
  discussion: "Refund requests (kind refund) wait for 'refund approve' or 'refund decline'.",
  example: "storesim pending",
  run: { inv in
    try inspecting(inv, 0...0, "") { store, customer, _, _ in
      let list = store.pendingRequests(customer: customer)
      let refunds = store.refundRequests(customer: customer)
      func ms(_ d: Date) -> JSONOutput { .int(d.epochMilliseconds) }
      if inv.json {
        inv.printJSON(
          .array(
            list.map {
              .object([
                "requestId": .string($0.id), "kind": .string($0.kind.rawValue), "productId": .string($0.productID),
                "customer": .string($0.customer.rawValue), "date": ms($0.date),
              ])
            }
              + refunds.map {
                .object([
                  "requestId": .string($0.id), "kind": .string("refund"), "productId": .string($0.productID),
                  "customer": .string($0.customer.rawValue),
                  "date": ms($0.date), "transactionId": .string(String($0.transactionID)),
                  "consumptionRequestReason": .string($0.reason.rawValue),
                ])
              }))
      } else if list.isEmpty && refunds.isEmpty {
        inv.out("(none)")
      } else {
        inv.out(
          Table.render(
            [["REQUEST", "KIND", "PRODUCT", "ASKED"]]
              + list.map { [$0.id, $0.kind.rawValue, $0.productID, ISO8601.string($0.date)] }
              + refunds.map {
                [
                  $0.id, "refund", "\($0.productID) (transaction \($0.transactionID), \($0.reason.rawValue))",
                  ISO8601.string($0.date),
                ]
              }))
      }
      return .success
    }
  })

let notificationsCommand = CommandSpec(
  name: "notifications", group: "Inspection",
  abstract: "App Store Server Notifications V2 emitted so far, and their delivery",
  arguments: "[deliver <url> | deliver --retry]",
  options: [
    OptionSpec(name: "since", value: "<n>", help: "skip the first n notifications"),
    OptionSpec(name: "signed", value: nil, help: "print what Apple POSTs: {\"signedPayload\": \"<JWS>\"}"),
    OptionSpec(
      name: "decoded", value: nil,
      help: "JSON for reading: data also holds transactionInfo and renewalInfo decoded (never signed or sent)"),
    OptionSpec(name: "retry", value: nil, help: "with deliver: send again the deliveries that failed"),
  ],
  discussion: """
    JSON gives ResponseBodyV2DecodedPayload objects exactly as Apple signs them: data carries
    bundleId, environment, signedTransactionInfo and signedRenewalInfo (JWS), status and, for
    CONSUMPTION_REQUEST, consumptionRequestReason. --decoded adds the signed data decoded under
    data.transactionInfo and data.renewalInfo, for people only. 'deliver URL' POSTs every
    notification not yet delivered to URL as {"signedPayload": ...}, records each attempt and its HTTP status, and
    keeps failed ones for 'deliver --retry'. 'settings deliver-url URL' delivers as they happen.
    JWS are signed with HS256 under a key derived from the bundle id, not by Apple: Apple's
    SignedDataVerifier decodes them in the Xcode and LocalTesting environments (where it skips
    signature checks); in Sandbox and Production it cannot verify them.
    """,
  example: "storesim notifications deliver http://127.0.0.1:8080/notifications",
  run: { inv in
    let args = try inv.positionals(0...2, "")
    let since = try notificationsSince(inv)
    if args.first == nil, inv.arguments.has("retry") {
      throw CLIError.usage("--retry goes with 'notifications deliver'", command: "notifications")
    }
    if let action = args.first {
      guard action == "deliver" else {
        throw CLIError.usage("unknown notifications action '\(action)'; use deliver", command: "notifications")
      }
      return try deliverNotifications(inv, url: args.count == 2 ? args[1] : nil, since: since)
    }
    return try listNotifications(inv, since: since)
  })

/// `--since N`: how many notifications to skip (0 without it).
private func notificationsSince(_ inv: Invocation) throws -> Int {
  guard let s = inv.arguments.value("since") else { return 0 }
  guard let n = Int(s), n >= 0 else {
    throw CLIError.usage("--since takes a count of notifications, not '\(s)'", command: "notifications")
  }
  return n
}

/// `notifications deliver <url> | --retry`: plans, sends and records, then reports each attempt.
private func deliverNotifications(_ inv: Invocation, url text: String?, since: Int) throws -> ExitCode {
  let retry = inv.arguments.has("retry")
  let url = try text.map { try Delivery.validate($0, command: "notifications") }
  guard url != nil || retry else {
    throw CLIError.usage("deliver needs a URL (or --retry)", command: "notifications")
  }
  var planned: [PlannedDelivery] = []
  var attempts: [NotificationDelivery] = []
  _ = try SessionContext.with(inv, mutating: inv.memory != nil) { store in
    planned = plannedDeliveries(store, to: url, retry: retry, since: since)
    if inv.memory != nil {
      // A scenario's session is in memory: no lock to let go of.
      for (plan, attempt) in zip(planned, Delivery.send(planned)) {
        let record = NotificationDelivery(
          index: plan.index, url: plan.url, httpStatus: attempt.status, error: attempt.error, date: store.now)
        store.recordDelivery(record)
        attempts.append(record)
      }
    }
    return .success
  }
  if inv.memory == nil && !planned.isEmpty {
    attempts = try SessionContext.deliver(
      inv, SessionLocation(shown: SessionContext.path(inv), environment: inv.environment), planned)
  }
  return reportDeliveries(inv, attempts)
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
  if inv.json {
    inv.printJSON(
      .array(
        attempts.map { a in
          .object([
            "index": .int(Int64(a.index)), "url": .string(a.url),
            "httpStatus": a.httpStatus.map { .int(Int64($0)) }, "error": a.error.map(JSONOutput.string),
          ])
        }))
  } else {
    for a in attempts {
      inv.out("#\(a.index) -> \(a.url): " + (a.httpStatus != nil ? a.outcome : "failed (\(a.outcome))"))
    }
    inv.out(
      "delivered \(attempts.count - failed), failed \(failed)"
        + (failed > 0 ? " (kept for 'notifications deliver --retry')" : ""))
  }
  return failed == 0 ? .success : .failure
}

/// The notifications after the first `since`: decoded, signed, JSON or a table with their delivery.
private func listNotifications(_ inv: Invocation, since: Int) throws -> ExitCode {
  try SessionContext.with(inv, mutating: false) { store in
    let all = store.notifications
    let list = Array(all.enumerated()).dropFirst(min(since, all.count))
    if inv.arguments.has("decoded") {
      guard !inv.arguments.has("signed") else {
        throw CLIError.usage("give --signed or --decoded, not both", command: "notifications")
      }
      inv.printJSON(.array(list.map { store.decodedPayload($0.element) }))
    } else if inv.arguments.has("signed") {
      if inv.json {
        inv.printJSON(.array(list.map { store.signedBody($0.element) }))
      } else {
        for (_, n) in list { inv.out(store.signedBody(n).rendered(pretty: false)) }
      }
    } else if inv.json {
      inv.printJSON(.array(list.map { store.payload($0.element) }))
    } else if list.isEmpty {
      inv.out("(none)")
    } else {
      inv.out(notificationsTable(list, log: store.state.deliveryLog ?? []))
    }
    return .success
  }
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

let receiptCommand = CommandSpec(
  name: "receipt", group: "Inspection",
  abstract: "A verifyReceipt-shaped response for the customer",
  options: [
    OptionSpec(
      name: "endpoint", value: "<env>",
      help: "the verifyReceipt endpoint asked: Production or Sandbox (default: the session's)"),
    OptionSpec(name: "status", value: "<code>", help: "answer with this error status (21000–21010, 21100–21199)"),
  ],
  discussion:
    "status, environment, receipt.in_app, latest_receipt_info, pending_renewal_info, all values as strings like "
    + "Apple's. A sandbox or test-environment receipt asked at the production endpoint answers 21007; a production "
    + "one asked at the sandbox 21008.",
  example: "storesim receipt --endpoint Production --json",
  run: { inv in
    _ = try inv.positionals(0...0, "")
    var endpoint: StoreEnvironment?
    if let text = inv.arguments.value("endpoint") {
      guard let e = StoreEnvironment(userInput: text), e == .production || e == .sandbox else {
        throw CLIError.usage("--endpoint takes Production or Sandbox, not '\(text)'", command: "receipt")
      }
      endpoint = e
    }
    var forced: Int?
    if let text = inv.arguments.value("status") {
      guard let code = Int(text), Store.receiptStatusCodes[code] != nil || (21100...21199).contains(code) else {
        throw CLIError.usage("--status takes a verifyReceipt status: 0, 21000–21010 or 21100–21199", command: "receipt")
      }
      forced = code
    }
    return try SessionContext.with(inv, mutating: false) { store in
      let response = store.receipt(customer: SessionContext.customer(inv), askedAs: endpoint, forcedStatus: forced)
      if inv.json {
        inv.printJSON(response)
      } else {
        if case .int(let status)? = response["status"] {
          inv.out("status \(status)" + (Store.receiptStatusCodes[Int(status)].map { ": \($0)" } ?? ""))
        }
        if case .object(let r)? = response["receipt"], case .array(let items)? = r["in_app"] {
          inv.out("in_app: \(items.count) transaction\(items.count == 1 ? "" : "s")")
        }
        if case .array(let items)? = response["pending_renewal_info"] {
          inv.out("pending_renewal_info: \(items.count)")
        }
      }
      return .success
    }
  })
