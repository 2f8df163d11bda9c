import Foundation
import StoreSim
import StoreSimSession
import Testing

@testable import StoreSimCLI

/// `storesim populate` (issue 50): a population lived through the engine, deterministic,
/// shardable, with an answer key; bad input changes nothing.
@Suite struct PopulateTests {
  static let initLine = "init Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox"

  static func session(_ cli: CLIHarness) throws -> StoreState {
    try SessionFile.read(cli.folder + "/.storesim/session.json", shownAs: "s").state
  }

  static func file(_ cli: CLIHarness, _ name: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: cli.folder + "/" + name))
  }

  /// A customer's history without the ids a session hands out in its own order.
  static func histories(_ state: StoreState) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for customer in state.customers where PopulateCommand.isPopulationName(customer.id.rawValue) {
      result[customer.id.rawValue] = customer.transactions.map { t in
        [
          t.productID, "\(t.purchaseDate.epochMilliseconds)", "\(t.expirationDate?.epochMilliseconds ?? 0)",
          "\(t.revocationDate?.epochMilliseconds ?? 0)", t.reason.rawValue, "\(t.price)", t.ownershipType.rawValue,
          t.offer.map { "\($0.type)" } ?? "", "\(t.isUpgraded)",
        ].joined(separator: " ")
      }
    }
    return result
  }

  @Test func populateLivesCustomersThroughTheEngine() throws {
    let cli = try CLIHarness()
    cli.run(Self.initLine)
    let r = cli.run("populate --customers 300 --months 12 --seed 3 --family 20 --ask-to-buy 10 --refund 5")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("populated 300 customers over 12 months"))
    let state = try Self.session(cli)
    #expect(ISO8601.string(state.now) == "2027-01-01T00:00:00Z")
    let names = Set(state.customers.map(\.id.rawValue))
    #expect((1...300).allSatisfy { names.contains("c\($0)") })
    #expect(names.contains { $0.contains(".family") })
    let kinds = Set(state.notifications.map { $0.notificationType.rawValue + "/" + ($0.subtype?.rawValue ?? "") })
    for expected in [
      "SUBSCRIBED/INITIAL_BUY", "DID_RENEW/", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY",
      "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY", "REFUND/",
    ] {
      #expect(kinds.contains(expected), "no \(expected) among \(kinds.sorted())")
    }
    let transactions = state.customers.flatMap(\.transactions)
    #expect(transactions.contains { $0.ownershipType == .familyShared })
    #expect(transactions.contains { $0.offer?.type == .introductory })
    #expect(transactions.contains { $0.isUpgraded })
    // A normal session: the other commands read it.
    #expect(cli.run("status --customer c7").code == 0)
    #expect(cli.run("timeline --customer c7").code == 0)
  }

  /// The agenda's heap moves its steps on every insert and pop (about 17 levels at 100,000
  /// customers): a step is a plain 24-byte value, no references to count, its action kept
  /// beside the heap (issue 50, item 7; docs/performance.md, "populate's CPU per customer").
  @Test func theAgendasStepsAreSmallPlainValues() {
    #expect(_isPOD(PopulationRun.Step.self))
    #expect(MemoryLayout<PopulationRun.Step>.stride <= 24)
  }

  /// The agenda gives its steps back earliest first, inserts and pops interleaved (a 4-ary heap).
  @Test func theAgendaGivesItsStepsBackInOrder() {
    var heap = MinHeap<Int>()
    var kept: [Int] = []
    var popped: [Int] = []
    var x: UInt64 = 7
    for round in 0..<5_000 {
      x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let value = Int(x >> 40)
      heap.insert(value)
      kept.append(value)
      if round % 3 == 2, let min = heap.popMin() {
        #expect(min == kept.min())
        kept.remove(at: kept.firstIndex(of: min)!)
        popped.append(min)
      }
    }
    while let min = heap.popMin() { popped.append(min) }
    #expect(popped.count == 5_000 && heap.count == 0)
    #expect(Array(popped.suffix(kept.count)) == kept.sorted())
  }

  @Test func theSameSeedGivesTheSameSessionAndAnswerKeyByteForByte() throws {
    let cli = try CLIHarness()
    var sessions: [Data] = []
    var keys: [Data] = []
    for _ in 0..<2 {
      try? FileManager.default.removeItem(atPath: cli.folder + "/.storesim")
      cli.run(Self.initLine)
      #expect(cli.run("populate --customers 120 --months 6 --seed 42 --answer-key key.csv").code == 0)
      sessions.append(try Self.file(cli, ".storesim/session.json"))
      keys.append(try Self.file(cli, "key.csv"))
    }
    #expect(sessions[0] == sessions[1])
    #expect(keys[0] == keys[1])
    try? FileManager.default.removeItem(atPath: cli.folder + "/.storesim")
    cli.run(Self.initLine)
    #expect(cli.run("populate --customers 120 --months 6 --seed 43 --answer-key key.csv").code == 0)
    #expect(try Self.file(cli, "key.csv") != keys[0])
  }

  @Test func shardsAreDisjointTheirUnionIsTheWholeRunAndTheirAnswerKeysAddUp() throws {
    let options = "--customers 90 --months 8 --seed 5 --family 20 --ask-to-buy 10"
    let whole = try CLIHarness()
    whole.run(Self.initLine)
    #expect(whole.run("populate \(options) --answer-key key.csv").code == 0)
    let expected = Self.histories(try Self.session(whole))
    var union: [String: [String]] = [:]
    var sums: [String: [Int64]] = [:]
    for k in 1...3 {
      let part = try CLIHarness()
      part.run(Self.initLine)
      let r = part.run("populate \(options) --shard \(k)/3 --answer-key key.csv")
      #expect(r.code == 0, "\(r.stderr)")
      #expect(r.stdout.contains("populated 30 customers (shard \(k)/3)"))
      for (name, history) in Self.histories(try Self.session(part)) {
        #expect(union[name] == nil, "\(name) is in two shards")
        union[name] = history
      }
      for (row, values) in Self.rows(try Self.file(part, "key.csv")) {
        sums[row] = zip(sums[row] ?? Array(repeating: 0, count: values.count), values).map { $0 + $1 }
      }
    }
    #expect(union == expected)
    #expect(sums == Self.rows(try Self.file(whole, "key.csv")))
  }

  /// The answer key's rows by month and product, their counts as numbers.
  static func rows(_ data: Data) -> [String: [Int64]] {
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst()
    var result: [String: [Int64]] = [:]
    for line in lines {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      result[fields[0] + "," + fields[1]] = fields.dropFirst(2).map { Int64($0) ?? -1 }
    }
    return result
  }

  @Test func theAnswerKeyCountsPurchasedTransactionsOnly() throws {
    let cli = try CLIHarness()
    cli.run(Self.initLine)
    #expect(cli.run("populate --customers 80 --months 4 --family 100 --answer-key key.csv").code == 0)
    let state = try Self.session(cli)
    let purchased = state.customers.flatMap(\.transactions).filter { $0.ownershipType == .purchased }
    #expect(state.customers.flatMap(\.transactions).count > purchased.count)
    let rows = Self.rows(try Self.file(cli, "key.csv"))
    let purchases = rows.values.reduce(0) { $0 + $1[1] + $1[2] }
    #expect(purchases == Int64(purchased.count))
    let gross = rows.values.reduce(0) { $0 + $1[4] }
    #expect(gross == purchased.reduce(0) { $0 + AnswerKey.milliunits($1.price) })
    let header = String(decoding: try Self.file(cli, "key.csv"), as: UTF8.self).prefix { $0 != "\n" }
    #expect(header == "month,productId,activeAtEnd,purchases,renewals,refunds,grossRevenue,refundedRevenue,mrr,churned")
  }

  @Test(arguments: [
    ("--mix nope=100", "not a product of the configuration"),
    ("--mix com.example.premium.monthly=60,com.example.premium.yearly=30", "sum to 90"),
    ("--churn 101", "--churn is a percentage from 0 to 100"),
    ("--refund 1.2345", "--refund is a percentage"),
    ("--shard 3/2", "--shard takes K/N"),
    ("--arrivals 9", "longer than --months"),
    ("--deliver-url http://127.0.0.1:9/", "--deliver-url needs --rate"),
    ("--rate 10", "go with --deliver-url"),
    ("--deliver-url ftp://example.com/ --rate 5", "not a usable http or https URL"),
    ("--deliver-url http://127.0.0.1:9/ --rate 0", "--rate takes attempts a second"),
  ])
  func badInputIsOneLineAndChangesNothing(option: String, message: String) throws {
    let cli = try CLIHarness()
    cli.run(Self.initLine)
    let before = try Self.file(cli, ".storesim/session.json")
    let r = cli.run("populate --customers 10 --months 6 \(option) --answer-key key.csv")
    #expect(r.code == 64)
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(try Self.file(cli, ".storesim/session.json") == before)
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/key.csv"))
  }

  @Test func populateRefusesASessionThatAlreadyHasItsCustomers() throws {
    let cli = try CLIHarness()
    cli.run(Self.initLine)
    cli.run("buy com.example.premium.monthly --customer c1")
    let before = try Self.file(cli, ".storesim/session.json")
    let r = cli.run("populate --customers 10 --months 2")
    #expect(r.code == 64)
    #expect(r.stderr.contains("already has a customer named 'c1'"))
    #expect(try Self.file(cli, ".storesim/session.json") == before)
  }

  @Test func populateHelpMatchesTheGolden() throws {
    let cli = try CLIHarness()
    assertGolden(cli.transcript(["populate --help"]), "populate-help.txt")
  }
}
