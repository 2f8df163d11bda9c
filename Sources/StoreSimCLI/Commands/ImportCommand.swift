import Foundation
import StoreSim
import StoreSimCrypto

/// `storesim import FILE...`: rebuilds customers from what Apple's servers handed a team, and
/// the session goes on from there (docs/import.md).
struct ImportCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "import", group: "Session and catalogue",
    abstract: "Rebuild customers from Apple's data (history, statuses, notifications, receipts)",
    arguments: "<file>...",
    discussion: """
      Each file is recognised by its content: Get Transaction History (v1, v2; pages as a JSON
      array or a page a line), Get All Subscription Statuses, Get Transaction Info, Get App
      Transaction Info, Get Refund History, Get Notification History, a webhook log (one
      {"signedPayload": "..."} a line), verifyReceipt answers and app receipts (Apple's PKCS#7
      or storesim's). JWS are decoded unchecked (they are Apple's); --verify-root refuses any
      the certificate does not verify. One history or statuses response is one customer, and so
      are transactions sharing an originalTransactionId, appTransactionId or appAccountToken: a
      lone one goes
      to an empty 'default', others to customer-<originalTransactionId>. Subscriptions are
      rebuilt from each group's latest transaction and renewal info; a v1 history beside v2
      tells the consumables the app finished; notifications are recorded as already sent (with
      their send attempts); the clock stands at the newest time in the data (or --now). On any
      problem nothing is imported (all or nothing) and each problem is one line naming the
      file, the item and what was wrong. A webhook log of any size imports in bounded memory.
      --redact replaces transaction ids, web order line item ids and app account tokens with
      stable pseudonyms; --scenario writes the store as a scenario that recreates it (an
      argument that starts with '{' is such a response, not a file name). See docs/import.md.
      """,
    example: """
      storesim import history.json statuses.json webhook.log
        storesim import --add-products --now 2026-03-01 history.json
        storesim import --redact --scenario case.storesim history.json statuses.json
      """)

  @Arguments(1...10_000, "file")
  var arguments: [String]
  @Flag(help: "make minimal products for the ones the data names and the configuration lacks")
  var addProducts: Bool
  @Option(
    "<date>", help: "the clock after the import (default: the newest time in the data)", parse: ValueParsing.dateOption)
  var now: Date?
  @Option("<cert>", help: "verify every JWS against this root certificate (PEM or DER, P-256) and refuse what does not")
  var verifyRoot: String?
  @Flag(help: "replace transaction ids, web order line item ids and app account tokens with stable pseudonyms")
  var redact: Bool
  @Option("<file>", help: "also write the store as a scenario that recreates it (a file ending in .storesim)")
  var scenario: String?

  func validate() throws {
    if let scenario, !scenario.hasSuffix(".storesim") {
      throw CLIError.usage("--scenario takes a file ending in .storesim, not \(scenario)", command: "import")
    }
  }

  static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

  /// The customers made, named when a few (`--json` lists them all).
  static func customers(_ list: [CustomerID]) -> String {
    if list.isEmpty { return "no customer" }
    if list.count > 3 { return "\(list.count) customers (\(list[0].rawValue) to \(list[list.count - 1].rawValue))" }
    return list.map(\.rawValue).joined(separator: ", ")
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    // Every file is looked at before the session is: a missing one is refused at once.
    let sources = try arguments.enumerated().map { i, text in try ImportSource(text, index: i, inv) }
    let root = try verifyRoot.map { try ImportRoot.read($0, inv) }
    var verify: (@Sendable (String) -> Bool)?
    if let root { verify = { @Sendable jws in root.verifies(jws) } }
    let options = ImportOptions(now: now, addProducts: addProducts, verify: verify, redact: redact)
    let out = try scenario.map { try ImportScenario.Target($0, inv) }
    return try SessionContext.with(inv, mutating: true) { store in
      var data = AppleDataImport(bundleID: store.state.bundleID, verify: verify)
      for source in sources { try source.feed(into: &data) }
      let summary: ImportSummary
      do {
        summary = try store.importAppleData(data, options: options)
      } catch let failure as ImportFailure {
        for problem in failure.problems { inv.err("error: \(problem)") }
        let count = failure.problems.count
        throw CLIError.data("import refused: \(count) problem\(count == 1 ? "" : "s"), nothing imported")
      }
      // Written before the session is saved: when it cannot be, nothing changes.
      if let out {
        try out.write(
          store, sources: sources.map(\.shown), redacted: redact, addedProducts: !summary.addedProducts.isEmpty)
      }
      inv.emit(
        json: .object([
          "customers": .array(summary.customers.map { .string($0.rawValue) }),
          "transactions": .int(Int64(summary.transactions)),
          "subscriptions": .int(Int64(summary.subscriptions)),
          "notifications": .int(Int64(summary.notifications)),
          "addedProducts": .array(summary.addedProducts.map { .string($0) }),
          "now": .string(ISO8601.string(summary.now)),
        ]),
        line:
          "imported \(Self.count(summary.transactions, "transaction")), "
          + "\(Self.count(summary.subscriptions, "subscription")) and "
          + "\(Self.count(summary.notifications, "notification")) for \(Self.customers(summary.customers)); "
          + "now \(ISO8601.string(summary.now))"
          + (summary.addedProducts.isEmpty ? "" : "; added products \(summary.addedProducts.joined(separator: ", "))"))
      return .success
    }
  }
}
