import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimCrypto

/// Offers rebuilt from renewal info (issue 49, item 2): the offer a renewal info says applies at
/// the next renewal (`offerType`, `offerIdentifier`, `offerDiscountType`, `offerPeriod`) is the
/// imported subscription's pending or running offer, so the imported session reads back the same
/// renewal info and its next renewals carry the offer as the session the data came from does.
@Suite struct ImportOfferTests {
  typealias T = ImportCommandTests

  static let comeback = "promotional:premium.monthly.comeback"

  /// Each case: the commands that make the data, then the steps both sessions take after it.
  static let cases: [(name: String, lines: [String], then: [String])] = [
    (
      "a pay as you go promotional offer redeemed by an active subscriber, pending",
      ["buy \(T.premium)", "advance 1w", "buy \(T.premium) --offer \(comeback)"],
      ["advance 1mo", "advance 1mo", "advance 1mo", "advance 1mo"]
    ),
    (
      "the same offer running, two of its three periods left",
      ["buy \(T.premium)", "advance 1w", "buy \(T.premium) --offer \(comeback)", "advance 1mo"],
      ["advance 1mo", "advance 1mo", "advance 1mo"]
    ),
    (
      "an offer code redeemed by an active subscriber, pending",
      ["buy \(T.premium)", "advance 1w", "buy \(T.premium) --offer code:FREEMONTH"],
      ["advance 1mo", "advance 1mo"]
    ),
    (
      "a promotional offer with a change of plan at the next renewal (yearly to monthly)",
      ["buy com.example.premium.yearly", "advance 3w", "buy \(T.premium) --offer \(comeback)"],
      ["advance 1y", "advance 1mo", "advance 1mo", "advance 1mo"]
    ),
  ]

  /// The decoded history and statuses of the first customer.
  static func read(_ cli: CLIHarness, _ session: String) throws -> [String] {
    try T.decoded(T.api(cli, "/inApps/v2/history/2000000000000001", session: session))
      + T.decoded(T.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: session))
  }

  @Test(arguments: 0..<cases.count) func importRebuildsTheOfferOfTheNextRenewal(_ index: Int) throws {
    let (name, lines, then) = Self.cases[index]
    let cli = try CLIHarness()
    let start = "init Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox"
    for line in [start] + lines {
      let r = cli.run(line + " --session a.json")
      #expect(r.code == 0, "\(name): \(line): \(r.stderr)")
    }
    let statuses = T.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "a.json")
    // The data holds an offer for the next renewal.
    #expect(
      try T.decoded(statuses).contains { $0.contains("signedRenewalInfo") && $0.contains("offerType=") },
      "\(name): no offer in \(statuses)")
    try T.write(cli, "history.json", T.api(cli, "/inApps/v2/history/2000000000000001", session: "a.json"))
    try T.write(cli, "statuses.json", statuses)
    #expect(cli.run(start + " --session b.json").code == 0)
    let r = cli.run("import history.json statuses.json --session b.json")
    #expect(r.code == 0, "\(name): \(r.stderr)")
    ImportScriptsRoundTripTests.same(try Self.read(cli, "b.json"), try Self.read(cli, "a.json"), name)
    // Both sessions go on the same: each renewal under the offer while it lasts, then at full price.
    for step in then {
      #expect(cli.run(step + " --session a.json").code == 0)
      #expect(cli.run(step + " --session b.json").code == 0)
      ImportScriptsRoundTripTests.same(
        try Self.read(cli, "b.json"), try Self.read(cli, "a.json"), "\(name), after \(step)")
    }
  }

  /// An offer the configuration lacks is made from the renewal info's fields: pay as you go for
  /// three of the product's periods (`offerPeriod` `P3M`) at `renewalPrice` each.
  @Test func importRebuildsAnOfferTheConfigurationLacks() throws {
    let statuses = try Self.statusesWithOffer(id: "elsewhere.offer", period: "P3M", price: 2990)
    let cli = try CLIHarness()
    try T.write(cli, "statuses.json", statuses.text)
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import statuses.json --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    let read = try T.decoded(T.api(cli, "/inApps/v1/subscriptions/\(statuses.id)", session: "b.json"))
    let info = try #require(read.first { $0.contains("signedRenewalInfo") })
    for field in ["offerIdentifier=\"elsewhere.offer\"", "offerPeriod=\"P3M\"", "renewalPrice=2990", "offerType=2"] {
      #expect(info.contains(field), "\(field) not in \(info)")
    }
    // Not the offer the newest transaction carries: it starts at the next renewal, three
    // periods under it, then the full price.
    let prices = (0..<4).map { _ -> String in
      _ = cli.run("advance 1mo --session b.json")
      let latest = (try? T.decoded(T.api(cli, "/inApps/v1/subscriptions/\(statuses.id)", session: "b.json"))) ?? []
      let t = latest.first { $0.contains("signedTransactionInfo") } ?? ""
      return t.split(separator: ",").first { $0.hasPrefix("price=") }.map(String.init) ?? "none"
    }
    #expect(prices == ["price=2990", "price=2990", "price=2990", "price=9990"])
  }

  /// Get All Subscription Statuses of a session whose subscriber runs a promotional offer (pay as
  /// you go, three months at 4.99, one used), with
  /// its renewal info's offer changed to one the configuration lacks.
  static func statusesWithOffer(id: String, period: String, price: Int) throws -> (text: String, id: String) {
    let cli = try CLIHarness()
    for line in [
      "init Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox", "buy \(T.premium)", "advance 1w",
      "buy \(T.premium) --offer \(comeback)", "advance 1mo",
    ] {
      #expect(cli.run(line + " --session a.json").code == 0)
    }
    let text = T.api(cli, "/inApps/v1/subscriptions/2000000000000001", session: "a.json")
    let node = try JSONParser.parse(Array(text.utf8))
    var out = text
    guard case .array(let groups)? = node["data"]?.value else { return (text, "") }
    for group in groups {
      guard case .array(let entries)? = group["lastTransactions"]?.value else { continue }
      for entry in entries {
        guard case .string(let jws)? = entry["signedRenewalInfo"]?.value else { continue }
        var payload = String(decoding: JWS.payload(of: jws) ?? [], as: UTF8.self)
        for (old, new) in [
          ("\"premium.monthly.comeback\"", "\"\(id)\""), ("\"P3M\"", "\"\(period)\""),
          ("\"renewalPrice\":4990", "\"renewalPrice\":\(price)"),
        ] {
          payload = payload.replacingOccurrences(of: old, with: new)
        }
        let parts = jws.split(separator: ".")
        let encoded = Data(payload.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
          .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        out = out.replacingOccurrences(of: jws, with: "\(parts[0]).\(encoded).\(parts[2])")
      }
    }
    // The statuses hold the latest transaction only: the one the imported session knows.
    let latest = try T.decoded(text).first { $0.contains("signedTransactionInfo") } ?? ""
    let id = latest.split(separator: ",").first { $0.hasPrefix("transactionId=") }?.dropFirst(15)
    return (out, String(id ?? "").replacingOccurrences(of: "\"", with: ""))
  }
}
