import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession
@testable import StoreSimTestSupport

@Suite struct CLIContractTests {
  /// A command line, the exit code it must give and what its stderr must say.
  struct Case: CustomTestStringConvertible, Sendable {
    var line: String
    var code: Int32
    var stderrContains: String
    var testDescription: String { line }
  }

  static let cases: [Case] = [
    Case(line: "frobnicate", code: 64, stderrContains: "unknown command 'frobnicate'"),
    Case(line: "by car", code: 64, stderrContains: "did you mean 'buy'?"),
    Case(line: "products --tpye x", code: 64, stderrContains: "did you mean '--type'?"),
    Case(line: "validate", code: 64, stderrContains: "missing configuration file"),
    Case(line: "validate nope.storekit", code: 66, stderrContains: "no such file: nope.storekit"),
    Case(line: "buy nonconsumable.car", code: 66, stderrContains: "no session at .storesim/session.json"),
    Case(line: "products --type gizmo AppleSample.storekit", code: 64, stderrContains: "unknown product type 'gizmo'"),
    Case(line: "advance 1m", code: 64, stderrContains: "ambiguous"),
  ]

  @Test(arguments: cases)
  func exitCodesFollowTheContract(_ c: Case) throws {
    let cli = try CLIHarness()
    let r = cli.run(c.line)
    #expect(r.code == c.code)
    #expect(r.stderr.contains(c.stderrContains), "\(r.stderr)")
    #expect(r.stderr.hasPrefix("error: "))
  }

  static let sessionCases: [Case] = [
    Case(line: "buy nonconsumable.cra", code: 64, stderrContains: "did you mean 'nonconsumable.car'?"),
    Case(line: "refund 123", code: 64, stderrContains: "no transaction with id 123"),
    Case(line: "refund abc", code: 64, stderrContains: "invalid transaction id 'abc'"),
    Case(line: "approve", code: 1, stderrContains: "no pending Ask to Buy request"),
    Case(line: "settings ask-to-by on", code: 64, stderrContains: "did you mean 'ask-to-buy'?"),
    Case(line: "settings time-rate fastest", code: 64, stderrContains: "unknown time rate 'fastest'"),
    Case(line: "settings error purchase nope", code: 64, stderrContains: "not an error purchase can throw"),
    Case(
      line: "settings fail-transactions nope", code: 64,
      stderrContains:
        "fail-transactions takes off, on, or one of unknown, invalidOfferIdentifier, invalidSignature, missingOfferParams, invalidOfferPrice"
    ),
    Case(line: "settings error nope x", code: 64, stderrContains: "unknown StoreKit API 'nope'"),
    Case(line: "products --type gadget", code: 64, stderrContains: "unknown product type 'gadget'"),
    Case(line: "advance --to 2025-01-01T00:00:00Z", code: 1, stderrContains: "cannot move backward"),
    Case(line: "advance 3 days", code: 64, stderrContains: "unexpected argument 'days'"),
    Case(line: "advance 2026-13-01", code: 64, stderrContains: "use 'advance --to DATE'"),
    Case(line: "cancel subscription.pro", code: 1, stderrContains: "no subscription to 'subscription.pro'"),
    Case(line: "init AppleSample.storekit", code: 1, stderrContains: "pass --force"),
    Case(line: "entitlements --customer nobody", code: 64, stderrContains: "no customer named 'nobody'"),
    Case(
      line: "buy consumable.fuel.octane87 --quantity 11", code: 1, stderrContains: "purchase.invalidQuantity"),
    Case(line: "buy nonconsumable.car --cancel", code: 1, stderrContains: "the customer cancelled"),
    Case(
      line: "refund request", code: 64, stderrContains: "missing transaction id or product id after 'request'"),
    Case(line: "refund request 123", code: 64, stderrContains: "no transaction with id 123"),
    Case(
      line: "refund request nonconsumable.car --reason angry", code: 64,
      stderrContains: "unknown refund request reason 'angry'"),
    Case(line: "refund aprove 1", code: 64, stderrContains: "did you mean 'approve'?"),
    Case(line: "refund approve 7", code: 64, stderrContains: "no refund request with id '7'"),
    Case(
      line: "refund decline 7 --reason other", code: 64, stderrContains: "--reason is not an option of 'refund decline'"
    ),
    Case(line: "refund reverse 123", code: 64, stderrContains: "no transaction with id 123"),
    Case(
      line: "refund --product consumable.fuel.octane87", code: 1,
      stderrContains: "no transaction for 'consumable.fuel.octane87'"),
    Case(
      line: "price-increase subscription.pro request --price -3", code: 64,
      stderrContains: "price must be a positive amount"),
    Case(
      line: "price-increase subscription.pro accept --no-consent", code: 64,
      stderrContains: "--price and --no-consent go with 'request'"),
    // Issue 15: 64 for a name that does not exist or a bad value, 1 only for what the store answered.
    Case(
      line: "buy nonconsumable.car --quantity 2", code: 64,
      stderrContains: "--quantity applies to consumables and non-renewing subscriptions"),
    Case(line: "advance -1d", code: 64, stderrContains: "duration '-1d' is negative"),
    Case(line: "status Nope", code: 64, stderrContains: "'Nope' is neither a subscription group"),
    Case(line: "timeline Nope", code: 64, stderrContains: "no subscription group 'Nope'"),
    Case(line: "approve 5", code: 64, stderrContains: "no pending request with id '5'"),
    Case(line: "cancel consumable.fuel.octane87", code: 64, stderrContains: "is not"),
    Case(line: "cancel --transaction 99", code: 64, stderrContains: "no transaction with id 99"),
    Case(line: "settings storefront XYZ", code: 64, stderrContains: "unknown storefront 'XYZ'"),
    Case(line: "notifications --retry", code: 64, stderrContains: "--retry goes with 'notifications deliver'"),
    Case(
      line: "transactions --signed --format api", code: 64, stderrContains: "give --signed or --format api, not both"),
  ]

