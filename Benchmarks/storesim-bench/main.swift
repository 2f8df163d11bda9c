import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimSession

// Library benchmarks for Scripts/bench.sh. Prints `key value` lines; timing happens here, never
// in tests. Usage: storesim-bench throughput N YEARS [--one-call] [--warm] | session N | es256 N |
// retry-storm N URL failed|delivered | import-dump N | empty-session
func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func peakMemoryMiB() -> Double {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    return Double(line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0) / 1024
  }
  return 0
}

let configuration: StoreConfiguration = {
  let trial = SubscriptionOffer(
    type: .introductory, paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .week))
  let products = [
    Product(
      id: "monthly", type: .autoRenewable, price: Decimal(string: "9.99")!,
      subscription: SubscriptionInfo(
        groupID: "G", groupLevel: 2, period: SubscriptionPeriod(value: 1, unit: .month), introductoryOffer: trial)),
    Product(
      id: "yearly", type: .autoRenewable, price: Decimal(string: "79.99")!,
      subscription: SubscriptionInfo(groupID: "G", groupLevel: 1, period: SubscriptionPeriod(value: 1, unit: .year))),
    Product(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
  ]
  return StoreConfiguration(
    products: products, subscriptionGroups: [SubscriptionGroup(id: "G", name: "G", productIDs: ["monthly", "yearly"])])
}()
let start = Date(timeIntervalSince1970: 1_767_225_600)

/// N subscribers join over the first month, a tenth cancel, a hundredth are refunded, and the
/// clock runs `years` years, a day per `advance` call as a test script steps it (or in one call
/// with `oneCall`, which holds every event of the two years in one array). Returns the
/// lifecycle events (transactions created, expiries, refunds, notifications) and the seconds
/// it took.
func simulate(
  subscribers n: Int, years: Int, oneCall: Bool = false
) throws -> (events: Int, seconds: Double, store: Store) {
  var store = Store(configuration: configuration, start: start)
  var events = 0
  func count<Value>(_ outcome: Outcome<Value>) {
    let list = outcome.events
    for i in list.indices {
      switch list[i].kind {
      case .transactionCreated, .subscriptionExpired, .transactionRevoked, .notificationSent: events += 1
      // Counted only through the transactions and notifications they come with.
      case .transactionUpgraded, .subscriptionRenewed, .renewalFailed, .gracePeriodExpired, .renewalPreferenceChanged,
        .autoRenewStatusChanged, .priceIncreaseStatusChanged, .offerRedeemed, .askToBuyRequested, .askToBuyDeclined,
        .purchaseInterrupted, .refundRequested, .refundDeclined, .refundReversed, .clockAdvanced:
        break
      }
    }
  }
  let time = try seconds {
    let step = 30.0 * 86_400 / Double(max(n, 1))
    for i in 0..<n {
      let name = CustomerID("c\(i)")
      try store.addCustomer(name)
      count(try store.advance(to: start.addingTimeInterval(step * Double(i))))
      let outcome = try store.purchase(i % 7 == 0 ? "yearly" : "monthly", customer: name)
      count(outcome)
      if i % 10 == 3 { count(try store.disableAutoRenew(productID: "monthly", customer: name)) }
      if i % 100 == 5, let t = outcome.transaction { count(try store.refund(t.id, customer: name)) }
    }
    let end = UTCCalendar.adding(months: 12 * years, to: start)
    if oneCall { count(try store.advance(to: end)) }
    while store.now < end { count(try store.advance(to: min(end, store.now.addingTimeInterval(86_400)))) }
  }
  return (events, time, store)
}

