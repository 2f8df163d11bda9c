import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// Issue 15, "A command line that CI can trust": exit codes, one-line errors, JSON errors,
/// no silent acceptance and commands that say what they did.
@Suite struct CommandLineTrustTests {
  func session() throws -> CLIHarness {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    return cli
  }

  @Test func aTypoIs64AndARefusalOfTheStoreIs1() throws {
    let cli = try session()
    #expect(cli.run("buy nonconsumable.cra").code == 64)
    #expect(cli.run("buy nonconsumable.car --cancel").code == 1)
    cli.run("buy nonconsumable.car")
    cli.run("refund 2000000000000001")
    let twice = cli.run("refund 2000000000000001")
    #expect(twice.code == 1)
    #expect(twice.stderr.contains("already refunded"))
  }

  @Test func everyExitCodeIsInTheREADMEAndTheHelp() throws {
    let readme = try String(contentsOf: CLIHarness.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let overview = CommandTable.standard.overview()
    // Rows wrap at the width; a meaning is read across its lines.
    let flat = overview.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for (code, meaning) in ExitCode.table {
      let row = "| `\(code.rawValue)` | \(meaning) |"
      let inREADME = readme.contains(row)
      #expect(inREADME, "README lacks the row \(row)")
      let inHelp = overview.contains("  \(code.rawValue) ") && flat.contains(meaning)
      #expect(inHelp, "--help lacks \(code.rawValue)")
    }
    // A store refusal and a missing name are told apart for every case of StoreError.
    #expect(StoreError.productNotFound("x", suggestion: nil).exitCode == .usage)
    #expect(StoreError.alreadyRefunded(1).exitCode == .failure)
    #expect(StoreError.noPendingRequest(nil).exitCode == .failure)
    #expect(StoreError.noPendingRequest("9").exitCode == .usage)
  }

  @Test(arguments: [
    "buy", "buy nonconsumable.car --quantty 2", "advance 1m", "frobnicate", "refund abc", "buy nonconsumable.cra",
  ])
  func errorsAreOneLine(_ line: String) throws {
    let cli = try session()
    let r = cli.run(line)
    #expect(r.code == 64)
    #expect(r.stderr.hasPrefix("error: "))
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
  }

  @Test func errorsUnderJSONAreAlsoOneObjectOnStdout() throws {
    let cli = try session()
    cli.run("buy consumable.fuel.octane87")
    for (line, code, name) in [
      ("refund 42 --json", 64, "usage"), ("--json buy nope", 64, "usage"), ("decline --json", 1, "refused"),
      ("products --json --tpye x", 64, "usage"),
    ] {
      let r = cli.run(line)
      #expect(r.code == Int32(code), "\(line)")
      let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
      #expect(json?["code"] as? String == name, "\(line): \(r.stdout)")
      #expect(json?["exitCode"] as? Int == code)
      #expect((json?["error"] as? String).map { r.stderr.contains($0) } == true)
    }
    #expect(cli.run("refund 42").stdout.isEmpty)
  }

  @Test func aQuantityThatDoesNotApplyIsRefusedWithTheReason() throws {
    let cli = try session()
    let r = cli.run("buy nonconsumable.car --quantity 2")
    #expect(r.code == 64)
    #expect(r.stderr.contains("'nonconsumable.car' is non-consumable"))
    #expect(
      cli.run("transactions --json").stdout == "[\n\n]\n"
        || !cli.run("transactions").stdout.contains("nonconsumable.car"))
    #expect(cli.run("buy consumable.fuel.octane87 --quantity 2").code == 0)
  }

  @Test func aMutatingCommandThatCreatesACustomerSaysSo() throws {
    let cli = try session()
    #expect(cli.run("buy nonconsumable.car --customer kid").stderr == "note: new customer 'kid'\n")
    let typo = cli.run("buy nonconsumable.car --customer kidd")
    #expect(typo.code == 0)
    #expect(typo.stderr.contains("note: new customer 'kidd'; did you mean 'kid'?"))
    #expect(cli.run("buy nonconsumable.racecar --customer kid").stderr.isEmpty)
  }