  // refund-by-product-includes-finished-transactions
  @Test func refundByProductFindsAFinishedConsumable() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy consumable.fuel.octane87")
    cli.run("finish --all")
    let r = cli.run("refund --product consumable.fuel.octane87")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("transaction 2000000000000001 for consumable.fuel.octane87 revoked"))
  }

  // transactions --unfinished --format api lists only unfinished transactions (it listed all)
  @Test func unfinishedTransactionsInTheAPIFormatLeaveOutFinishedOnes() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy nonconsumable.car")
    cli.run("finish 2000000000000001")
    cli.run("buy consumable.fuel.octane89")
    func signedCount(_ line: String) throws -> Int? {
      let r = cli.run(line)
      #expect(r.code == 0, "\(r.stderr)")
      let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
      return (json?["signedTransactions"] as? [String])?.count
    }
    #expect(try signedCount("transactions --format api") == 2)
    #expect(try signedCount("transactions --unfinished --format api") == 1)
  }

  // refund-requests-wait-for-an-answer (they show in 'pending')
  @Test func pendingRefundRequestsShowInPendingAndItsJSON() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy nonconsumable.car")
    #expect(cli.run("refund request nonconsumable.car --reason legal").code == 0)
    #expect(cli.run("pending").stdout.contains("refund"))
    let json = try JSONSerialization.jsonObject(with: Data(cli.run("pending --json").stdout.utf8)) as? [[String: Any]]
    #expect(json?.first?["kind"] as? String == "refund")
    #expect(json?.first?["consumptionRequestReason"] as? String == "LEGAL")
    #expect(json?.first?["transactionId"] as? String == "2000000000000001")
    cli.run("refund decline 1")
    #expect(cli.run("pending").stdout.contains("(none)"))
  }

  // notification-payload-is-apple-shape (the decoded view lives outside it)
  @Test func notificationsJSONIsApplesShapeAndDecodedIsAFlag() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy subscription.pro")
    let plain =
      try JSONSerialization.jsonObject(with: Data(cli.run("notifications --json").stdout.utf8)) as? [[String: Any]]
    let data = plain?.first?["data"] as? [String: Any]
    #expect(
      Set(data?.keys ?? [:].keys) == [
        "bundleId", "environment", "signedTransactionInfo", "signedRenewalInfo", "status",
      ])
    let decoded =
      try JSONSerialization.jsonObject(with: Data(cli.run("notifications --decoded").stdout.utf8)) as? [[String: Any]]
    let decodedData = decoded?.first?["data"] as? [String: Any]
    #expect((decodedData?["transactionInfo"] as? [String: Any])?["productId"] as? String == "subscription.pro")
    #expect(decodedData?["renewalInfo"] != nil)
  }

  @Test(arguments: sessionCases)
  func misuseInASessionGivesOneLineAndChangesNothing(_ c: Case) throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let path = cli.folder + "/.storesim/session.json"
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let r = cli.run(c.line)
    #expect(r.code == c.code)
    #expect(r.stderr.contains(c.stderrContains), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").first?.hasPrefix("error: ") == true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }

  @Test func failedPurchaseStillPrintsTheOutcomeJSONAndExitsOne() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("settings error purchase networkError")
    let r = cli.run("buy nonconsumable.car --json")
    #expect(r.code == 1)
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    #expect(json?["result"] as? String == "failed")
    #expect(json?["error"] as? String == "generic.networkError")
  }

  @Test func damagedSessionFilesAreRefusedAndLeftUntouched() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let path = cli.folder + "/.storesim/session.json"
    let original = try String(contentsOfFile: path, encoding: .utf8)
    let damaged: [(String, String)] = [
      (String(original.prefix(original.count / 2)), "corrupt"),
      (original.replacingOccurrences(of: #""version":6"#, with: #""version":99"#), "newer than this storesim"),
      (
        original.replacingOccurrences(of: #""codec":"compact-1""#, with: #""codec":"zip""#).replacingOccurrences(
          of: #"{"codec":"compact-1""#, with: #"{"codec":"zip""#), "corrupt"
      ),
      (#"{"hello": "world"}"#, "not a storesim session"),
      ("", "corrupt"),
    ]
    for (text, message) in damaged {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      let r = cli.run("buy nonconsumable.car")
      #expect(r.code == 65)
      #expect(r.stderr.contains(message), "\(r.stderr)")
      #expect(r.stderr.contains(".storesim/session.json"))
      #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }
    let restart = cli.run("init AppleSample.storekit --force")
    #expect(restart.code == 0)
    #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
    #expect(cli.run("buy nonconsumable.car").code == 0)
  }

  @Test func versionOneSessionFilesStillLoadAndAreRewrittenAsTheCurrentVersion() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy subscription.pro")
    let path = cli.folder + "/.storesim/session.json"
    let before = cli.run("status --json").stdout
    let document = try SessionFile.read(path, shownAs: "s")
    var v1 = document
    v1.version = 1
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .millisecondsSince1970
    try encoder.encode(v1).write(to: URL(fileURLWithPath: path))
    #expect(cli.run("status --json").stdout == before)
    #expect(cli.run("buy nonconsumable.car").code == 0)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.hasPrefix("{") && text.contains(#""version":\#(SessionDocument.currentVersion)"#))
    #expect(try SessionFile.read(path, shownAs: "s").state.customers[0].transactions.count == 2)
  }

  @Test func compactCodecRoundTripsABusyState() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    _ = try store.buyProduct("car")
    _ = try store.buyProduct("fuel", options: PurchaseOptions(quantity: 2, appAccountToken: UUID()))
    _ = try store.buyProduct("monthly")
    _ = try store.buyProduct("monthly", options: PurchaseOptions(offer: .promotional("promo.half")))
    store.settings.shouldEnterBillingRetryOnRenewal = true
    store.settings.billingGracePeriodIsEnabled = true
    try store.advance(by: 86_400 * 40)
    try store.refund(2_000_000_000_000_001, reason: .developerIssue)
    store.settings.askToBuyEnabled = true
    _ = try store.purchase("pass", customer: "kid")
    let bytes = try StateCodec.encode(store.state)
    #expect(try StateCodec.decode(bytes) == store.state)
    #expect(throws: StateCodec.DecodingError.self) { try StateCodec.decode(Array(bytes.prefix(bytes.count / 2))) }

    // Reading commands may skip the outbox: everything else decodes the same, and a document
    // cut anywhere is still refused.
    var partial = store.state
    partial.notifications = []
    #expect(!store.state.notifications.isEmpty)
    let skipped = try bytes.withUnsafeBufferPointer { try StateCodec.decode($0, skippingNotifications: true) }
    #expect(skipped == partial)
    for cut in [bytes.count / 2, bytes.count - 40, bytes.count - 1] {
      #expect(throws: StateCodec.DecodingError.self) {
        try Array(bytes.prefix(cut)).withUnsafeBufferPointer { try StateCodec.decode($0, skippingNotifications: true) }
      }
    }
  }

  @Test func readingCommandsLeaveTheSessionFileAsItWas() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy subscription.standard")
    #expect(cli.run("advance 2mo").code == 0)
    let path = cli.folder + "/.storesim/session.json"
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    for command in ["entitlements", "transactions", "latest subscription.standard", "status"] {
      #expect(cli.run(command).code == 0, "\(command)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(cli.run("notifications --json").stdout.contains("DID_RENEW"))
  }

  @Test func parallelBuysOnOneSessionLoseNoUpdate() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    DispatchQueue.concurrentPerform(iterations: 20) { _ in
      let env = CLIEnvironment(
        writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder, now: { Date(timeIntervalSince1970: 0) })
      _ = CLI.run(["buy", "consumable.fuel.octane87"], environment: env)
    }
    let r = cli.run("transactions --json")
    let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [Any]
    #expect(list?.count == 20)
  }

  @Test func dateWithoutZoneIsReadAsUTCAndSaysSo() throws {
    let cli = try CLIHarness()
    let r = cli.run("init AppleSample.storekit --start 2026-05-01T10:00:00")
    #expect(r.code == 0)
    #expect(r.stderr.contains("no time zone; read as UTC"))
    #expect(cli.run("now").stdout == "2026-05-01T10:00:00Z\n")
  }

  @Test func durationsParseStrictly() throws {
    #expect(try ValueParsing.duration("15min").seconds == 900)
    #expect(try ValueParsing.duration("1d12h").seconds == 129_600)
    #expect(try ValueParsing.duration("1mo").months == 1)
    #expect(try ValueParsing.duration("1y").months == 12)
    #expect(try ValueParsing.duration("P1M").months == 1)
    #expect(try ValueParsing.duration("PT2H").seconds == 7200)
    #expect(try ValueParsing.duration("P1DT2H").seconds == 93_600)
    #expect(throws: (any Error).self) { try ValueParsing.duration("1m") }
    #expect(throws: (any Error).self) { try ValueParsing.duration("P") }
    #expect(throws: (any Error).self) { try ValueParsing.duration("5") }
    #expect(try ValueParsing.date("2026-02-03T04:05:06+02:00") == Date(timeIntervalSince1970: 1_770_084_306))
    #expect(throws: (any Error).self) { try ValueParsing.date("2026-02-30") }
  }

  @Test func editedConfigurationIsReloadedWithANotice() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let path = cli.folder + "/AppleSample.storekit"
    let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"4.99\"", with: "\"5.99\"")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let r = cli.run("buy nonconsumable.racecar --json")
    #expect(r.stderr.contains("changed since the session was made; reloaded"))
    #expect(r.stdout.contains("\"price\": 5990"))
    #expect(!cli.run("now").stderr.contains("changed"))
  }

  @Test func commandTableHasUniqueNamesAndHelpForEveryCommand() {
    let names = CommandTable.standard.names
    #expect(Set(names).count == names.count)
    for spec in CommandTable.standard.commands {
      #expect(!spec.abstract.isEmpty)
      #expect(spec.example.contains("storesim \(spec.name)"))
      for option in spec.options {
        #expect(!option.help.isEmpty)
        #expect(
          !globalOptions.contains { $0.name == option.name },
          "\(spec.name) --\(option.name) clashes with a global option")
      }
    }
  }
}
