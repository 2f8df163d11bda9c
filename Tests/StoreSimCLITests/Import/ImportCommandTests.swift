import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimCrypto

/// `storesim import` (issue 49): Apple's data in, the customer rebuilt, the session going on.
@Suite struct ImportCommandTests {
  static let premium = "com.example.premium.monthly"

  /// A Sandbox session with one subscriber's history: a trial, renewals, an app account token.
  static func subscriber(_ cli: CLIHarness, session: String = "a.json") {
    for line in [
      "init Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox --session \(session)",
      "buy \(premium) --app-account-token 11111111-2222-4333-8444-555555555555 --session \(session)",
      "advance 2mo --session \(session)",
      "cancel \(premium) --session \(session)",
      "advance 5d --session \(session)",
    ] {
      let r = cli.run(line)
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
  }

  static func api(_ cli: CLIHarness, _ path: String, session: String) -> String {
    let r = cli.run(["api", "GET", path, "--session", session])
    #expect(r.code == 0, "\(path): \(r.stderr)")
    #expect(r.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
    // The body, after the status line.
    return String(r.stdout.drop { $0 != "\n" }.dropFirst())
  }

  static func write(_ cli: CLIHarness, _ name: String, _ text: String) throws {
    try text.write(toFile: cli.folder + "/" + name, atomically: true, encoding: .utf8)
  }

  static func bytes(_ cli: CLIHarness, _ name: String) -> Data? {
    FileManager.default.contents(atPath: cli.folder + "/" + name)
  }

  /// A JSON value as text, locations left out.
  static func flat(_ n: JSONNode) -> String {
    switch n.value {
    case .null: "null"
    case .bool(let b): "\(b)"
    case .number(let x): x
    case .string(let x): "\"\(x)\""
    case .array(let items): "[" + items.map(flat).joined(separator: ",") + "]"
    case .object(let members): "{" + members.map { "\($0.key):\(flat($0.value))" }.sorted().joined(separator: ",") + "}"
    }
  }

  /// Every JWS in a JSON text decoded, `signedDate` left out, keyed by where it stood.
  static func decoded(_ text: String) throws -> [String] {
    let node = try JSONParser.parse(Array(text.utf8))
    var out: [String] = []
    func walk(_ n: JSONNode, _ path: String) {
      switch n.value {
      case .object(let members):
        for m in members { walk(m.value, path + "." + m.key) }
      case .array(let items):
        for (i, item) in items.enumerated() { walk(item, path + "[\(i)]") }
      case .string(let s) where s.split(separator: ".").count == 3 && s.hasPrefix("eyJ"):
        guard let payload = JWS.payload(of: s), let inner = try? JSONParser.parse(payload),
          let members = inner.members
        else { return out.append(path + " undecodable") }
        let fields = members.filter { $0.key != "signedDate" }
          .map { "\($0.key)=\(flat($0.value))" }.sorted()
        out.append(path + " " + fields.joined(separator: ","))
      default: break
      }
    }
    walk(node, "")
    return out
  }

  @Test func importRoundTripReadsBackTheSame() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    let history = Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    let statuses = Self.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "a.json")
    try Self.write(cli, "history.json", history)
    try Self.write(cli, "statuses.json", statuses)
    #expect(
      cli.run("init Premium.storekit --start 2025-06-01T00:00:00Z --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import history.json statuses.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("for default"))
    let historyB = Self.api(cli, "/inApps/v2/history/2000000000000001", session: "b.json")
    let statusesB = Self.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "b.json")
    #expect(try Self.decoded(historyB) == Self.decoded(history))
    #expect(try Self.decoded(statusesB) == Self.decoded(statuses))
    #expect(try !Self.decoded(history).isEmpty)
  }

  /// Subscription cases of the scenarios under Scripts/ (flows 4, 5 and 7): billing retry and
  /// grace, refunds (whole and prorated), an upgrade, a commitment plan.
  static let cases: [(config: String, lines: [String])] = [
    (
      "Premium.storekit",
      [
        "buy \(premium)", "advance 1w", "settings billing-retry on", "settings grace-period on", "advance --next",
      ]
    ),
    ("Premium.storekit", ["buy \(premium)", "advance 1mo", "refund 2000000000000002 --percent 40"]),
    (
      "Premium.storekit", ["buy \(premium)", "advance 2w", "buy com.example.premium.yearly", "refund 2000000000000001"]
    ),
    ("CommitmentPlan.storekit", ["buy com.example.studio.pro.yearly --billing-plan monthly", "advance --next"]),
  ]

  @Test(arguments: 0..<cases.count) func importRoundTripOfScenarioCases(_ index: Int) throws {
    let cli = try CLIHarness()
    let (config, lines) = Self.cases[index]
    try? FileManager.default.copyItem(
      atPath: CLIHarness.projectRoot.appendingPathComponent("Configurations/\(config)").path,
      toPath: cli.folder + "/" + config)
    let start = "init \(config) --start 2026-01-01T00:00:00Z --environment Sandbox"
    for line in [start] + lines {
      let r = cli.run(line + " --session a.json")
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
    let history = Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    let statuses = Self.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "a.json")
    try Self.write(cli, "history.json", history)
    try Self.write(cli, "statuses.json", statuses)
    #expect(cli.run("init \(config) --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import history.json statuses.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(
      try Self.decoded(Self.api(cli, "/inApps/v2/history/2000000000000001", session: "b.json"))
        == Self.decoded(history))
    #expect(
      try Self.decoded(Self.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "b.json"))
        == Self.decoded(statuses))
  }

  @Test func importGoesOnFromTheNewestTimeAndNewIDsDoNotCollide() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    try Self.write(cli, "history.json", Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json"))
    let nowA = cli.run("now --session a.json").stdout
    // A session made later than the data: the clock goes back to the data's time.
    #expect(
      cli.run("init Premium.storekit --start 2027-01-01T00:00:00Z --environment Sandbox --session b.json").code == 0)
    #expect(cli.run("import history.json --session b.json").code == 0)
    // The clock stands at the newest time in the data: the last signature, a's clock.
    #expect(cli.run("now --session b.json").stdout == nowA)
    let buy = cli.run("buy com.example.premium.yearly --session b.json --json")
    #expect(buy.code == 0, "\(buy.stderr)")
    let ids = try Self.decoded(Self.api(cli, "/inApps/v2/history/2000000000000001", session: "b.json"))
      .compactMap { $0.split(separator: ",").first { $0.hasPrefix("transactionId=") } }
    #expect(Set(ids).count == ids.count)
  }

  @Test func importLinksCustomersByOriginalTransactionAndResponse() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    #expect(cli.run("buy com.example.premium.yearly --customer bob --session a.json").code == 0)
    try Self.write(cli, "history.json", Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json"))
    try Self.write(cli, "statuses.json", Self.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "a.json"))
    let log = cli.run("notifications --signed --session a.json").stdout
    try Self.write(cli, "webhook.log", log)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    // The history, the statuses and the webhook's notifications of the first customer are one
    // customer (one original transaction); bob's purchase, only in the webhook log, another.
    let r = cli.run("import history.json statuses.json webhook.log --session b.json --json")
    #expect(r.code == 0, "\(r.stderr)")
    let summary = try JSONParser.parse(Array(r.stdout.utf8))
    guard case .array(let customers)? = summary["customers"]?.value else {
      Issue.record("no customers in \(r.stdout)")
      return
    }
    #expect(customers.map(Self.flat) == ["\"customer-2000000000000001\"", "\"customer-\(Self.bobID(log))\""])
  }

  /// The original transaction id of the last notification in a webhook log (bob's purchase).
  static func bobID(_ log: String) -> String {
    guard let last = log.split(separator: "\n").last, let line = try? JSONParser.parse(Array(last.utf8)),
      case .string(let jws)? = line["signedPayload"]?.value, let p = JWS.payload(of: jws),
      let n = try? JSONParser.parse(p), case .string(let t)? = n["data"]?["signedTransactionInfo"]?.value,
      let tp = JWS.payload(of: t), let tn = try? JSONParser.parse(tp),
      case .string(let id)? = tn["originalTransactionId"]?.value
    else { return "?" }
    return id
  }

  @Test func importRefusesTransactionsAlreadyInTheSession() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    try Self.write(cli, "history.json", Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json"))
    let before = Self.bytes(cli, "a.json")
    let r = cli.run("import history.json --session a.json")
    #expect(r.code == 65)
    #expect(r.stderr.contains("transaction 2000000000000001 is already in the session"))
    #expect(Self.bytes(cli, "a.json") == before)
  }

  @Test func importIsAllOrNothing() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    let history = Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    try Self.write(cli, "history.json", history)
    try Self.write(cli, "broken.json", "{\"signedTransactions\": [\"not-a-jws\"]}")
    try Self.write(cli, "refused.json", "{\"errorCode\": 4040010, \"errorMessage\": \"Transaction id not found.\"}")
    try Self.write(cli, "other.json", history.replacingOccurrences(of: "\"bundleId\":\"", with: "\"bundleId\":\"x."))
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let before = Self.bytes(cli, "b.json")
    let r = cli.run("import history.json broken.json other.json refused.json --session b.json")
    #expect(r.code == 65)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix("error: broken.json: signedTransactions[0]: is not a JWS") })
    #expect(lines.contains { $0.hasPrefix("error: other.json: is for bundle x.") })
    #expect(lines.contains("error: refused.json: is an error response (errorCode 4040010: Transaction id not found.)"))
    #expect(lines.last == "error: import refused: 3 problems, nothing imported")
    #expect(Self.bytes(cli, "b.json") == before)
  }

  @Test func importRefusesUnknownProductsUnlessAddProducts() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    try Self.write(cli, "history.json", Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json"))
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    let before = Self.bytes(cli, "b.json")
    let refused = cli.run("import history.json --session b.json")
    #expect(refused.code == 65)
    #expect(refused.stderr.contains("names product \(Self.premium), which the configuration lacks"))
    #expect(Self.bytes(cli, "b.json") == before)
    let added = cli.run("import history.json --add-products --session b.json")
    #expect(added.code == 0, "\(added.stderr)")
    #expect(added.stdout.contains("added products \(Self.premium)"))
    #expect(cli.run("advance 1mo --session b.json").code == 0)
  }

  @Test func importReadsAWebhookLogAsNotificationsAlreadySent() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    // A webhook log: one {"signedPayload": ...} a line, as a receiver logs its bodies.
    let log = cli.run("notifications --signed --session a.json")
    #expect(log.code == 0)
    try Self.write(cli, "webhook.log", log.stdout)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import webhook.log --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let a = cli.run("notifications --json --session a.json").stdout
    let b = cli.run("notifications --json --session b.json").stdout
    #expect(try Self.decoded(b) == Self.decoded(a))
    #expect(try Self.decoded(a).count >= 3)
    #expect(cli.run("status --session b.json").code == 0)
    // Already sent: a delivery URL set, the imported notifications are not posted again.
    #expect(cli.run("init Premium.storekit --environment Sandbox --session c.json").code == 0)
    #expect(cli.run("settings deliver-url http://127.0.0.1:9/unreachable --session c.json").code == 0)
    let quiet = cli.run("import webhook.log --session c.json")
    #expect(quiet.code == 0)
    #expect(quiet.stderr == "")
  }

  @Test func importVerifyRootRefusesWhatDoesNotVerify() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    let history = Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    try Self.write(cli, "history.json", history)
    try Self.write(cli, "root.pem", cli.run("certificate --session a.json").stdout)
    // The same data with the first signature's last characters changed: it decodes, and does not verify.
    let list = try #require(history.range(of: "\"signedTransactions\":[\""))
    let first = try #require(history.range(of: "\"", range: list.upperBound..<history.endIndex))
    var tampered = history
    tampered.replaceSubrange(tampered.index(first.lowerBound, offsetBy: -4)..<first.lowerBound, with: "AAAA")
    try Self.write(cli, "tampered.json", tampered)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let refused = cli.run("import tampered.json --verify-root root.pem --session b.json")
    #expect(refused.code == 65)
    #expect(
      refused.stderr.contains("tampered.json: signedTransactions[0]: signature does not verify against --verify-root"))
    let verified = cli.run("import history.json --verify-root root.pem --session b.json")
    #expect(verified.code == 0, "\(verified.stderr)")
    #expect(cli.run("init Premium.storekit --environment Sandbox --session c.json").code == 0)
    #expect(cli.run("import tampered.json --session c.json").code == 0)
  }

  /// JWS of any chain decode (issue 49, item 1): the same history with every JWS's header
  /// replaced by one naming another chain (an x5c of three other certificates, as Apple's
  /// production and sandbox JWS carry) and another signature imports and reads back the same.
  @Test func importDecodesJWSOfAnyChain() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    let history = Self.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    let header = JWS.base64URL(
      Array(#"{"alg":"ES256","x5c":["QXBwbGUgbGVhZg","QXBwbGUgV1dEUg","QXBwbGUgcm9vdA"]}"#.utf8))
    var other = history
    for jws in Set(history.split(separator: "\"").filter { $0.hasPrefix("eyJ") && $0.split(separator: ".").count == 3 })
    {
      let parts = jws.split(separator: ".")
      other = other.replacingOccurrences(of: String(jws), with: "\(header).\(parts[1]).c2lnbmVkIGVsc2V3aGVyZQ")
    }
    #expect(other != history)
    try Self.write(cli, "history.json", other)
    #expect(
      cli.run("init Premium.storekit --start 2025-06-01T00:00:00Z --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import history.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let read = try Self.decoded(Self.api(cli, "/inApps/v2/history/2000000000000001", session: "b.json"))
    #expect(read == (try Self.decoded(history)))
  }

  @Test func importReadsVerifyReceiptAndTransactionInfo() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    // verifyReceipt's answer: latest_receipt_info and pending_renewal_info (auto-renew off).
    let receipt = cli.run("receipt --json --session a.json")
    #expect(receipt.code == 0)
    try Self.write(cli, "receipt.json", receipt.stdout)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import receipt.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("imported 3 transactions, 1 subscription"))
    #expect(cli.run("status --session b.json").stdout.contains("subscribed  com.example.premium.monthly"))
    #expect(cli.run("status --session b.json").stdout.contains("  off"))
    // Get Transaction Info: one transaction.
    try Self.write(cli, "info.json", Self.api(cli, "/inApps/v1/transactions/2000000000000002", session: "a.json"))
    #expect(cli.run("init Premium.storekit --environment Sandbox --session c.json").code == 0)
    let info = cli.run("import info.json --session c.json")
    #expect(info.code == 0, "\(info.stderr)")
    #expect(info.stdout.hasPrefix("imported 1 transaction, 1 subscription"))
  }

  /// An app receipt, what an app sends to verifyReceipt: storesim's (base64 of the receipt's
  /// JSON) as a file or as the request body a server logs, read as verifyReceipt's `receipt`;
  /// Apple's PKCS#7 refused with one line naming the file.
  @Test func importReadsAnAppReceipt() throws {
    let cli = try CLIHarness()
    Self.subscriber(cli)
    let answer = try JSONParser.parse(Array(cli.run("receipt --json --session a.json").stdout.utf8))
    guard case .string(let data)? = answer["latest_receipt"]?.value else {
      Issue.record("no latest_receipt")
      return
    }
    try Self.write(cli, "receipt.b64", data + "\n")
    try Self.write(cli, "request.json", #"{"receipt-data": ""# + data + #"", "password": "x"}"#)
    for (file, session) in [("receipt.b64", "b.json"), ("request.json", "c.json")] {
      #expect(cli.run("init Premium.storekit --environment Sandbox --session \(session)").code == 0)
      let r = cli.run("import \(file) --session \(session)")
      #expect(r.code == 0, "\(file): \(r.stderr)")
      #expect(r.stdout.hasPrefix("imported 3 transactions, 1 subscription"), "\(file): \(r.stdout)")
    }
    // Apple's form is read too (ImportAppReceiptTests); base64 of anything else is refused.
    try Self.write(cli, "other.b64", Data([0x30, 0x82, 0x01, 0x00, 0x06, 0x09]).base64EncodedString())
    let before = Self.bytes(cli, "b.json")
    let r = cli.run("import other.b64 --session b.json")
    #expect(r.code == 65)
    #expect(r.stderr.hasPrefix("error: other.b64: is base64, but not an app receipt"), "\(r.stderr)")
    #expect(Self.bytes(cli, "b.json") == before)
  }

  @Test func importHelpMatchesGolden() throws {
    let cli = try CLIHarness()
    assertGolden(cli.transcript(["import --help"]), "import-help.txt")
  }
}
