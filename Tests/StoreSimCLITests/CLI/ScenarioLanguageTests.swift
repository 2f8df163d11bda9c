import Foundation
import StoreSimSync
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// Issue 25, scenarios: every customer checkable, refusals expectable, `run --verbose` in order,
/// a note for the wall clock, and errors that name the word and the one fix.
@Suite struct ScenarioLanguageTests {
  /// Runs a command line with stdout and stderr in one stream, in the order they were written
  /// (as a terminal shows them).
  static func combined(_ argv: [String], in cli: CLIHarness, stdin: [String] = []) -> (text: String, code: Int32) {
    let box = Mutex(CapturedOutput())
    let lines = LineQueue(stdin)
    let env = CLIEnvironment(
      writeOut: { s in box.withLock { $0.out += s } }, writeErr: { s in box.withLock { $0.out += s } },
      variables: [:], currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600) }, isTerminal: false, readLine: { lines.next() })
    let code = CLI.run(argv, environment: env)
    return (box.current.out, code)
  }

  /// Lines handed out one at a time (the shell's standard input).
  final class LineQueue: Sendable {
    private let lines: Mutex<[String]>
    init(_ lines: [String]) { self.lines = Mutex(lines) }
    func next() -> String? { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
  }

  func write(_ text: String, in cli: CLIHarness, name: String = "s.storesim") throws -> String {
    try text.write(toFile: cli.folder + "/" + name, atomically: true, encoding: .utf8)
    return name
  }

  // MARK: - 1. Every expect form takes --customer

  @Test func expectationsCheckTheCustomerTheyName() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init Premium.storekit --start 2026-01-01T00:00:00Z
      family add kid
      buy com.example.premium.lifetime
      buy com.example.coins.100
      expect entitled com.example.premium.lifetime --customer kid
      expect transactions 1 --customer kid
      expect latest com.example.premium.lifetime inAppOwnershipType FAMILY_SHARED --customer=kid
      expect entitled com.example.coins.100 --customer kid
      expect not-entitled com.example.premium.lifetime --customer kid
      expect pending 0 --customer nobody
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 1)
    #expect(
      !r.stderr.contains("s.storesim:5:") && !r.stderr.contains(":6:") && !r.stderr.contains(":7:"), "\(r.stderr)")
    #expect(r.stderr.contains("s.storesim:8: expected com.example.coins.100 to be entitled for kid, got not entitled"))
    #expect(
      r.stderr.contains("s.storesim:9: expected com.example.premium.lifetime not to be entitled for kid, got entitled"))
    #expect(r.stderr.contains("s.storesim:10: expected pending for customer 'nobody', got no customer named 'nobody'"))
    #expect(r.stdout.contains("FAIL  s.storesim  (3 of 6 expectations failed)"))
  }

  @Test func formsWithoutACustomerRefuseOne() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init Premium.storekit --start 2026-01-01T00:00:00Z
      expect now 2026-01-01 --customer kid
      expect entitled com.example.premium.lifetime --customer
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 65)
    #expect(r.stderr.contains("s.storesim:2: error: 'expect now' takes no --customer; write 'expect now DATE'"))
    #expect(
      r.stderr.contains(
        "s.storesim:3: error: --customer needs a name; write 'expect entitled PRODUCT [--customer NAME]'"))
  }

  // MARK: - 2. A refusal that is expected is checked when it runs; a command's shape up front

  @Test func aRefusalFollowedByExpectErrorIsTheExpectedOutcome() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init Premium.storekit --start 2026-01-01T00:00:00Z
      buy com.example.nope
      expect error is not in the configuration
      buy com.example.nope --quantity 2
      expect result failed
      finish
      expect error missing transaction id
      cancel com.example.coins.100 --transaction 1
      expect error give a product or --transaction, not both
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("PASS  s.storesim  (4 expectations)"))
  }

  @Test(arguments: [
    ("finish", "missing transaction id (or --all)"),
    ("finish 1 --all", "give a transaction id or --all, not both"),
    ("finish abc", "transaction id"),
    ("cancel", "missing product id (or --transaction ID)"),
    ("price-increase com.example.premium.monthly refuse", "unknown price-increase action 'refuse'"),
    ("family adopt kid", "unknown family action 'adopt'"),
    ("extend 1 --days 91", "--days must be 1 to 90"),
    // Issue 44, item 7: prices are milliunits, said before the run rather than as a failure.
    ("expect latest com.example.premium.monthly price 9.99", "price is in milliunits"),
    ("expect latest com.example.premium.monthly price 9.99", "write 9990 for 9.99"),
    ("expect renewal com.example.premium.monthly renewalPrice 12.5", "renewalPrice is in milliunits"),
    ("expect renewal com.example.premium.monthly renewalPrice 12.5", "write 12500 for 12.5"),
    ("expect latest com.example.premium.monthly price $9.99", "write a whole number, e.g. 9990 for 9.99"),
  ])
  func aCommandsShapeIsRefusedBeforeAnythingRuns(_ line: String, _ message: String) throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init Premium.storekit --start 2026-01-01T00:00:00Z
      echo this must not print
      \(line)
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 65, "\(r.stderr)")
    #expect(r.stderr.contains("s.storesim:3: error: ") && r.stderr.contains(message), "\(r.stderr)")
    #expect(!r.stdout.contains("must not print"))
  }

  // MARK: - 3. run --verbose prints in order, each line with its outcome under it

  @Test func verboseRunPrintsEveryLineInOrderWithItsOutcome() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init AppleSample.storekit --start 2026-01-01T00:00:00Z
      echo a car, then a check that fails
      buy nonconsumable.car
      expect entitled nonconsumable.car
      expect entitled nonconsumable.racecar
      refund 42
      expect error no transaction
      finish 42
      now
      """, in: cli)
    assertGolden(Self.combined(["run", "--verbose", file], in: cli).text, "run-verbose.txt")
  }

  @Test func aPipedShellPrintsWhatRunVerbosePrintsForTheSameLines() throws {
    let cli = try CLIHarness()
    let lines = [
      "init AppleSample.storekit --start 2026-01-01T00:00:00Z", "buy nonconsumable.car",
      "expect entitled nonconsumable.car", "expect entitled nonconsumable.racecar", "refund 42", "expect error found",
      "echo done",
    ]
    let file = try write(lines.joined(separator: "\n"), in: cli, name: "p.storesim")
    let run = Self.combined(["run", "--verbose", file], in: cli).text
    let shell = Self.combined(["shell", "--session", "none.json"], in: cli, stdin: lines).text
    // run adds its PASS/FAIL line and the summary; the shell names its input <stdin>.
    let transcript = run.split(separator: "\n", omittingEmptySubsequences: false).dropLast(3)
      .joined(separator: "\n").replacingOccurrences(of: file, with: "<stdin>")
    #expect(shell == transcript + "\n", "run:\n\(run)\nshell:\n\(shell)")
  }

  // MARK: - 4. A session on the wall clock is noted once

  @Test func anInitWithoutStartIsNotedOnce() throws {
    let cli = try CLIHarness()
    let file = try write(
      "init Premium.storekit\nbuy com.example.coins.100\ninit Premium.storekit\nexpect transactions 0\n", in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 0)
    let note = "s.storesim:1: note: \(ScenarioCheck.wallClockNote)\n"
    #expect(r.stderr == note, "\(r.stderr)")
    let pinned = try write("init Premium.storekit --start 2026-01-01\n", in: cli, name: "t.storesim")
    #expect(cli.run("run \(pinned)").stderr.isEmpty)
  }

  @Test func everyExampleThatStartsASessionGivesStart() throws {
    var texts: [(String, String)] = []
    for spec in CommandTable.standard.commands { texts.append(("help \(spec.name)", spec.example + spec.discussion)) }
    let root = CLIHarness.projectRoot
    let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
      .filter { $0.hasSuffix(".md") && $0 != "bad-inputs.md" }.sorted().map { "docs/\($0)" }  // bad-inputs: refusals
    #expect(docs.contains("docs/scenarios.md") && docs.contains("docs/ci.md"))
    for path in ["README.md"] + docs + ScenarioTests.scripts.map({ "Scripts/\($0)" }) {
      texts.append((path, try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)))
    }
    for (name, text) in texts {
      for line in text.split(separator: "\n")
      where line.range(of: #"(^|storesim |'|\s)init [^ ]+\.storekit"#, options: .regularExpression) != nil
        && !line.contains("CONFIG.storekit")
      {
        #expect(line.contains("--start"), "\(name): \(line)")
      }
    }
  }

  // MARK: - 7. One error: what was wrong, at which word, and the one fix

  @Test func scenarioErrorsNameTheWordAndTheOneFix() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init Premium.storekit --start 2026-01-01T00:00:00Z
      expect entitled com.example.premium.lifetime now
      expect state Premium
      expect result purchasd
      expect result bought
      expect state Premium subscribd
      expect transactions 1 --produc com.example.coins.100
      expect
      expect entitle com.example.premium.lifetime
      settings error purchas networkError
      """, in: cli)
    let r = Self.combined(["run", file], in: cli)
    #expect(r.code == 65)
    assertGolden(r.text, "scenario-errors.txt")
  }
}
