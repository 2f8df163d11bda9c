import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession

/// The round trip of issue 49, item 3, for every scenario under Scripts/: its commands run in a
/// session file, then what `api` answers for it is imported into a fresh session of the same
/// configuration and read back the same (decoded payloads, save `signedDate`):
/// - each customer's Get Transaction History v2 (every page) and Get All Subscription Statuses
///   alone, through those, Get Refund History and Get Transaction Info;
/// - everything at once (each customer's v1 and v2 history, statuses, refund history v1 and v2,
///   app transaction and every transaction, and the app's notification history), through every
///   endpoint that reads a session.
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

  /// One answer of `api` (any status), its body.
  static func answer(_ cli: CLIHarness, _ argv: [String], session: String) -> (ok: Bool, body: String) {
    let r = cli.run(["api"] + argv + ["--session", session])
    return (r.code == 0, String(r.stdout.drop { $0 != "\n" }.dropFirst()))
  }

  /// Every page of a GET answer that pages by `revision` (history, refund history).
  static func pages(_ cli: CLIHarness, _ path: String, session: String) throws -> [String] {
    var pages: [String] = []
    var revision: String?
    repeat {
      let (ok, page) = answer(cli, ["GET", path + (revision.map { "?revision=\($0)" } ?? "")], session: session)
      guard ok else { break }
      pages.append(page)
      let node = try JSONParser.parse(Array(page.utf8))
      guard case .bool(true)? = node["hasMore"]?.value, case .string(let next)? = node["revision"]?.value else { break }
      revision = next
    } while pages.count < 100
    return pages
  }

  /// The requests that read a session through every endpoint: for each customer, Get
  /// Transaction History v1 and v2 and Get Refund History (every page: a request is its path,
  /// and `nil` for the revision of the page before), Get All Subscription Statuses, Get Refund
  /// History v1, Get App Transaction Info and Get Transaction Info of each transaction; and the
  /// app's Get Notification History over the days it keeps (every page).
  static func requests(_ state: StoreState) -> (paged: [String], single: [String], notifications: String) {
    var paged: [String] = []
    var single: [String] = []
    for customer in state.customers {
      guard let id = customer.transactions.first(where: { $0.sharedFrom == nil })?.originalID else { continue }
      paged += ["/inApps/v1/history/\(id)", "/inApps/v2/history/\(id)", "/inApps/v2/refund/lookup/\(id)"]
      single += [
        "/inApps/v1/subscriptions/\(id)", "/inApps/v1/refund/lookup/\(id)",
        "/inApps/v1/transactions/appTransactions/\(id)",
      ]
      single += customer.transactions.map { "/inApps/v1/transactions/\($0.id)" }
    }
    let now = state.now.epochMilliseconds
    let days: Int64 = state.environment == .production ? 180 : 30
    return (paged, single, "{\"startDate\":\(now - days * 86_400_000 + 1000),\"endDate\":\(now + 1000)}")
  }

  /// What `serve` answers for `requests` in a session, keyed by the request (and page).
  static func answers(
    _ cli: CLIHarness, _ requests: (paged: [String], single: [String], notifications: String), session: String
  ) throws -> [(String, String)] {
    var out: [(String, String)] = []
    for path in requests.paged {
      // Every page of an answer in one file, as a JSON array (pages apart are answers apart).
      out.append((path, "[" + (try pages(cli, path, session: session)).joined(separator: ",") + "]"))
    }
    for path in requests.single {
      let (ok, body) = answer(cli, ["GET", path], session: session)
      out.append((path + (ok ? "" : " (refused)"), body))
    }
    var token: String?
    var notificationPages: [String] = []
    for _ in 0..<100 {
      let path = "/inApps/v1/notifications/history" + (token.map { "?paginationToken=\($0)" } ?? "")
      let (ok, page) = answer(cli, ["POST", path, "--data", requests.notifications], session: session)
      #expect(ok, "\(page)")
      notificationPages.append(page)
      guard ok, case .string(let next)? = try JSONParser.parse(Array(page.utf8))["paginationToken"]?.value else {
        break
      }
      token = next
    }
    out.append(("notification history", "[" + notificationPages.joined(separator: ",") + "]"))
    return out
  }

  @Test(arguments: scripts) func importRoundTripOfEveryScenarioThroughEveryEndpoint(_ script: String) throws {
    let cli = try CLIHarness()
    let configuration = try Self.replay(cli, script, session: "a.json")
    // Every notification attempted once (refused), so Get Notification History lists them.
    cli.run("notifications deliver http://127.0.0.1:9/hook --session a.json")
    let (_, state) = try SessionFileFormat.decode(try #require(T.bytes(cli, "a.json")))
    let requests = Self.requests(state)
    let a = try Self.answers(cli, requests, session: "a.json")
    var files: [String] = []
    for (k, (request, body)) in a.enumerated() where !request.hasSuffix("(refused)") {
      try T.write(cli, "answer\(k).json", body)
      files.append("answer\(k).json")
    }
    #expect(
      cli.run(["init", configuration, "--environment", state.environment.rawValue, "--session", "b.json"]).code == 0)
    let r = cli.run(["import"] + files + ["--session", "b.json"])
    #expect(r.code == 0, "\(script): \(r.stderr)")
    let b = Dictionary(try Self.answers(cli, requests, session: "b.json"), uniquingKeysWith: { x, _ in x })
    var compared = 0
    for (request, body) in a {
      guard let other = b[request] else {
        Issue.record("\(script): \(request) not answered after the import")
        continue
      }
      let decoded = try T.decoded(body) + Self.plain(body)
      compared += decoded.count
      Self.same(try T.decoded(other) + Self.plain(other), decoded, "\(script) \(request)")
    }
    // The answers hold something: each customer's transactions and the notifications' attempts.
    #expect(compared > 20, "\(script): \(compared) values compared")
    #expect(a.contains { $0.0 == "notification history" && $0.1.contains("sendAttempts") })
  }

  /// The values of an answer that are not JWS, by where they stand, its page tokens
  /// (`revision`, `paginationToken`) left out.
  static func plain(_ text: String) throws -> [String] {
    var out: [String] = []
    func walk(_ n: JSONNode, _ path: String) {
      switch n.value {
      case .object(let members):
        for m in members where m.key != "revision" && m.key != "paginationToken" { walk(m.value, path + "." + m.key) }
      case .array(let items):
        for (i, item) in items.enumerated() { walk(item, path + "[\(i)]") }
      case .string(let s) where s.split(separator: ".").count == 3 && s.hasPrefix("eyJ"):
        break
      default: out.append(path + " " + T.flat(n))
      }
    }
    walk(try JSONParser.parse(Array(text.utf8)), "")
    return out
  }

  /// Records the lines that differ, when any do.
  static func same(_ b: [String], _ a: [String], _ what: String) {
    guard a != b else { return }
    let only = b.filter { !a.contains($0) }, missing = a.filter { !b.contains($0) }
    Issue.record("\(what): imported has \(only), lacks \(missing)")
  }
}
