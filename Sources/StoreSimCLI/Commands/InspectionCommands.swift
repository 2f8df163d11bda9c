import Foundation
import StoreSim

/// The run of a reading command: `body` on the session for the customer.
func inspecting(
  _ inv: Invocation, needsNotifications: Bool = true,
  _ body: (_ store: Store, _ customer: CustomerID) throws -> ExitCode
) throws -> ExitCode {
  try SessionContext.with(inv, mutating: false, needsNotifications: needsNotifications) { store in
    try body(store, SessionContext.customer(inv))
  }
}

let inspectCommands: [CommandSpec] = [
  CommandSpec(EntitlementsCommand.self), CommandSpec(TransactionsCommand.self), CommandSpec(LatestCommand.self),
  CommandSpec(StatusCommand.self), CommandSpec(PendingCommand.self), CommandSpec(NotificationsCommand.self),
  CommandSpec(ReceiptCommand.self), CommandSpec(CertificateCommand.self),
]

/// `storesim entitlements`.
struct EntitlementsCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "entitlements", group: "Inspection",
    abstract: "Transaction.currentEntitlements",
    discussion:
      "Non-consumables, active subscriptions (subscribed or in grace, own or family) and the latest non-renewing subscriptions; never consumables or refunded transactions.",
    example: "storesim entitlements --json")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv, needsNotifications: false) { store, customer in
      printTransactions(inv, store.currentEntitlements(customer: customer), store: store, customer: customer)
      return .success
    }
  }
}

/// `storesim transactions`.
struct TransactionsCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "transactions", group: "Inspection",
    abstract: "Transaction.all (or Transaction.unfinished)",
    discussion:
      "The text table shows each purchase's order id (ORDER), which 'GET /inApps/v1/lookup/{orderId}' finds; renewals and family copies have none. "
      + "--format api prints Get Transaction History (v2) as serve answers it: 20 transactions a page, oldest change first; "
      + "pass its revision to --revision for the next page. With --unfinished, every page is read and only the "
      + "unfinished transactions are kept (the API has no such filter).",
    example: "storesim transactions --product subscription.pro")

  @Option("<id>", help: "only this product (Transaction.all(for:))")
  var product: String?
  @Flag(help: "only unfinished transactions")
  var unfinished: Bool
  @OptionGroup var output: SignedOrAPIFormat
  @Option("<revision>", help: "with --format api: the page after the one whose revision this is")
  var revision: String?
  @Arguments(0...0, "")
  var arguments: [String]

  var configurationReferences: [ConfigurationReference] { product.map { [.product($0)] } ?? [] }

  func validate() throws {
    try output.validate(command: "transactions")
    if revision != nil && !output.api {
      throw CLIError.usage("--revision pages --format api's answer; give --format api too", command: "transactions")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let api = output.api
    return try inspecting(inv, needsNotifications: false) { store, customer in
      var list =
        unfinished
        ? store.unfinishedTransactions(customer: customer) : store.allTransactions(customer: customer)
      if let p = product {
        _ = try store.checkedProduct(p)
        list = list.filter { $0.productID == p }
      }
      if api {
        guard let id = ServerAPIAnswer.anyTransactionID(of: customer, in: store) else {
          throw CLIError.failed(
            "customer '\(customer)' has no transactions; the App Store Server API knows no id of theirs")
        }
        let response = try ServerAPIAnswer.history(
          of: id, productID: product, revision: revision, keeping: unfinished ? Set(list.map(\.id)) : nil,
          store: store, inv: inv)
        inv.emit(json: response) { inv.printJSON(response) }  // JSON on the terminal too
      } else if output.signed {
        let jws = list.map { store.signed($0, customer: customer) }
        inv.emit(json: .array(jws.map(JSONOutput.string))) { jws.forEach { inv.out($0) } }
      } else {
        inv.emit(
          json: .array(list.map { store.payload($0, customer: customer) }),
          line: Render.transactions(list, orders: true))
      }
      return .success
    }
  }
}

/// `storesim latest PRODUCT`.
struct LatestCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "latest", group: "Inspection",
    abstract: "Transaction.latest(for:) of a product",
    arguments: "<product-id>",
    discussion:
      "Prints null (JSON) or '(none)' when the product was never bought; exit 0 either way. --format api prints the App Store Server API TransactionInfoResponse.",
    example: "storesim latest subscription.pro --json")

  @OptionGroup var output: SignedOrAPIFormat
  @Arguments(1...1, "product id")
  var arguments: [String]

  var configurationReferences: [ConfigurationReference] { [.product(arguments[0])] }

  func validate() throws { try output.validate(command: "latest") }

  func run(_ inv: Invocation) throws -> ExitCode {
    let api = output.api
    return try inspecting(inv, needsNotifications: false) { store, customer in
      let p = arguments[0]
      _ = try store.checkedProduct(p)
      let t = store.latestTransaction(for: p, customer: customer)
      if api {
        let response =
          try t.map { try ServerAPIAnswer.get("/inApps/v1/transactions/\($0.id)", store: store, inv: inv) }
          ?? .object(["signedTransactionInfo": nil])
        inv.emit(json: response) { inv.printJSON(response) }
      } else if output.signed {
        let jws = t.map { store.signed($0, customer: customer) }
        inv.emit(json: jws.map(JSONOutput.string) ?? .null, line: jws ?? "(none)")
      } else {
        inv.emit(
          json: t.map { store.payload($0, customer: customer) } ?? .null,
          line: t.map { Render.transactions([$0]) } ?? "(none)")
      }
      return .success
    }
  }
}

