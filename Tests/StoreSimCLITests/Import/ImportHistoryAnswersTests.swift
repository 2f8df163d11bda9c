import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession

/// What history answers say beyond their transactions (issue 49, items 1 and 3;
/// docs/import.md, "History answers"), the app's first download, and notifications' send
/// attempts.
@Suite struct ImportHistoryAnswersTests {
  typealias T = ImportCommandTests
  typealias R = ImportScriptsRoundTripTests

  /// Apple's sample store: two fuel consumables (the first finished, the second not), a car and
  /// a subscription; then six months.
  static func store(_ cli: CLIHarness, session: String = "a.json") {
    for line in [
      "init AppleSample.storekit --start 2026-01-01T00:00:00Z --environment Sandbox --session \(session)",
      "buy consumable.fuel.octane87 --session \(session)",
      "finish 2000000000000001 --session \(session)",
      "buy nonconsumable.car --session \(session)",
      "buy consumable.fuel.octane89 --session \(session)",
      "buy subscription.standard --session \(session)",
      "advance 6mo --session \(session)",
    ] {
      let r = cli.run(line)
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
  }

  static func unfinished(_ cli: CLIHarness, session: String) -> String {
    cli.run("transactions --unfinished --session \(session)").stdout
  }

  @Test func importReadsAVersion1HistoryBesideVersion2AsTheConsumablesTheAppFinished() throws {
    let cli = try CLIHarness()
    Self.store(cli)
    let v1 = try R.pages(cli, "/inApps/v1/history/2000000000000002", session: "a.json")
    let v2 = try R.pages(cli, "/inApps/v2/history/2000000000000002", session: "a.json")
    #expect(v1.count == 1 && v2.count == 1)
    try T.write(cli, "v1.json", v1[0])
    try T.write(cli, "v2.json", v2[0])
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import v2.json v1.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    for version in [1, 2] {
      let path = "/inApps/v\(version)/history/2000000000000002"
      R.same(
        try T.decoded(R.pages(cli, path, session: "b.json")[0]), try T.decoded(version == 1 ? v1[0] : v2[0]),
        "v\(version)")
    }
    // The first fuel was finished; the second, listed by v1, was not.
    let open = Self.unfinished(cli, session: "b.json")
    #expect(!open.contains("2000000000000001"))
    #expect(open.contains("2000000000000003"))
  }

  @Test func importOfVersion2AloneLeavesEveryTransactionUnfinished() throws {
    let cli = try CLIHarness()
    Self.store(cli)
    try T.write(cli, "v2.json", R.pages(cli, "/inApps/v2/history/2000000000000002", session: "a.json")[0])
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    #expect(cli.run("import v2.json --session b.json").code == 0)
    // Apple's data does not say: the finished fuel is unfinished, and v1 lists it.
    #expect(Self.unfinished(cli, session: "b.json").contains("2000000000000001"))
    let v1 = try R.pages(cli, "/inApps/v1/history/2000000000000002", session: "b.json")[0]
    let v2 = try R.pages(cli, "/inApps/v2/history/2000000000000002", session: "b.json")[0]
    #expect(try T.decoded(v1) == T.decoded(v2))
  }

  @Test func importInfersNothingFromAnAnswerThatLeavesOutMoreThanConsumables() throws {
    let cli = try CLIHarness()
    Self.store(cli)
    // A filtered v2 answer (no subscription): it leaves out the car's sibling subscription too.
    let filtered = T.api(
      cli, "/inApps/v2/history/2000000000000002?productType=NON_CONSUMABLE", session: "a.json")
    try T.write(cli, "filtered.json", filtered)
    try T.write(cli, "v2.json", R.pages(cli, "/inApps/v2/history/2000000000000002", session: "a.json")[0])
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    #expect(cli.run("import v2.json filtered.json --session b.json").code == 0)
    let open = Self.unfinished(cli, session: "b.json")
    #expect(open.contains("2000000000000001") && open.contains("2000000000000003"))
  }

  @Test func importReadsHistoryPagesOnLinesAsOneAnswer() throws {
    let cli = try CLIHarness()
    // 25 fuel purchases, the first 3 finished: v1 lists 22 in two pages (20 and 2), v2 25.
    var lines = ["init AppleSample.storekit --start 2026-01-01T00:00:00Z --environment Sandbox --session a.json"]
    for _ in 0..<25 { lines.append("buy consumable.fuel.octane87 --session a.json") }
    for id in 1...3 { lines.append("finish \(2_000_000_000_000_000 + id) --session a.json") }
    for line in lines { #expect(cli.run(line).code == 0, "\(line)") }
    let v2 = try R.pages(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    let v1 = try R.pages(cli, "/inApps/v1/history/2000000000000025", session: "a.json")
    #expect(v2.count == 2 && v1.count == 2)
    // Pages a line each, as a server that logs its answers writes them. v1's last page alone
    // would leave out 23 consumables, 20 of them unfinished.
    try T.write(cli, "pages.log", (v2 + v1).map { $0.trimmingCharacters(in: .newlines) }.joined(separator: "\n") + "\n")
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import pages.log --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let back = try R.pages(cli, "/inApps/v1/history/2000000000000025", session: "b.json")
    #expect(try back.flatMap(T.decoded) == v1.flatMap(T.decoded))
    #expect(Self.unfinished(cli, session: "b.json").components(separatedBy: "consumable.fuel.octane87").count - 1 == 22)
  }

  @Test func importKeepsTheOrderOfModificationEveryAnswerGives() {
    let seen: [TransactionID: Int] = [1: 0, 3: 1, 2: 2, 4: 3]
    // v1 without 2 came first; v2 puts 2 between 1 and 3.
    #expect(ImportHistory.modificationOrder(firstSeen: seen, answers: [[1, 3], [1, 2, 3, 4]]) == [1, 2, 3, 4])
    // Answers that disagree (one descending) are followed as far as they agree.
    #expect(ImportHistory.modificationOrder(firstSeen: seen, answers: [[4, 3], [3, 4]]).count == 4)
    // No answer: the order the data met them in.
    #expect(ImportHistory.modificationOrder(firstSeen: seen, answers: []) == [1, 3, 2, 4])
  }

  @Test func importGivesTheSessionTheAppsFirstDownloadFromAppTransactionInfo() throws {
    let cli = try CLIHarness()
    // A session that began a month later than b's will.
    #expect(
      cli.run("init Premium.storekit --start 2026-02-01T00:00:00Z --environment Sandbox --session a.json").code == 0)
    #expect(cli.run("buy \(T.premium) --session a.json").code == 0)
    let app = T.api(cli, "/inApps/v1/transactions/appTransactions/2000000000000001", session: "a.json")
    try T.write(cli, "app.json", app)
    try T.write(cli, "info.json", T.api(cli, "/inApps/v1/transactions/2000000000000001", session: "a.json"))
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    #expect(cli.run("import info.json app.json --session b.json").code == 0)
    let back = T.api(cli, "/inApps/v1/transactions/appTransactions/2000000000000001", session: "b.json")
    #expect(try T.decoded(back) == T.decoded(app))
  }

  @Test func importReadsNotificationSendAttemptsAndCopiesOfOneNotificationAreOne() throws {
    let cli = try CLIHarness()
    T.subscriber(cli)
    cli.run("notifications deliver http://127.0.0.1:9/hook --session a.json")
    let log = cli.run("notifications --signed --session a.json").stdout
    try T.write(cli, "webhook.log", log)
    let now = try SessionFileFormat.decode(try #require(T.bytes(cli, "a.json"))).1.now.epochMilliseconds
    let body = "{\"startDate\":\(now - 29 * 86_400_000),\"endDate\":\(now + 1000)}"
    let history = cli.run(["api", "POST", "/inApps/v1/notifications/history", "--data", body, "--session", "a.json"])
    #expect(history.code == 0, "\(history.stderr)")
    let answer = String(history.stdout.drop { $0 != "\n" }.dropFirst())
    #expect(answer.contains("SOCKET_ISSUE"))
    try T.write(cli, "history.json", answer)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import webhook.log history.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let count = log.split(separator: "\n").count
    #expect(
      cli.run("notifications --json --session b.json").stdout.components(separatedBy: "\"notificationUUID\"").count - 1
        == count)
    let back = cli.run(["api", "POST", "/inApps/v1/notifications/history", "--data", body, "--session", "b.json"])
    let backAnswer = String(back.stdout.drop { $0 != "\n" }.dropFirst())
    #expect(try T.decoded(backAnswer) == T.decoded(answer))
    #expect(try R.plain(backAnswer) == R.plain(answer))
    // Apple's attempts went to the team's server: `--retry` has nothing of them to resend.
    let retry = cli.run("notifications deliver --retry --session b.json")
    #expect(retry.code == 0 && !retry.stdout.contains("#"), "\(retry.stdout)\(retry.stderr)")
  }
}

/// Hostile and odd data from a review (issue 49, item 7): refused in one line each, never a trap
/// or a session that cannot be read back; and answers of different accounts tell nothing of
/// each other's finished consumables.
@Suite struct ImportHostileDataTests {
  typealias T = ImportCommandTests
  typealias R = ImportScriptsRoundTripTests

  @Test func importRefusesIdsAndDatesASessionCannotHold() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let receipt = """
      {"receipt":{"bundle_id":"com.example.app","original_purchase_date_ms":"-9223372036854775808","in_app":[\
      {"transaction_id":"0","product_id":"com.example.premium.lifetime","purchase_date_ms":"1767225600000"},\
      {"transaction_id":"18446744073709551614","product_id":"com.example.coins.100","purchase_date_ms":"1767225600000",\
      "web_order_line_item_id":"18446744073709551615"}]}}
      """
    try T.write(cli, "receipt.json", receipt)
    let before = T.bytes(cli, "b.json")
    let r = cli.run("import receipt.json --session b.json")
    #expect(r.code == 65)
    #expect(
      r.stderr.split(separator: "\n").map(String.init) == [
        "error: receipt.json: receipt.in_app[1]: transactionId 18446744073709551614 is out of range",
        "error: receipt.json: receipt.in_app[1]: originalTransactionId 18446744073709551614 is out of range",
        "error: receipt.json: receipt.in_app[1]: webOrderLineItemId 18446744073709551615 is out of range",
        "error: receipt.json: receipt: originalPurchaseDate is out of range (years 1 to 9999)",
        "error: import refused: 4 problems, nothing imported",
      ], "\(r.stderr)")
    #expect(T.bytes(cli, "b.json") == before)
    #expect(cli.run("status --session b.json").code == 0)
  }