  @Test func askToBuyAnswersNameTheRequestAndProduct() throws {
    let cli = try session()
    cli.run("settings ask-to-buy on")
    cli.run("buy nonconsumable.racecar")
    cli.run("buy nonconsumable.car")
    let declined = try JSONSerialization.jsonObject(with: Data(cli.run("decline --json").stdout.utf8)) as? [String: Any]
    #expect(declined?["result"] as? String == "declined")
    #expect(declined?["requestId"] as? String == "2")
    #expect(declined?["productId"] as? String == "nonconsumable.car")
    let approved = cli.run("approve 1")
    #expect(approved.stdout.hasPrefix("approved   request 1 for nonconsumable.racecar: transaction 2000000000000001"))
    let stale = cli.run("approve 1")
    #expect(stale.code == 1)
    #expect(stale.stderr.contains("request 1 is no longer pending"))
  }

  @Test func aDowngradeNamesTheProductItSwitchesToAndWhen() throws {
    let cli = try session()
    cli.run("buy subscription.pro")
    let r = cli.run("buy subscription.standard")
    #expect(
      r.stdout.hasPrefix("scheduled  subscription.standard  from 2026-03-01T00:00:00Z, when subscription.pro renews"),
      "\(r.stdout)")
    let json =
      try JSONSerialization.jsonObject(with: Data(cli.run("buy subscription.standard --json").stdout.utf8))
      as? [String: Any]
    let change = json?["scheduledChange"] as? [String: Any]
    #expect(change?["productId"] as? String == "subscription.standard")
    #expect(change?["effectiveDate"] as? Int == 1_772_323_200_000)
  }

  @Test func buyingWhatIsAlreadyOwnedSaysSo() throws {
    let cli = try session()
    cli.run("buy subscription.pro")
    #expect(
      cli.run("buy subscription.pro").stdout.hasPrefix(
        "already subscribed  subscription.pro  transaction 2000000000000001"))
    cli.run("buy nonconsumable.car")
    let again = cli.run("buy nonconsumable.car --json")
    #expect(again.stdout.contains("\"alreadyOwned\": true"))
  }

  @Test func settingsJSONHasTypedValues() throws {
    let cli = try session()
    let json = try JSONSerialization.jsonObject(with: Data(cli.run("settings --json").stdout.utf8)) as? [String: Any]
    #expect(json?["ask-to-buy"] as? Bool == false)
    #expect((json?["time-rate"] as? [String: Any])?["name"] as? String == "realTime")
    #expect((json?["time-rate"] as? [String: Any])?["value"] as? Int == 0)
    #expect(json?["deliver-url"] is NSNull)
    let changed =
      try JSONSerialization.jsonObject(with: Data(cli.run("settings grace-period on --json").stdout.utf8))
      as? [String: Any]
    #expect(changed?["grace-period"] as? Bool == true)
  }

  @Test func timelineJSONGivesThePeriodsAsData() throws {
    let cli = try session()
    cli.run("buy subscription.pro")
    cli.run("settings billing-retry on")
    cli.run("settings grace-period on")
    cli.run("advance 3mo")
    let json = try JSONSerialization.jsonObject(with: Data(cli.run("timeline --json").stdout.utf8)) as? [String: Any]
    let group = (json?["groups"] as? [[String: Any]])?.first
    #expect(group?["subscriptionGroupIdentifier"] as? String == "5A1E6001")
    let periods = ((group?["customers"] as? [[String: Any]])?.first?["periods"] as? [[String: Any]]) ?? []
    #expect(periods.map { $0["kind"] as? String } == ["offer", "grace", "billingRetry"])
    #expect(periods.first?["start"] as? Int == 1_767_225_600_000)
    #expect(periods.first?["productId"] as? String == "subscription.pro")
  }

  @Test func expectationFieldNamesAreTheSchemasFields() throws {
    // Names and the names of nested objects' fields (`commitmentInfo.billingPeriodNumber`).
    func properties(_ name: String) throws -> Set<String> {
      let url = CLIHarness.projectRoot.appendingPathComponent("docs/schema/\(name).schema.json")
      let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
      let top = (schema?["properties"] as? [String: Any]) ?? [:]
      var names = Set(top.keys)
      for (key, value) in top {
        let nested = ((value as? [String: Any])?["properties"] as? [String: Any]) ?? [:]
        for field in nested.keys { names.insert("\(key).\(field)") }
      }
      return names
    }
    #expect(try properties("transaction") == Set(WireFields.transaction))
    #expect(try properties("renewal-info") == Set(WireFields.renewalInfo))
  }
}