/// `storesim status [GROUP|PRODUCT]`.
struct StatusCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "status", group: "Inspection",
    abstract: "Subscription status per group: state, renewal info, latest transaction",
    arguments: "[<group>|<product-id>]",
    discussion:
      "--signed replaces transaction and renewalInfo with signedTransactionInfo and signedRenewalInfo (JWS); "
      + "--format api prints the App Store Server API StatusResponse. state is subscribed, expired, "
      + "inBillingRetryPeriod, inGracePeriod or revoked; status is the server's 1–5. JSON gives one object per status "
      + "(own and family shared).",
    example: "storesim status --json")

  @OptionGroup var output: SignedOrAPIFormat
  @Arguments(0...1, "group or product")
  var arguments: [String]

  var configurationReferences: [ConfigurationReference] { arguments.prefix(1).map { .groupOrProduct($0) } }

  func validate() throws { try output.validate(command: "status") }

  func run(_ inv: Invocation) throws -> ExitCode {
    let api = output.api
    return try inspecting(inv, needsNotifications: false) { store, customer in
      if let error = store.settings.simulatedError(forAPI: .subscriptionStatus) {
        throw CLIError.failed("Subscription Status failed with simulated error \(error)")
      }
      let arg = arguments.first
      var groups = store.configuration.subscriptionGroups.map(\.id)
      if let arg {
        guard let group = SubscriptionSubject.group(arg, in: store.configuration) else {
          throw CLIError.refusedArgument(SubscriptionSubject.unknown(arg, in: store.configuration))
        }
        groups = [group]
      }
      let statuses = groups.flatMap { store.statuses(forGroup: $0, customer: customer) }
      if api {
        var response: JSONOutput = .object([:])
        if let id = ServerAPIAnswer.anyTransactionID(of: customer, in: store) {
          response = try ServerAPIAnswer.get("/inApps/v1/subscriptions/\(id)", store: store, inv: inv)
        }
        // The API answers every group; a group or product given narrows `data` to its group.
        if case .object(var fields) = response, case .array(let data)? = fields["data"] {
          fields["data"] = .array(
            data.filter { entry in
              guard case .string(let g)? = entry["subscriptionGroupIdentifier"] else { return false }
              return groups.contains(g)
            })
          response = .object(fields)
        }
        inv.emit(json: response) { inv.printJSON(response) }
        return .success
      }
      if output.signed {
        let response = JSONOutput.array(
          statuses.map { s in
            .object([
              "subscriptionGroupIdentifier": .string(s.groupID), "state": .string(s.state.rawValue),
              "status": .int(Int64(s.state.serverStatus)),
              "signedTransactionInfo": .string(store.signed(s.transaction, customer: customer)),
              "signedRenewalInfo": .string(store.signed(s.renewalInfo, customer: customer)),
            ])
          })
        inv.emit(json: response) { inv.printJSON(response) }
        return .success
      }
      if inv.printsJSON {
        inv.writeJSON(JSONOutput.array(statuses.map { store.payload($0, customer: customer) }).rendered(pretty: true))
      }
      guard inv.printsText else { return .success }
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
  }
}

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

/// `storesim pending`.
struct PendingCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "pending", group: "Inspection",
    abstract: "Open Ask to Buy requests, interrupted purchases and refund requests",
    discussion: "Refund requests (kind refund) wait for 'refund approve' or 'refund decline'.",
    example: "storesim pending")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv) { store, customer in
      let list = store.pendingRequests(customer: customer)
      let refunds = store.refundRequests(customer: customer)
      func ms(_ d: Date) -> JSONOutput { .int(d.epochMilliseconds) }
      inv.emit(
        json: .array(
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
            })
      ) {
        guard !list.isEmpty || !refunds.isEmpty else { return inv.out("(none)") }
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
  }
}

/// `storesim receipt`.
struct ReceiptCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "receipt", group: "Inspection",
    abstract: "A verifyReceipt-shaped response for the customer",
    discussion:
      "status, environment, receipt.in_app, latest_receipt_info, pending_renewal_info, all values as strings like "
      + "Apple's. A sandbox or test-environment receipt asked at the production endpoint answers 21007; a production "
      + "one asked at the sandbox 21008.",
    example: "storesim receipt --endpoint Production --json")

  @Arguments(0...0, "")
  var arguments: [String]
  @Option(
    "<env>", help: "the verifyReceipt endpoint asked: Production or Sandbox (default: the session's)",
    parse: ReceiptCommand.endpoint)
  var endpoint: StoreEnvironment?
  @Option("<code>", help: "answer with this error status (21000–21010, 21100–21199)", parse: ReceiptCommand.status)
  var status: Int?

  static func endpoint(_ text: String, _ context: ParseContext) throws -> StoreEnvironment {
    guard let e = StoreEnvironment(userInput: text), e == .production || e == .sandbox else {
      throw CLIError.usage("--endpoint takes Production or Sandbox, not '\(text)'", command: "receipt")
    }
    return e
  }

  static func status(_ text: String, _ context: ParseContext) throws -> Int {
    guard let code = Int(text), Store.receiptStatusCodes[code] != nil || (21100...21199).contains(code) else {
      throw CLIError.usage("--status takes a verifyReceipt status: 0, 21000–21010 or 21100–21199", command: "receipt")
    }
    return code
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let forced = status
    return try SessionContext.with(inv, mutating: false) { store in
      let response = store.receipt(customer: SessionContext.customer(inv), askedAs: endpoint, forcedStatus: forced)
      inv.emit(json: response) {
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
  }
}
