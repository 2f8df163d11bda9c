import Foundation
import StoreSimSync
import Testing

@testable import StoreSim
@testable import StoreSimCLI

@Suite struct ScenarioTests {
  static let scripts: [String] = {
    let folder = CLIHarness.projectRoot.appendingPathComponent("Scripts").path
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".storesim") }
      .sorted()
  }()

  @Test(arguments: scripts)
  func everyScenarioInScriptsPasses(_ name: String) throws {
    let cli = try CLIHarness()
    let r = cli.run(["run", CLIHarness.projectRoot.appendingPathComponent("Scripts/\(name)").path])
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("PASS"))
  }

  func write(_ text: String, in cli: CLIHarness, name: String = "s.storesim") throws -> String {
    let path = cli.folder + "/" + name
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return name
  }

  @Test func failedExpectationNamesFileAndLineAndTheRunGoesOn() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init AppleSample.storekit --start 2026-01-01T00:00:00Z
      buy nonconsumable.car
      expect entitled nonconsumable.racecar
      expect notification REFUND
      expect entitled nonconsumable.car
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 1)
    #expect(r.stderr.contains("s.storesim:3: expected nonconsumable.racecar to be entitled, got not entitled"))
    #expect(r.stderr.contains("s.storesim:4: expected notification REFUND, got ONE_TIME_CHARGE"))
    #expect(!r.stderr.contains(":5:"))
  }

  @Test func syntaxErrorIsReportedWithItsLineBeforeAnythingRuns() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init AppleSample.storekit
      echo this must not print
      expect entitle nonconsumable.car
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 65)
    #expect(r.stderr.contains("s.storesim:3: error: unknown expectation 'entitle'; did you mean 'entitled'?"))
    #expect(!r.stdout.contains("must not print"))
  }

  // Issue 15: every line is checked with the code that runs it, all errors of all files are
  // reported, and the other files still run.
  @Test func everyErrorOfEveryFileIsReportedBeforeAnythingRuns() throws {
    let cli = try CLIHarness()
    let bad = try write(
      """
      init AppleSample.storekit --start 2026-01-01T00:00:00Z
      echo this must not print
      buy nonconsumable.car
      expect latest nonconsumable.car revocatonDate absent
      expect latest nonconsumable.car nosuchfield 3
      advance 1m
      buy consumable.fuel.octane87 --quantity lots
      advance -1d
      buy nonconsumable.cra
      buy nonconsumable.car --quantity 2
      expect state Nav subscribed
      settings ask-to-by on
      expect now 2026-02-30
      expect latest nonconsumable.car purchaseDate yesterday
      expect pending many
      expect notification DID_RENEWW
      """, in: cli, name: "bad.storesim")
    let other = try write("init AppleSample.storekit\nbad line 'open\n", in: cli, name: "other.storesim")
    let good = try write(
      "init AppleSample.storekit\necho the good file runs\nexpect pending 0\n", in: cli, name: "good.storesim")
    let r = cli.run("run \(bad) \(other) \(good) --junit report.xml")
    #expect(r.code == 65)
    let expected = [
      "bad.storesim:4: error: unknown field 'revocatonDate' of a transaction (JWSTransactionDecodedPayload); did you mean 'revocationDate'?",
      "bad.storesim:5: error: unknown field 'nosuchfield' of a transaction",
      "bad.storesim:6: error: duration '1m' is ambiguous",
      "bad.storesim:7: error: quantity must be a whole number, not 'lots'",
      "bad.storesim:8: error: duration '-1d' is negative",
      "bad.storesim:9: error: product 'nonconsumable.cra' is not in the configuration; did you mean 'nonconsumable.car'?",
      "bad.storesim:10: error: --quantity applies to consumables and non-renewing subscriptions",
      "bad.storesim:11: error: 'Nav' is neither a subscription group nor an auto-renewable product; did you mean 'Navigation Services'?",
      "bad.storesim:12: error: unknown setting 'ask-to-by'; did you mean 'ask-to-buy'?",
      "bad.storesim:13: error: invalid date '2026-02-30'",
      "bad.storesim:14: error: purchaseDate is a date: invalid date 'yesterday'",
      "bad.storesim:15: error: expect pending takes a count, not 'many'",
      "bad.storesim:16: error: unknown notification type 'DID_RENEWW'; did you mean 'DID_RENEW'?",
      "other.storesim:2: error: unterminated quote",
    ]
    for line in expected { #expect(r.stderr.contains(line), "missing: \(line)\n\(r.stderr)") }
    #expect(r.stderr.components(separatedBy: ": error: ").count - 1 == expected.count, "\(r.stderr)")
    #expect(!r.stdout.contains("must not print"))
    #expect(r.stdout.contains("the good file runs"))
    #expect(r.stdout.contains("ERROR bad.storesim  (13 errors; not run)"))
    #expect(r.stdout.contains("PASS  good.storesim  (1 expectation)"))
    let xml = try String(contentsOfFile: cli.folder + "/report.xml", encoding: .utf8)
    #expect(xml.contains(#"tests="3" failures="0" errors="2""#))
    #expect(
      xml.contains(#"<error type="scenario error" message="13 errors; not run">bad.storesim:4: error: unknown field"#))
    let json =
      try JSONSerialization.jsonObject(with: Data(cli.run("run \(bad) \(good) --json").stdout.utf8)) as? [String: Any]
    let scenarios = json?["scenarios"] as? [[String: Any]]
    #expect((scenarios?.first?["errors"] as? [Any])?.count == 13)
    #expect(scenarios?.first?["passed"] as? Bool == false)
    #expect(scenarios?.last?["passed"] as? Bool == true)
  }

  @Test func aMissingConfigurationIsOneErrorAtTheInitLine() throws {
    let cli = try CLIHarness()
    let file = try write("init Nope.storekit\nbuy nonconsumable.car\nexpect pending 0\n", in: cli, name: "m.storesim")
    let r = cli.run("run \(file)")
    #expect(r.code == 65)
    #expect(r.stderr.hasPrefix("m.storesim:1: error: "), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    let noInit = try write("buy nonconsumable.car\n", in: cli, name: "n.storesim")
    #expect(
      cli.run("run \(noInit)").stderr
        == "n.storesim:1: error: no session yet; start the scenario with 'init CONFIG.storekit'\n")
  }

  @Test func failuresReadLikeTheExpectationInLineOrderWithRightCounts() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init AppleSample.storekit --start 2026-01-01T00:00:00Z
      buy subscription.pro
      expect latest subscription.pro expiresDate 2026-03-03T00:00:00Z
      expect latest subscription.pro expiresDate 2026-03-03
      refund 5
      expect state "Navigation Services" inGracePeriod
      expect renewal subscription.pro renewalDate 1772236800000
      expect transactions 2 --product subscription.pro
      """, in: cli, name: "f.storesim")
    let r = cli.run("run \(file)")
    #expect(r.code == 1)
    #expect(
      r.stderr == """
        f.storesim:3: expected latest subscription.pro expiresDate 2026-03-03T00:00:00Z, got 2026-03-01T00:00:00Z
        f.storesim:4: expected latest subscription.pro expiresDate 2026-03-03, got 2026-03-01
        f.storesim:5: command failed: no transaction with id 5
        f.storesim:6: expected Navigation Services to be inGracePeriod, got subscribed
        f.storesim:7: expected renewal subscription.pro renewalDate 1772236800000, got 1772323200000
        f.storesim:8: expected 2 transactions of subscription.pro, got 1

        """)
    #expect(r.stdout.contains("FAIL  f.storesim  (5 of 5 expectations failed, 1 command failed)"))
  }

  @Test func commandFailureWithoutExpectErrorFailsTheScenario() throws {
    let cli = try CLIHarness()
    let file = try write("init AppleSample.storekit\nrefund 1\nnow\n", in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 1)
    #expect(r.stderr.contains("s.storesim:2: command failed: no transaction with id 1"))
    let ok = try write(
      "init AppleSample.storekit\nrefund 1\nexpect error no transaction\n", in: cli, name: "t.storesim")
    #expect(cli.run("run \(ok)").code == 0)
  }

  @Test func junitReportHasOneTestCasePerFile() throws {
    let cli = try CLIHarness()
    let good = try write("init AppleSample.storekit\nexpect pending 0\n", in: cli, name: "good.storesim")
    let bad = try write("init AppleSample.storekit\nexpect pending 2\n", in: cli, name: "bad.storesim")
    let r = cli.run("run \(good) \(bad) --junit report.xml")
    #expect(r.code == 1)
    let xml = try String(contentsOfFile: cli.folder + "/report.xml", encoding: .utf8)
    #expect(xml.contains(#"tests="2" failures="1""#))
    #expect(xml.contains(#"name="good.storesim""#))
    #expect(xml.contains("bad.storesim:2: expected 2 pending, got 0"))
  }

  @Test func scenariosRunInFreshSessionsAndLeaveNoSessionFile() throws {
    let cli = try CLIHarness()
    let file = try write("init AppleSample.storekit\nbuy nonconsumable.car\nexpect transactions 1\n", in: cli)
    #expect(cli.run("run \(file) \(file)").code == 0)
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/.storesim/session.json"))
  }

  @Test func quotesAndCommentsSplitLikeAShell() throws {
    #expect(
      try ScriptLineSplitter.split(#"buy "a b" --offer 'promotional:$4 for month' # note"#) == [
        "buy", "a b", "--offer", "promotional:$4 for month",
      ])
    #expect(try ScriptLineSplitter.split("# only a comment").isEmpty)
    #expect(throws: (any Error).self) { try ScriptLineSplitter.split(#"buy "open"#) }
  }
}

@Suite struct ShellAndTimelineTests {
  static let lines = [
    "init AppleSample.storekit --start 2026-01-01T00:00:00Z",
    "buy nonconsumable.car",
    "buy subscription.standard",
    "expect entitled nonconsumable.car",
    "settings billing-retry on",
    "settings grace-period on",
    "advance 40d",
    "advance 20d",
    "settings billing-retry off",
    "resolve subscription.standard",
    "buy subscription.pro",
    "refund --product nonconsumable.car",
    "advance 1mo",
    "timeline",
  ]

  @Test func pipedShellAnswersExactlyLikeTheSameScenario() throws {
    let cli = try CLIHarness()
    try Self.lines.joined(separator: "\n").write(toFile: cli.folder + "/t.storesim", atomically: true, encoding: .utf8)
    let scenario = cli.run("run --verbose t.storesim")
    let input = LineFeed(Self.lines)
    let box = Mutex(CapturedOutput())
    let env = CLIEnvironment(
      writeOut: { s in box.withLock { $0.out += s } }, writeErr: { s in box.withLock { $0.out += s } },
      currentDirectory: cli.folder, now: { Date(timeIntervalSince1970: 0) }, isTerminal: false,
      readLine: { input.next() })
    let code = CLI.run(["shell"], environment: env)
    #expect(code == 0)
    let expected = (scenario.stdout + scenario.stderr).split(separator: "\n").filter {
      !$0.hasPrefix("PASS") && !$0.hasPrefix("1 passed")
    }.joined(separator: "\n")
    #expect(box.current.out.split(separator: "\n").joined(separator: "\n") == expected)
  }

  @Test func timelineMatchesTheGolden() throws {
    let cli = try CLIHarness()
    for line in Self.lines.dropLast() { cli.run(line) }
    assertGolden(cli.transcript(["timeline", "timeline Nope"]), "timeline.txt")
  }

  @Test func shellSavesChangesBackToTheSessionFile() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let input = LineFeed(["buy nonconsumable.car", "history", "exit"])
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder, readLine: { input.next() })
    #expect(CLI.run(["shell"], environment: env) == 0)
    #expect(cli.run("entitlements").stdout.contains("nonconsumable.car"))
  }
}

/// Lines handed out one by one, as standard input would.
final class LineFeed: @unchecked Sendable {
  private var lines: ArraySlice<String>
  private let lock = NSLock()
  init(_ lines: [String]) { self.lines = lines[...] }
  func next() -> String? { lock.withLock { lines.popFirst() } }
}
