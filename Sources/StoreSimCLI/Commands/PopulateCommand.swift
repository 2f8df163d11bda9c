import Foundation
import StoreSim
import StoreSimServer
import StoreSimSignals

/// `storesim populate`: fills the session with customers `c1`...`cN` who live M months
/// (docs/populations.md).
struct PopulateCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "populate", group: "Session and catalogue",
    abstract: "Fill the session with customers c1...cN living M months: churn, billing failures, refunds, offers",
    discussion:
      "The session must be new (its clock at its start) and have no customer named c1, c2...: each customer arrives, "
      + "buys a product of --mix, and from then on cancels, fails to renew (grace, billing retry, then recovery or "
      + "expiry), asks for refunds, changes level, takes introductory and promotional offers, shares with a family "
      + "and waits for Ask to Buy, each at its rate (a percentage; the defaults and their sources are in "
      + "docs/populations.md); the clock ends M months after the start. The same session, options and seed give "
      + "the same bytes. --shard K/N makes the K-th of N disjoint parts (customers K, K+N, K+2N...), whose union is "
      + "the whole run. --answer-key FILE writes a CSV per month and product (activeAtEnd, purchases, renewals, "
      + "refunds, grossRevenue, refundedRevenue, mrr, churned; PURCHASED transactions only) for checking a pipeline.",
    example: "storesim populate --customers 1000 --months 24 --seed 7 --answer-key key.csv")

  @Option("<n>", help: "how many customers (c1...cN), 1 to 10,000,000", parse: PopulateCommand.customerCount)
  var customers: Int?
  @Option("<m>", help: "how many months they live, 1 to 120", parse: PopulateCommand.monthCount)
  var months: Int?
  @Option(
    "<s>", help: "the seed (default 1): the same seed gives the same population", parse: PopulateCommand.seedValue)
  var seed: UInt64?
  @Option(
    "<m>", help: "arrivals are spread over the first m months (default: all of them)", parse: PopulateCommand.monthCount
  )
  var arrivals: Int?
  @Option(
    "<product=share,...>",
    help: "products and their shares in percent, summing to 100 (default: every subscription alike)")
  var mix: String?
  @Option("<k/n>", help: "make the k-th of n parts (customers k, k+n, ...)", parse: PopulationPlan.shard)
  var shard: (index: Int, count: Int)?
  @Option("<file>", help: "write the answer key, a CSV per month and product")
  var answerKey: String?
  @Option("<pct>", help: "monthly voluntary cancellations (default 7)", parse: PopulationPlan.rate("churn"))
  var churn: Double?
  @Option(
    "<pct>", help: "cancellations during an introductory offer (default 62)", parse: PopulationPlan.rate("intro-cancel")
  )
  var introCancel: Double?
  @Option("<pct>", help: "renewals that fail for billing (default 6)", parse: PopulationPlan.rate("billing-failure"))
  var billingFailure: Double?
  @Option(
    "<pct>", help: "failed renewals recovered in grace or billing retry (default 53)",
    parse: PopulationPlan.rate("recovery"))
  var recovery: Double?
  @Option("<pct>", help: "purchased transactions refunded (default 1)", parse: PopulationPlan.rate("refund"))
  var refund: Double?
  @Option("<pct>", help: "monthly changes of level in the group (default 2)", parse: PopulationPlan.rate("plan-change"))
  var planChange: Double?
  @Option(
    "<pct>", help: "cancelling subscribers who take a promotional offer instead (default 10)",
    parse: PopulationPlan.rate("promotional"))
  var promotional: Double?
  @Option(
    "<pct>", help: "customers who organise a Family Sharing group (default 5)", parse: PopulationPlan.rate("family"))
  var family: Double?
  @Option(
    "<pct>", help: "first purchases that wait for Ask to Buy (default 2)", parse: PopulationPlan.rate("ask-to-buy"))
  var askToBuy: Double?
  @Option("<pct>", help: "Ask to Buy requests declined (default 25)", parse: PopulationPlan.rate("ask-to-buy-decline"))
  var askToBuyDecline: Double?
  @Option(
    "<url>", help: "then POST the notifications to url in event order, as Apple does (a load test)",
    parse: { text, context in try Delivery.validate(text, command: context.command) })
  var deliverURL: String?
  @Option("<r>", help: "with --deliver-url: attempts a second, at most (1 to 100000)", parse: PopulateCommand.rateValue)
  var rate: Double?
  @Option("<n>", help: "with --deliver-url: stop after n attempts", parse: PopulateCommand.limitValue)
  var deliverLimit: Int?
  @Arguments(0...0, "")
  var arguments: [String]

  func validate() throws {
    guard customers != nil, months != nil else {
      throw CLIError.usage("populate needs --customers N and --months M", command: "populate")
    }
    if let arrivals, let months, arrivals > months {
      throw CLIError.usage("--arrivals \(arrivals) is longer than --months \(months)", command: "populate")
    }
    if deliverURL != nil, rate == nil {
      throw CLIError.usage("--deliver-url needs --rate R (attempts a second)", command: "populate")
    }
    if deliverURL == nil, rate != nil || deliverLimit != nil {
      throw CLIError.usage("--rate and --deliver-limit go with --deliver-url", command: "populate")
    }
  }

  var rates: PopulationPlan.Rates {
    var r = PopulationPlan.Rates()
    if let churn { r.churn = churn }
    if let introCancel { r.introCancel = introCancel }
    if let billingFailure { r.billingFailure = billingFailure }
    if let recovery { r.recovery = recovery }
    if let refund { r.refund = refund }
    if let planChange { r.planChange = planChange }
    if let promotional { r.promotional = promotional }
    if let family { r.family = family }
    if let askToBuy { r.askToBuy = askToBuy }
    if let askToBuyDecline { r.askToBuyDecline = askToBuyDecline }
    return r
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    guard let customers, let months else { return .usage }
    let keyPath = try answerKey.map { try inv.environment.resolve($0) }
    if deliverURL != nil, inv.environment.pathPolicy != nil {
      throw CLIError.usage(
        "--deliver-url is for the command line: it would have this server post to the network for its caller, and hold the caller for minutes",
        command: "populate")
    }
    var delivering: (store: Store, since: Int, json: JSONOutput)?
    // The notifications are written out as they are made, unless they are to be posted after
    // the save (the load test reads them from the store).
    let code = try SessionContext.writingOutNotifications(inv) { store, written in
      let before = store.notifications.count
      let plan = try self.plan(for: store, customers: customers, months: months)
      var run = PopulationRun(plan: plan, start: store.state.startDate)
      try run.run(on: &store, writingOutTo: deliverURL == nil ? written : nil)
      let names = run.lives.map { PopulationRun.name($0.number) }
      if let keyPath, let shown = answerKey {
        let key = AnswerKey(
          store: store, customers: names, start: store.state.startDate, end: Date(epochMilliseconds: run.end))
        try ReportPage.write(key.csv, to: keyPath, shown: shown, what: "the answer key")
      }
      let transactions = names.reduce(0) { $0 + (store.customer($1)?.transactions.count ?? 0) }
      let part = plan.shard.count > 1 ? " (shard \(plan.shard.index)/\(plan.shard.count))" : ""
      let json: [String: JSONOutput] = [
        "customers": .int(Int64(names.count)), "transactions": .int(Int64(transactions)),
        "notifications": .int(Int64(store.notifications.count)), "now": .int(store.now.epochMilliseconds),
        "answerKey": answerKey.map(JSONOutput.string) ?? .null,
      ]
      let line =
        "populated \(names.count) customers\(part) over \(months) months: \(transactions) transactions, "
        + "now \(ISO8601.string(store.now))" + (answerKey.map { "; answer key \($0)" } ?? "")
      guard deliverURL != nil else {
        inv.emit(json: .object(json), line: line)
        return .success
      }
      if inv.printsText { inv.out(line) }
      delivering = (store, before, .object(json))
      return .success
    }
    // After the save, with the session's lock released: the load test reads the population
    // kept in memory and changes nothing.
    guard code == .success, let deliverURL, let rate, case .object(var json)? = delivering?.json,
      let store = delivering?.store, let since = delivering?.since
    else { return code }
    delivering = nil
    let delivery = PopulationDelivery(url: deliverURL, rate: rate, limit: deliverLimit)
    let summary = try ProcessSignals.catchingInterrupts(restoring: {}) {
      try delivery.run(store, since: since, stop: { ProcessSignals.interrupted != 0 })
    }
    let report = PopulationDelivery.report(summary, url: deliverURL)
    json["delivery"] = report.json
    inv.emit(json: .object(json)) { if inv.printsText { inv.out(report.line) } }
    return .success
  }

  static func rateValue(_ text: String, _ context: ParseContext) throws -> Double {
    guard let r = Double(text), r.isFinite, r >= 1, r <= 100_000 else {
      throw CLIError.usage("--rate takes attempts a second from 1 to 100000, not '\(text)'", command: context.command)
    }
    return r
  }

  static func limitValue(_ text: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(text), n >= 1 else {
      throw CLIError.usage("--deliver-limit takes a count of 1 or more, not '\(text)'", command: context.command)
    }
    return n
  }

  /// The plan, checked against the session: refused before anything changes.
  func plan(for store: Store, customers: Int, months: Int) throws -> PopulationPlan {
    let configuration = store.configuration
    let mix =
      try mix.map { try PopulationPlan.parseMix($0, configuration: configuration) }
      ?? PopulationPlan.defaultMix(configuration)
    guard !mix.isEmpty else {
      throw CLIError.usage("the configuration has no products to populate", command: "populate")
    }
    guard store.settings.timeRate == .realTime else {
      throw CLIError.usage(
        "populate lives in real time; this session's time rate is \(store.settings.timeRate) (settings time-rate realTime)",
        command: "populate")
    }
    guard store.now == store.state.startDate else {
      throw CLIError.usage(
        "populate starts at the session's start, and this session's clock has moved to \(ISO8601.string(store.now)); "
          + "populate a new session", command: "populate")
    }
    if let taken = store.customerIDs.first(where: { Self.isPopulationName($0.rawValue) }) {
      throw CLIError.usage(
        "the session already has a customer named '\(taken)'; populate names its customers c1, c2... (use a new session)",
        command: "populate")
    }
    var plan = PopulationPlan(
      customers: customers, months: months, seed: seed ?? 1, arrivalMonths: arrivals ?? months, mix: mix, rates: rates)
    if let shard { plan.shard = shard }
    return plan
  }

  /// `c` and a digit: a name populate gives (`c12`, `c12.family1`).
  static func isPopulationName(_ name: String) -> Bool {
    let scalars = Array(name.unicodeScalars.prefix(2))
    return scalars.count == 2 && scalars[0] == "c" && ("0"..."9").contains(scalars[1])
  }

  static func customerCount(_ text: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(text), (1...10_000_000).contains(n) else {
      throw CLIError.usage("--customers takes a count from 1 to 10000000, not '\(text)'", command: context.command)
    }
    return n
  }

  static func monthCount(_ text: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(text), (1...120).contains(n) else {
      throw CLIError.usage("a number of months is 1 to 120, not '\(text)'", command: context.command)
    }
    return n
  }

  static func seedValue(_ text: String, _ context: ParseContext) throws -> UInt64 {
    guard let n = UInt64(text) else {
      throw CLIError.usage(
        "--seed takes a whole number from 0 to 18446744073709551615, not '\(text)'", command: context.command)
    }
    return n
  }
}
