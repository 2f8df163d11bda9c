import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// `import --scenario` carries all the rebuilt store has (issue 49, item 6): the session's
/// settings, the products `--add-products` made, family-shared subscriptions, so the session the
/// scenario makes equals the imported one.
@Suite struct ImportScenarioSettingsTests {
  typealias T = ImportCommandTests
  typealias S = ImportRedactScenarioTests

  /// Settings a session can hold, each away from what `init` gives.
  static let settings = [
    "billing-retry on", "grace-period on", "ask-to-buy on", "interrupted-purchases on", "storefront FRA",
    "locale fr_FR", "time-rate oneRenewalEveryTwoSeconds", "disable-dialogs on", "fail-transactions invalidSignature",
    "error purchase networkError", "deliver-url-sandbox http://127.0.0.1:9/sandbox",
    "deliver-url-production http://127.0.0.1:9/production", "delivery-faults seed=7 duplicates=10%",
    "strict-eligibility on",
  ]

  @Test func importScenarioCarriesTheSessionSettings() throws {
    let cli = try CLIHarness()
    _ = try S.source(cli)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    for line in Self.settings {
      let r = cli.run("settings \(line) --session b.json")
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
    let r = cli.run("import --scenario case.storesim history.json statuses.json webhook.log --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    try S.replay(cli, "case.storesim", session: "c.json")
    let b = cli.run("settings --json --session b.json").stdout
    #expect(b.contains("\"FRA\""))
    #expect(cli.run("settings --json --session c.json").stdout == b)
    for path in ["/inApps/v2/history/2000000000000004", "/inApps/v1/subscriptions/2000000000000004"] {
      #expect(try T.decoded(T.api(cli, path, session: "c.json")) == T.decoded(T.api(cli, path, session: "b.json")))
    }
    #expect(cli.run("status --session c.json").stdout == cli.run("status --session b.json").stdout)
    // A fresh session's settings add no line.
    #expect(cli.run("init Premium.storekit --environment Sandbox --session d.json").code == 0)
    #expect(cli.run("import --scenario plain.storesim history.json --session d.json").code == 0)
    let plain = try String(contentsOfFile: cli.folder + "/plain.storesim", encoding: .utf8)
    #expect(!plain.contains("\nsettings "), "\(plain)")
  }

  /// Products `--add-products` made and a family-shared subscription's stand-in purchaser: the
  /// scenario's session has the same customers, products, history and statuses.
  @Test func importScenarioCarriesAddedProductsAndFamilies() throws {
    let cli = try CLIHarness()
    let id = try ImportFamilyTests.family(cli)
    try T.write(cli, "history.json", T.api(cli, "/inApps/v2/history/\(id)", session: "a.json"))
    try T.write(cli, "statuses.json", T.api(cli, "/inApps/v1/subscriptions/\(id)", session: "a.json"))
    // The app's configuration lacks the family's subscriptions: --add-products makes them.
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import --add-products --scenario case.storesim history.json statuses.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("family-purchaser-"), "\(r.stdout)")
    let run = cli.run("run case.storesim")
    #expect(run.code == 0, "\(run.stdout)\(run.stderr)")
    try S.replay(cli, "case.storesim", session: "c.json")
    // The partner's shared Standard (2000000000000002) has its stand-in purchaser.
    for command in ["status", "products", "status --customer family-purchaser-2000000000000002"] {
      let b = cli.run("\(command) --json --session b.json")
      #expect(b.code == 0, "\(command): \(b.stderr)")
      #expect(cli.run("\(command) --json --session c.json").stdout == b.stdout, "\(command)")
    }
    // The stand-in's own ids, given out after the imported ones, are the same in both.
    for path in ["/inApps/v2/history/\(id)", "/inApps/v1/subscriptions/\(id)", "/inApps/v2/history/2000000000000004"] {
      let b = try T.decoded(T.api(cli, path, session: "b.json"))
      #expect(try T.decoded(T.api(cli, path, session: "c.json")) == b, "\(path)")
      #expect(!b.isEmpty)
    }
  }
}