  @Test func importInfersNothingFromAnswersOfDifferentAccountsSharingAToken() throws {
    let cli = try CLIHarness()
    let token = "11111111-2222-4333-8444-555555555555"
    for line in [
      "init AppleSample.storekit --start 2026-01-01T00:00:00Z --environment Sandbox --session a.json",
      "buy nonconsumable.car --app-account-token \(token) --session a.json",
      "buy consumable.fuel.octane87 --app-account-token \(token) --customer other --session a.json",
      "finish --all --customer other --session a.json",
    ] {
      #expect(cli.run(line).code == 0, "\(line)")
    }
    // Two accounts, one token (one customer of the app's): the car's answer does not list the
    // fuel, which is another account's, not a finished consumable of the car's.
    try T.write(cli, "car.json", R.pages(cli, "/inApps/v2/history/2000000000000001", session: "a.json")[0])
    try T.write(cli, "fuel.json", R.pages(cli, "/inApps/v2/history/2000000000000002", session: "a.json")[0])
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    #expect(cli.run("import car.json fuel.json --session b.json").code == 0)
    #expect(ImportHistoryAnswersTests.unfinished(cli, session: "b.json").contains("2000000000000002"))
  }

  @Test func importKeepsInterleavedPagesOfTwoAccountsApart() throws {
    let cli = try CLIHarness()
    var lines = ["init AppleSample.storekit --start 2026-01-01T00:00:00Z --environment Sandbox --session a.json"]
    for _ in 0..<25 { lines.append("buy consumable.fuel.octane87 --session a.json") }
    lines.append("buy nonconsumable.car --customer other --session a.json")
    for line in lines { #expect(cli.run(line).code == 0, "\(line)") }
    let mine = try R.pages(cli, "/inApps/v2/history/2000000000000001", session: "a.json")
    let other = try R.pages(cli, "/inApps/v2/history/2000000000000026", session: "a.json")
    #expect(mine.count == 2 && other.count == 1)
    // A log of concurrent calls: my first page, the other account's answer, my second page.
    let log = [mine[0], other[0], mine[1]].map { $0.trimmingCharacters(in: .newlines) }.joined(separator: "\n")
    try T.write(cli, "log.jsonl", log + "\n")
    #expect(cli.run("init AppleSample.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import log.jsonl --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    // Two customers (my pages joined by their app transaction id), nothing finished.
    #expect(r.stdout.contains("for customer-2000000000000001, customer-2000000000000026;"), "\(r.stdout)")
    let all = try R.pages(cli, "/inApps/v1/history/2000000000000001", session: "b.json")
    #expect(try all.flatMap(T.decoded).count == 25)
  }
}
