import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession

/// The command line's edge (issue 44, item 6): errors mapped once, option groups declared once,
/// and what a scenario remembers recorded by the scenario runner.
@Suite struct CommandLineEdgeTests {
  /// The sources of the command line, file by file.
  private static func cliSources() throws -> [(file: String, text: String)] {
    let root = CLIHarness.projectRoot.appendingPathComponent("Sources/StoreSimCLI").path
    let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    return try files.filter { $0.hasSuffix(".swift") }.sorted().map {
      ($0, try String(contentsOfFile: root + "/" + $0, encoding: .utf8))
    }
  }

  /// Rule: errors are mapped once, at `CLI.run` (`CLIError(reporting:)`): no command, context
  /// or front end catches a store or session store refusal to convert it itself.
  @Test func errorsAreMappedOnceAtTheFunnel() throws {
    let conversions = [
      "as StoreError", "as? StoreError", "as SessionStoreError", "as? SessionStoreError", "reportingSessionErrors",
      "CLIError(StoreError", "init(_ error: StoreError)", "init(_ error: SessionStoreError)",
    ]
    var found: [String] = []
    for (file, text) in try Self.cliSources() where file != "ErrorFunnel.swift" {
      for pattern in conversions where text.contains(pattern) { found.append("\(file): \(pattern)") }
    }
    #expect(found.isEmpty, "a second error funnel: \(found)")
    // The funnel itself: each kind of refusal keeps its exit code and message.
    #expect(CLIError(reporting: StoreError.productNotFound("x", suggestion: nil)).code == .usage)
    #expect(CLIError(reporting: StoreError.noIssueToResolve("x")).code == .failure)
    #expect(CLIError(reporting: SessionStoreError(.badData, "damaged")).code == .dataError)
    #expect(CLIError(reporting: SessionStoreError(.noInput, "gone")).message == "gone")
    #expect(CLIError(reporting: CLIError.noInput("none")).code == .noInput)
  }

  /// Rule: refusals keep their exit codes through the one funnel, on a session file and in a
  /// scenario's memory alike.
  @Test func refusalsKeepTheirExitCodesThroughTheFunnel() throws {
    let cli = try CLIHarness()
    #expect(cli.run("status").code == ExitCode.noInput.rawValue)
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let unknown = cli.run("buy no.such.product")
    #expect(unknown.code == ExitCode.usage.rawValue)
    #expect(unknown.stderr.hasPrefix("error: "))
    #expect(cli.run("resolve subscription.pro").code == ExitCode.failure.rawValue)
    try Data("{broken".utf8).write(to: URL(fileURLWithPath: cli.folder + "/.storesim/session.json"))
    #expect(cli.run("status").code == ExitCode.dataError.rawValue)
  }

  /// Rule: an option group is declared once. Two commands that declare two or more of the
  /// same options themselves carry a group written twice; the API key, renewal extension,
  /// product-or-transaction and signed-or-API-format options each come from their group.
  @Test func optionGroupsAreDeclaredOnce() {
    let table = CommandTable.standard
    var twice: [String] = []
    for (i, a) in table.commands.enumerated() {
      let own = Set(a.options.filter { $0.group == nil }.map(\.name))
      for b in table.commands[(i + 1)...] {
        let shared = own.intersection(b.options.filter { $0.group == nil }.map(\.name))
        if shared.count >= 2 { twice.append("\(a.name) and \(b.name): \(shared.sorted())") }
      }
    }
    #expect(twice.isEmpty, "options declared twice instead of as a group: \(twice)")
    let groups: [String: [String]] = [
      "APIKeyOptions": ["init", "serve", "api", "token"],
      "RenewalExtensionOptions": ["extend", "extend-all"],
      "TransactionOption": ["cancel", "resume", "expire", "renew", "resolve", "price-increase"],
      "SignedOrAPIFormat": ["transactions", "latest", "status"],
    ]
    for (group, commands) in groups {
      let users = table.commands.filter { $0.options.contains { $0.group == group } }.map(\.name)
      #expect(Set(users) == Set(commands), "\(group) is used by \(users)")
    }
    #expect(
      table.spec(named: "serve")?.options.filter { $0.group == "APIKeyOptions" }.map(\.name) == [
        "api-key", "key-id", "issuer",
      ])
  }

  /// Rule: the scenario runner records what a scenario remembers: `expect result` reads the
  /// result of the last purchase from its answer, and a refused purchase is a failed one.
  @Test func theScenarioRunnerRecordsTheLastPurchaseResult() throws {
    let cli = try CLIHarness()
    let scenario = """
      init AppleSample.storekit --start 2026-01-01T00:00:00Z
      buy subscription.pro
      expect result purchased
      buy consumable.fuel.octane87 --json
      expect result purchased
      """
    try scenario.write(toFile: cli.folder + "/remember.storesim", atomically: true, encoding: .utf8)
    let run = cli.run("run remember.storesim")
    #expect(run.code == 0, "\(run.stdout)\(run.stderr)")
    #expect(CommandTable.standard.commands.filter(\.answersPurchaseResult).map(\.name) == ["buy"])
    // A refused purchase (an error object, or no answer) is a failed one.
    #expect(ScenarioRunner.purchaseResult(code: 64, json: #"{"error": "unknown product"}"#) == "failed")
    #expect(ScenarioRunner.purchaseResult(code: 1, json: "") == "failed")
    #expect(ScenarioRunner.purchaseResult(code: 0, json: #"{"result": "pending"}"#) == "pending")
  }
}