let args = CommandLine.arguments.dropFirst()
switch args.first {
case "throughput":
  let n = Int(args.dropFirst().first ?? "1000") ?? 1000
  let years = Int(args.dropFirst(2).first ?? "2") ?? 2
  // With --warm, a smaller run first, not counted: what a process does once (type metadata, the
  // allocator's first pages) is then not in the figure (Scripts/bench.sh prints both).
  if args.contains("--warm") { _ = try simulate(subscribers: min(n, 500), years: 1) }
  let r = try simulate(subscribers: n, years: years, oneCall: args.contains("--one-call"))
  print("events \(r.events)")
  print("seconds \(r.seconds)")
  print("events_per_second \(Double(r.events) / r.seconds)")
  print("transactions \(r.store.customerIDs.reduce(0) { $0 + (r.store.customer($1)?.transactions.count ?? 0) })")
  print("peak_mib \(peakMemoryMiB())")
  // A fast run that skipped work is not a result: every live subscription must be past now.
  let stale = r.store.customerIDs.reduce(0) { n, name in
    n
      + (r.store.customer(name)?.subscriptions.filter {
        !$0.isExpired && !$0.isRevoked && $0.expirationDate < r.store.now
      }.count ?? 0)
  }
  if stale > 0 {
    FileHandle.standardError.write(Data("storesim-bench: \(stale) subscriptions missed a deadline\n".utf8))
    exit(1)
  }
  exit(0)  // the store is not measured being freed; skip that
case "session":
  // Writes a session file holding about N transactions (subscribers with two years of monthly
  // renewals each), for the CLI benchmarks.
  let target = Int(args.dropFirst().first ?? "10") ?? 10
  let subscribers = max(1, target / 25)
  var store = Store(configuration: configuration, start: start)
  for i in 0..<subscribers {
    let name = CustomerID("c\(i)")
    try store.addCustomer(name)
    _ = try store.purchase("monthly", customer: name)
  }
  try store.advance(to: UTCCalendar.adding(months: 24, to: start))
  let made = store.customerIDs.reduce(0) { $0 + (store.customer($1)?.transactions.count ?? 0) }
  for _ in 0..<max(0, target - made) { _ = try store.purchase("coins") }
  // A session file exactly as the CLI writes it (Scripts/bench.sh checks storesim accepts it).
  FileHandle.standardOutput.write(
    try SessionFileFormat.encode(store.state, configurationPath: "", configurationDigest: ""))
case "retry-storm":
  // Writes a Production session of N subscribers a minute before their free week ends, the
  // notification URL URL: `advance 7d` renews every one at once (N DID_RENEW, signed and posted
  // in both cases) and, when URL fails, makes Apple's five retries of each within the week.
  // The subscribers' earlier notifications were never attempted (no URL then): nothing else is
  // retried. `failed|delivered` only names the case; the URL decides it.
  let rest = Array(args.dropFirst())
  let n = Int(rest.first ?? "10") ?? 10
  let url = rest.count > 1 ? rest[1] : "http://127.0.0.1:9/"
  var store = Store(configuration: configuration, start: start, environment: .production)
  for i in 0..<n {
    let name = CustomerID("c\(i)")
    try store.addCustomer(name)
    _ = try store.purchase("monthly", customer: name)
  }
  try store.advance(to: start.addingTimeInterval(7 * 86_400 - 60))
  store.setDeliveryURL(url)
  FileHandle.standardOutput.write(
    try SessionFileFormat.encode(store.state, configurationPath: "", configurationDigest: ""))
case "import-dump":
  // Writes what `storesim import` reads for Scripts/bench.sh item 17: Get Transaction History
  // for N customers, one response a line, each a subscriber of 19 months (a free week, then
  // monthly renewals: 20 transactions). The JWS carry the payloads storesim serves and a
  // stand-in signature (import does not check signatures; signing 100,000 would time the
  // generator). The number of transactions goes to standard error.
  let n = Int(args.dropFirst().first ?? "10") ?? 10
  var store = Store(configuration: configuration, start: start)
  for i in 0..<n {
    let name = CustomerID("c\(i)")
    try store.addCustomer(name)
    _ = try store.purchase("monthly", customer: name)
  }
  try store.advance(to: UTCCalendar.adding(months: 19, to: start).addingTimeInterval(86_400))
  let header = JWS.base64URL(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
  var total = 0
  var out = Data()
  for name in store.customerIDs {
    let list = store.customer(name)?.transactions ?? []
    guard !list.isEmpty else { continue }
    total += list.count
    let signed = list.map { t in
      "\"\(header).\(JWS.base64URL(Array(store.payload(t, customer: name).rendered(pretty: false).utf8))).c2lnbmF0dXJl\""
    }
    out.append(
      contentsOf: Array(
        (#"{"bundleId":"com.example.app","environment":"Xcode","hasMore":false,"signedTransactions":["#
          + signed.joined(separator: ",") + "]}\n").utf8))
    if out.count > 1 << 22 {
      FileHandle.standardOutput.write(out)
      out = Data()
    }
  }
  FileHandle.standardOutput.write(out)
  FileHandle.standardError.write(Data("\(total)\n".utf8))
case "empty-session":
  // A session file of this benchmark's configuration with no customers' data (import's target).
  let store = Store(configuration: configuration, start: start)
  FileHandle.standardOutput.write(
    try SessionFileFormat.encode(store.state, configurationPath: "", configurationDigest: ""))
case "es256":
  // ES256 signs and verifies per second on one thread (a JWS signing input's size), after the
  // base-point table is made once.
  let n = Int(args.dropFirst().first ?? "2000") ?? 2000
  let key = P256.PrivateKey(deriving: [1], label: "bench")
  let message = Array(String(repeating: "eyJhbGciOiJFUzI1NiJ9.payload", count: 20).utf8)
  _ = key.signature(for: message)
  var signatures: [P256.Signature] = []
  let signing = seconds { for i in 0..<n { signatures.append(key.signature(for: message + [UInt8(i & 0xFF)])) } }
  var valid = 0
  let verifying = seconds {
    for i in 0..<n where key.publicKey.isValidSignature(signatures[i], for: message + [UInt8(i & 0xFF)]) { valid += 1 }
  }
  guard valid == n else {
    FileHandle.standardError.write(Data("storesim-bench: \(n - valid) signatures did not verify\n".utf8))
    exit(1)
  }
  print("signs_per_second \(Double(n) / signing)")
  print("verifies_per_second \(Double(n) / verifying)")
default:
  let usage =
    "usage: storesim-bench throughput N YEARS [--one-call] | session N | es256 N | import-dump N | empty-session\n"
  FileHandle.standardError.write(Data(usage.utf8))
  exit(64)
}
