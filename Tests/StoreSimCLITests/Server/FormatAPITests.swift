import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// `--format api` answers with the server's own responder: what `storesim api` (and `serve`)
/// answer for the same request, paged by 20 with a real revision.
@Suite struct FormatAPITests {
  /// The JSON an invocation printed.
  static func json(_ output: String) throws -> JSONOutput {
    JSONOutput(node: try JSONParser.parse(Array(output.utf8)))
  }

  /// The body of `storesim api GET PATH`'s answer.
  static func apiBody(_ cli: CLIHarness, _ path: String) throws -> JSONOutput {
    let r = cli.run(["api", "GET", path])
    #expect(r.code == 0, "\(r.stderr)")
    let body = r.stdout.split(separator: "\n", maxSplits: 1).last.map(String.init) ?? ""
    return try json(body)
  }

  @Test func transactionsInTheAPIFormatArePagedByTwentyWithTheServersRevision() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    for _ in 0..<25 { #expect(cli.run("buy consumable.fuel.octane87").code == 0) }
    let first = cli.run("transactions --format api --json")
    #expect(first.code == 0, "\(first.stderr)")
    let page = try Self.json(first.stdout)
    #expect(page["hasMore"] == .bool(true))
    guard case .array(let signed)? = page["signedTransactions"], case .string(let revision)? = page["revision"] else {
      Issue.record("no page: \(first.stdout)")
      return
    }
    #expect(signed.count == 20)
    #expect(revision != "25" && revision != "20")  // a revision token, not a count
    let next = try Self.json(cli.run(["transactions", "--format", "api", "--json", "--revision", revision]).stdout)
    #expect(next["hasMore"] == .bool(false))
    guard case .array(let rest)? = next["signedTransactions"] else {
      Issue.record("no second page")
      return
    }
    #expect(rest.count == 5)
  }

  @Test func transactionsInTheAPIFormatAreWhatTheAPIAnswers() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy subscription.pro").code == 0)
    #expect(cli.run("buy nonconsumable.car").code == 0)
    let viaFormat = try Self.json(cli.run("transactions --format api --json --product nonconsumable.car").stdout)
    let viaAPI = try Self.apiBody(cli, "/inApps/v2/history/2000000000000001?productId=nonconsumable.car")
    #expect(viaFormat == viaAPI)
    let status = try Self.json(cli.run("status --format api --json").stdout)
    #expect(status == (try Self.apiBody(cli, "/inApps/v1/subscriptions/2000000000000001")))
    let latest = try Self.json(cli.run("latest nonconsumable.car --format api --json").stdout)
    #expect(latest == (try Self.apiBody(cli, "/inApps/v1/transactions/2000000000000002")))
  }

  @Test func theUnfinishedFilterReadsEveryPageAndARevisionNeedsTheAPIFormat() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    for _ in 0..<23 { #expect(cli.run("buy consumable.fuel.octane87").code == 0) }
    #expect(cli.run("finish 2000000000000001").code == 0)
    let unfinished = try Self.json(cli.run("transactions --unfinished --format api --json").stdout)
    guard case .array(let signed)? = unfinished["signedTransactions"] else {
      Issue.record("no signedTransactions")
      return
    }
    #expect(signed.count == 22)
    #expect(unfinished["hasMore"] == .bool(false))
    let alone = cli.run("transactions --revision A.x.1.2")
    #expect(alone.code == 64 && alone.stderr.contains("give --format api too"))
  }
}
