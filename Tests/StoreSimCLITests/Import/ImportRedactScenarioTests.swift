import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimCrypto

/// `import --redact`, `import --scenario` and Get Notification History through `api` (issue 49).
@Suite struct ImportRedactScenarioTests {
  typealias T = ImportCommandTests
  static let token = "11111111-2222-4333-8444-555555555555"

  /// Session a: bob's three purchases first, so the subscriber's ids are not the session's
  /// first (a redacted import into a fresh session gives other ids), then the subscriber.
  static func source(_ cli: CLIHarness) throws -> (history: String, statuses: String) {
    #expect(
      cli.run("init Premium.storekit --start 2025-12-01T00:00:00Z --environment Sandbox --session a.json").code == 0)
    for _ in 0..<3 { #expect(cli.run("buy com.example.coins.100 --customer bob --session a.json").code == 0) }
    for line in [
      "buy \(T.premium) --app-account-token \(token) --session a.json", "advance 2mo --session a.json",
      "cancel \(T.premium) --session a.json",
    ] {
      let r = cli.run(line)
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
    let history = T.api(cli, "/inApps/v2/history/2000000000000004", session: "a.json")
    let statuses = T.api(cli, "/inApps/v1/subscriptions/2000000000000004", session: "a.json")
    try T.write(cli, "history.json", history)
    try T.write(cli, "statuses.json", statuses)
    // The subscriber's notifications only (the first three are bob's ONE_TIME_CHARGEs).
    let log = cli.run("notifications --signed --session a.json").stdout.split(separator: "\n").dropFirst(3)
    try T.write(cli, "webhook.log", log.joined(separator: "\n") + "\n")
    return (history, statuses)
  }

  /// The decoded payloads of a response with `transactionId`, `originalTransactionId`,
  /// `webOrderLineItemId`, `appAccountToken` and `appTransactionId` left out: what redaction
  /// must keep.
  static func withoutIDs(_ text: String) throws -> [String] {
    try T.decoded(text).map { entry in
      entry.split(separator: ",").filter { field in
        ![
          "transactionId=", "originalTransactionId=", "webOrderLineItemId=", "appAccountToken=", "appTransactionId=",
        ].contains {
          field.hasPrefix($0) || field.contains(" " + $0)
        }
      }.joined(separator: ",")
    }
  }

  @Test func importRedactReplacesIDsAndTokensConsistently() throws {
    let cli = try CLIHarness()
    let (history, statuses) = try Self.source(cli)
    for session in ["b.json", "c.json"] {
      #expect(cli.run("init Premium.storekit --environment Sandbox --session \(session)").code == 0)
      let r = cli.run("import --redact history.json statuses.json webhook.log --session \(session)")
      #expect(r.code == 0, "\(r.stderr)")
      // Linked as before: one customer, the history, statuses and notifications together.
      #expect(r.stdout.contains("for default"), "\(r.stdout)")
    }
    // The pseudonyms start at a fresh session's first id: the original's are 2000000000000004 on.
    let historyB = T.api(cli, "/inApps/v2/history/2000000000000001", session: "b.json")
    let statusesB = T.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "b.json")
    let notificationsB = cli.run("notifications --json --session b.json").stdout
    for text in [historyB, statusesB, notificationsB] {
      let all = try T.decoded(text).joined(separator: "\n") + text
      #expect(!all.contains(Self.token))
      #expect(!all.contains("2000000000000004"))
    }
    #expect(
      try T.decoded(historyB).allSatisfy { $0.contains("appAccountToken=\"00000000-0000-4000-8000-000000000001\"") })
    // Everything else reads back the same, and the same input gives the same pseudonyms.
    ImportScriptsRoundTripTests.same(try Self.withoutIDs(historyB), try Self.withoutIDs(history), "history")
    ImportScriptsRoundTripTests.same(try Self.withoutIDs(statusesB), try Self.withoutIDs(statuses), "statuses")
    #expect(try T.decoded(T.api(cli, "/inApps/v2/history/2000000000000001", session: "c.json")) == T.decoded(historyB))
    #expect(try T.decoded(cli.run("notifications --json --session c.json").stdout) == T.decoded(notificationsB))
    // New ids go on after the pseudonyms.
    #expect(cli.run("advance 1mo --session b.json").code == 0)
  }

  /// Runs a scenario's lines one by one in a session file (its `expect` lines left out).
  static func replay(_ cli: CLIHarness, _ scenario: String, session: String) throws {
    let text = try String(contentsOfFile: cli.folder + "/" + scenario, encoding: .utf8)
    for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("expect ") {
      var words = try ScriptLineSplitter.split(String(line))
      words += ["--session", session]
      let r = cli.run(words)
      #expect(r.code == 0, "\(line.prefix(80)): \(r.stderr)")
    }
  }

  @Test func importScenarioRecreatesTheStore() throws {
    let cli = try CLIHarness()
    _ = try Self.source(cli)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import --scenario case.storesim history.json statuses.json webhook.log --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let scenario = try String(contentsOfFile: cli.folder + "/case.storesim", encoding: .utf8)
    #expect(scenario.contains("\ninit Premium.storekit --start "))
    // A test of its own: it runs and its expectations hold.
    let run = cli.run("run case.storesim")
    #expect(run.code == 0, "\(run.stdout)\(run.stderr)")
    // Run in a fresh session, the same history, statuses and notifications (save signedDate).
    try Self.replay(cli, "case.storesim", session: "c.json")
    for path in ["/inApps/v2/history/2000000000000004", "/inApps/v1/subscriptions/2000000000000004"] {
      #expect(try T.decoded(T.api(cli, path, session: "c.json")) == T.decoded(T.api(cli, path, session: "b.json")))
    }
    #expect(
      try T.decoded(cli.run("notifications --json --session c.json").stdout)
        == T.decoded(cli.run("notifications --json --session b.json").stdout))
    #expect(cli.run("now --session c.json").stdout == cli.run("now --session b.json").stdout)
  }

  @Test func importRedactScenarioHoldsNoOriginalIDs() throws {
    let cli = try CLIHarness()
    _ = try Self.source(cli)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import --redact --scenario case.storesim history.json statuses.json webhook.log --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let scenario = try String(contentsOfFile: cli.folder + "/case.storesim", encoding: .utf8)
    let decoded = try scenario.split(separator: "'").filter { $0.hasPrefix("{") }.flatMap { try T.decoded(String($0)) }
    #expect(decoded.count > 5)
    #expect(!decoded.joined().contains(Self.token))
    #expect(!decoded.joined().contains("2000000000000004"))
    #expect(cli.run("run case.storesim").code == 0)
  }

  @Test func importScenarioRefusesAnotherExtensionAndChangesNothing() throws {
    let cli = try CLIHarness()
    _ = try Self.source(cli)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let before = T.bytes(cli, "b.json")
    let r = cli.run("import --scenario case.json history.json --session b.json")
    #expect(r.code == 64)
    #expect(r.stderr.contains("--scenario takes a file ending in .storesim"))
    let unwritable = cli.run("import --scenario nowhere/case.storesim history.json --session b.json")
    #expect(unwritable.code == 73, "\(unwritable.stderr)")
    #expect(T.bytes(cli, "b.json") == before)
  }

  @Test func importReadsNotificationHistoryAnsweredByAPI() throws {
    let cli = try CLIHarness()
    // A story within the 30 days Get Notification History keeps: a trial, a renewal, auto-renew off.
    for line in [
      "init Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox",
      // History lists what was sent: a URL that refuses every POST makes each an attempt.
      "settings deliver-url http://127.0.0.1:9/", "buy \(T.premium)", "advance 1w",
      "cancel \(T.premium)", "advance 1d",
    ] {
      #expect(cli.run(line + " --session a.json").code == 0, "\(line)")
    }
    let body = #"{"startDate": 1767225600000, "endDate": 1767916800000}"#
    let r = cli.run(["api", "POST", "/inApps/v1/notifications/history", "--data", body, "--session", "a.json"])
    #expect(r.code == 0, "\(r.stderr)")
    let answer = String(r.stdout.drop { $0 != "\n" }.dropFirst())
    #expect(answer.contains("\"notificationHistory\""))
    try T.write(cli, "notifications.json", answer)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let imported = cli.run("import notifications.json --session b.json")
    #expect(imported.code == 0, "\(imported.stderr)")
    let a = cli.run("notifications --json --session a.json").stdout
    let b = cli.run("notifications --json --session b.json").stdout
    #expect(try T.decoded(b) == T.decoded(a))
    #expect(try T.decoded(a).count >= 3)
    // The customer rebuilt from the notifications' transactions: subscribed, auto-renew off.
    #expect(cli.run("status --session b.json").stdout == cli.run("status --session a.json").stdout)
  }
}
