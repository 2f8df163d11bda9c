import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession

/// The round trip of issue 49, item 3, for every scenario under Scripts/: its commands run in a
/// session file, then each customer's Get Transaction History (every page) and Get All
/// Subscription Statuses, as `api` answers them, imported into a fresh session of the same
/// configuration, read back the same (decoded payloads, save `signedDate`) through those two
/// endpoints, Get Refund History and Get Transaction Info.
@Suite struct ImportScriptsRoundTripTests {
  typealias T = ImportCommandTests

  static let scripts: [String] = {
    let folder = CLIHarness.projectRoot.appendingPathComponent("Scripts").path
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".storesim") }
      .sorted()
  }()

  /// Runs a scenario's command lines in `session`, its configuration named by absolute path;
  /// `expect`, `echo` and `respond` (the run's own server) are left out, and a command a
  /// scenario expects to fail may fail. Returns the configuration's path.
  static func replay(_ cli: CLIHarness, _ script: String, session: String) throws -> String {
    let root = CLIHarness.projectRoot.path
    let text = try String(contentsOfFile: root + "/Scripts/" + script, encoding: .utf8)
    var configuration = ""
    for line in text.split(separator: "\n") {
      var words = try ScriptLineSplitter.split(String(line))
      guard let first = words.first, !["expect", "echo", "respond"].contains(first) else { continue }
      if first == "init" {
        words[1] = root + "/Configurations/" + words[1].replacingOccurrences(of: "../Configurations/", with: "")
        configuration = words[1]
      }
      cli.run(words + ["--session", session])
    }
    return configuration
  }

  /// Every page of a customer's history, as one JSON array (what import reads as pages).
  static func historyPages(_ cli: CLIHarness, _ id: TransactionID, session: String) throws -> String {
    var pages: [String] = []
    var revision: String?
    repeat {
      let path = "/inApps/v2/history/\(id)" + (revision.map { "?revision=\($0)" } ?? "")
      let page = T.api(cli, path, session: session)
      pages.append(page)
      let node = try JSONParser.parse(Array(page.utf8))
      guard case .bool(true)? = node["hasMore"]?.value, case .string(let next)? = node["revision"]?.value else { break }
      revision = next
    } while pages.count < 100
    return "[" + pages.joined(separator: ",") + "]"
  }

  @Test(arguments: scripts) func importRoundTripOfEveryScenario(_ script: String) throws {
    let cli = try CLIHarness()
    let configuration = try Self.replay(cli, script, session: "a.json")
    let data = try #require(T.bytes(cli, "a.json"))
    let (_, state) = try SessionFileFormat.decode(data)
    let customers = state.customers.filter { c in c.transactions.contains { $0.sharedFrom == nil } }
    #expect(!customers.isEmpty || !script.hasPrefix("flow"))
    for (k, customer) in customers.enumerated() {
      guard let id = customer.transactions.first(where: { $0.sharedFrom == nil })?.originalID else { continue }
      let history = try Self.historyPages(cli, id, session: "a.json")
      let statuses = T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "a.json")
      try T.write(cli, "history\(k).json", history)
      try T.write(cli, "statuses\(k).json", statuses)
      let b = "b\(k).json"
      let environment = state.environment.rawValue
      #expect(cli.run(["init", configuration, "--environment", environment, "--session", b]).code == 0)
      let r = cli.run("import history\(k).json statuses\(k).json --session \(b)")
      #expect(r.code == 0, "\(script) \(customer.id.rawValue): \(r.stderr)")
      Self.same(try T.decoded(Self.historyPages(cli, id, session: b)), try T.decoded(history), "\(script) history")
      // Flow 1's family included: a customer's own subscription and a family member's shared one
      // in one group are two statuses there (ImportFamilyTests).
      let statusesB = try T.decoded(T.api(cli, "/inApps/v1/subscriptions/\(id)", session: b))
      Self.same(statusesB, try T.decoded(statuses), "\(script) statuses")
      // The other endpoints that read a customer's transactions: Get Refund History, Get
      // Transaction Info of the first and the latest transaction. (Not v1's history: it leaves
      // out consumables the app finished, and whether it did is not in Apple's data.)
      let own = customer.transactions.filter { $0.sharedFrom == nil }
      var paths = ["/inApps/v2/refund/lookup/\(id)"]
      for t in [own.first, own.max { $0.id < $1.id }].compactMap({ $0 }) {
        paths.append("/inApps/v1/transactions/\(t.id)")
      }
      for path in paths {
        Self.same(
          try T.decoded(T.api(cli, path, session: b)), try T.decoded(T.api(cli, path, session: "a.json")),
          "\(script) \(path)")
      }
    }
  }

  /// Records the lines that differ, when any do.
  static func same(_ b: [String], _ a: [String], _ what: String) {
    guard a != b else { return }
    let only = b.filter { !a.contains($0) }, missing = a.filter { !b.contains($0) }
    Issue.record("\(what): imported has \(only), lacks \(missing)")
  }
}
