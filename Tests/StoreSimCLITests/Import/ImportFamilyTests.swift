import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession

/// Family sharing in imported data (issue 49, item 2): a customer's own subscription and a
/// family-shared one (`FAMILY_SHARED`, its own `originalTransactionId`) in the same group stay
/// two, read back the same through the API, and go on as the family's do.
@Suite struct ImportFamilyTests {
  typealias T = ImportCommandTests

  /// A family: `default` subscribes to Standard and shares it with `partner`, who buys Pro of
  /// the same group (shared back with `default`). Returns the partner's original transaction id.
  static func family(_ cli: CLIHarness) throws -> String {
    try? FileManager.default.copyItem(
      atPath: CLIHarness.projectRoot.appendingPathComponent("Configurations/AppleSample.storekit").path,
      toPath: cli.folder + "/AppleSample.storekit")
    for line in [
      "init AppleSample.storekit --start 2026-01-01T00:00:00Z --environment Sandbox",
      "buy subscription.standard", "family add partner", "buy subscription.pro --customer partner",
      "advance 3d",
    ] {
      let r = cli.run(line + " --session a.json")
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
    // Ids in order: default's Standard, the partner's copy of it, the partner's Pro, and
    // default's copy of Pro.
    return "2000000000000003"
  }

  /// The lines of decoded payloads without the ids a session gives out (transaction, original
  /// transaction and web order line item ids).
  static func withoutIDs(_ lines: [String]) -> [String] {
    lines.map { line in
      line.split(separator: ",").filter { field in
        !["transactionId=", "originalTransactionId=", "webOrderLineItemId="].contains { field.contains($0) }
      }.joined(separator: ",")
    }
  }

  @Test func importKeepsOwnAndFamilySharedSubscriptionsOfOneGroupApart() throws {
    let cli = try CLIHarness()
    let id = try Self.family(cli)
    let history = T.api(cli, "/inApps/v2/history/\(id)", session: "a.json")
    let statuses = T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "a.json")
    try T.write(cli, "history.json", history)
    try T.write(cli, "statuses.json", statuses)
    // Two statuses in the group: the partner's Pro and the shared Standard.
    let read = try T.decoded(statuses)
    #expect(read.filter { $0.contains("signedTransactionInfo") }.count == 2)
    #expect(read.contains { $0.contains("inAppOwnershipType=\"FAMILY_SHARED\"") })
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import history.json statuses.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("2 subscriptions"), "\(r.stdout)")
    ImportScriptsRoundTripTests.same(
      try T.decoded(T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "b.json")), read, "statuses")
    ImportScriptsRoundTripTests.same(
      try T.decoded(T.api(cli, "/inApps/v2/history/\(id)", session: "b.json")), try T.decoded(history), "history")
    // Both renew: the partner's own, and the family's, whose renewal reaches the partner as a
    // new family-shared transaction (its ids are the session's own).
    #expect(cli.run("advance 1mo --session a.json").code == 0)
    #expect(cli.run("advance 1mo --session b.json").code == 0)
    let after = Self.withoutIDs(try T.decoded(T.api(cli, "/inApps/v2/history/\(id)", session: "a.json")))
    #expect(after.count > (try T.decoded(history)).count)
    ImportScriptsRoundTripTests.same(
      Self.withoutIDs(try T.decoded(T.api(cli, "/inApps/v2/history/\(id)", session: "b.json"))), after,
      "history after a month")
    ImportScriptsRoundTripTests.same(
      Self.withoutIDs(try T.decoded(T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "b.json"))),
      Self.withoutIDs(try T.decoded(T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "a.json"))),
      "statuses after a month")
  }

  @Test func importLinksASharedSubscriptionToItsPurchaserInTheDataByWebOrderLineItem() throws {
    let cli = try CLIHarness()
    let partner = try Self.family(cli)
    var files: [String] = []
    for id in ["2000000000000001", partner] {
      try T.write(cli, "history\(id).json", T.api(cli, "/inApps/v2/history/\(id)", session: "a.json"))
      try T.write(cli, "statuses\(id).json", T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "a.json"))
      files += ["history\(id).json", "statuses\(id).json"]
    }
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run(["import"] + files + ["--session", "b.json"])
    #expect(r.code == 0, "\(r.stderr)")
    // Two customers, each the other's purchaser, one family; no stand-in.
    let (_, state) = try SessionFileFormat.decode(try #require(T.bytes(cli, "b.json")))
    #expect(state.customers.filter { !$0.transactions.isEmpty }.count == 2)
    #expect(!state.customers.contains { $0.id.isImportedPurchaser })
    #expect(Set(state.customers.filter { !$0.transactions.isEmpty }.map(\.familyID)).count == 1)
    // A month on, each renewal reaches the other as in the session the data came from, ids too.
    #expect(cli.run("advance 1mo --session a.json").code == 0)
    #expect(cli.run("advance 1mo --session b.json").code == 0)
    for id in ["2000000000000001", partner] {
      for path in ["/inApps/v2/history/\(id)", "/inApps/v1/subscriptions/\(id)"] {
        ImportScriptsRoundTripTests.same(
          try T.decoded(T.api(cli, path, session: "b.json")), try T.decoded(T.api(cli, path, session: "a.json")),
          "\(path) after a month")
      }
    }
  }

  @Test func importNeverTakesASessionsOwnCustomerForThePurchaser() throws {
    let cli = try CLIHarness()
    let partner = try Self.family(cli)
    try T.write(cli, "history.json", T.api(cli, "/inApps/v2/history/\(partner)", session: "a.json"))
    try T.write(cli, "statuses.json", T.api(cli, "/inApps/v1/subscriptions/\(partner)", session: "a.json"))
    // b's own bob bought Standard: his web order line item id is the one default's had in a.
    for line in [
      "init AppleSample.storekit --start 2026-01-01T00:00:00Z --environment Sandbox --session b.json",
      "buy subscription.standard --customer bob --session b.json",
    ] {
      #expect(cli.run(line).code == 0, "\(line)")
    }
    #expect(cli.run("import history.json statuses.json --session b.json").code == 0)
    let (_, state) = try SessionFileFormat.decode(try #require(T.bytes(cli, "b.json")))
    #expect(state.customers.first { $0.id == "bob" }?.familyID == nil)
    #expect(state.customers.contains { $0.id.isImportedPurchaser })
  }
}
