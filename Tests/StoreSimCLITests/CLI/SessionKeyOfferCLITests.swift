import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim

/// The team's key given at `init --api-key`, on the command line: offers and eligibility signed
/// with it are honoured, another key's are refused or ignored, and `api` checks bearer tokens
/// with it (rules a-key-given-to-the-session-verifies-offers and
/// introductory-offer-eligibility-jws-sets-eligibility).
@Suite struct SessionKeyOfferCLITests {
  static let team = P256.PrivateKey(deriving: [41], label: "cli team key")
  static let stranger = P256.PrivateKey(deriving: [42], label: "cli stranger")
  static let now: Int64 = 1_767_225_600
  static let yearly = "com.example.premium.yearly"

  static func jws(_ key: P256.PrivateKey, _ claims: [String: JSONOutput?]) -> String {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string("KEY123ABC"), "typ": .string("JWT")])
    var all: [String: JSONOutput] = [
      "iss": .string("issuer-5678"), "iat": .int(now), "bid": .string("com.example.app"),
      "nonce": .string(UUID().uuidString.lowercased()), "productId": .string(yearly),
    ]
    for (name, value) in claims { all[name] = value }
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(JSONOutput.object(all).rendered(pretty: false).utf8))
    return input + "." + JWS.base64URL(key.signature(for: Array(input.utf8)).rawRepresentation)
  }

  static func eligibility(_ key: P256.PrivateKey, transactionID: String) -> String {
    jws(
      key,
      [
        "aud": .string("introductory-offer-eligibility"), "allowIntroductoryOffer": .bool(true),
        "transactionId": .string(transactionID),
      ])
  }

  /// The offer type of the transaction `buy --json` printed (nil: none), the purchase then expired.
  static func offerType(_ cli: CLIHarness, _ args: [String]) throws -> Int64? {
    let result = cli.run(["buy", yearly, "--json"] + args)
    #expect(result.code == 0, "\(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let transaction = object?["transaction"] as? [String: Any]
    #expect(cli.run("expire \(yearly)").code == 0)
    return (transaction?["offerType"] as? NSNumber)?.int64Value
  }

  static func session() throws -> CLIHarness {
    let cli = try CLIHarness()
    try team.pemRepresentation.write(toFile: cli.folder + "/AuthKey.p8", atomically: true, encoding: .utf8)
    let initialized = cli.run(
      "init Premium.storekit --start 2026-01-01T00:00:00Z --api-key AuthKey.p8 --key-id KEY123ABC --issuer issuer-5678")
    #expect(initialized.code == 0, "\(initialized.stderr)")
    return cli
  }

  @Test func anEligibilityJWSSignedWithTheSessionKeyIsHonouredAndAnotherKeyIgnoredOrStrictlyRefused() throws {
    let cli = try Self.session()
    #expect(try Self.offerType(cli, []) == 1)
    let first = "2000000000000001"
    // The intro offer is used: another key's JWS changes nothing, the team key's grants it.
    #expect(
      try Self.offerType(cli, ["--intro-eligibility", Self.eligibility(Self.stranger, transactionID: first)]) == nil)
    let ignored = cli.run([
      "buy", Self.yearly, "--intro-eligibility", Self.eligibility(Self.stranger, transactionID: first),
    ])
    #expect(
      ignored.stderr
        == "note: the --intro-eligibility JWS was ignored (the signature does not verify with key KEY123ABC); normal eligibility applied\n"
    )
    #expect(cli.run("expire \(Self.yearly)").code == 0)
    #expect(try Self.offerType(cli, ["--intro-eligibility", Self.eligibility(Self.team, transactionID: first)]) == 1)
    #expect(cli.run("settings strict-eligibility on").stdout == "strict-eligibility = on\n")
    let strict = cli.run([
      "buy", Self.yearly, "--intro-eligibility", Self.eligibility(Self.stranger, transactionID: first),
    ])
    #expect(strict.code == 1)
    #expect(
      strict.stderr
        == "error: purchase of '\(Self.yearly)' failed: purchase.invalidOfferSignature (the signature does not verify with key KEY123ABC)\n"
    )
  }

  @Test func aPromotionalOfferSignedWithTheSessionKeyIsHonouredAndAnotherKeyRefused() throws {
    let cli = try Self.session()
    #expect(cli.run("buy \(Self.yearly)").code == 0)
    func offer(_ key: P256.PrivateKey) -> [String] {
      let claims: [String: JSONOutput?] = [
        "aud": .string("promotional-offer"), "offerIdentifier": .string("premium.yearly.loyalty"),
      ]
      return [
        "buy", Self.yearly, "--offer", "promotional:premium.yearly.loyalty", "--offer-signature",
        Self.jws(key, claims),
      ]
    }
    let refused = cli.run(offer(Self.stranger))
    #expect(refused.code == 1)
    #expect(refused.stderr.contains("invalidOfferSignature (the signature does not verify with key KEY123ABC)"))
    let honoured = cli.run(offer(Self.team))
    #expect(honoured.code == 0, "\(honoured.stderr)")
    #expect(honoured.stdout.contains("already subscribed") || honoured.stdout.contains("purchased"))
  }

  @Test func apiChecksBearerTokensWithTheSessionKeyWhenGivenNoAPIKey() throws {
    let cli = try Self.session()
    #expect(cli.run("buy \(Self.yearly)").code == 0)
    func token(_ key: P256.PrivateKey) -> String {
      "Bearer "
        + Self.jws(
          key,
          [
            "aud": .string("appstoreconnect-v1"), "exp": .int(Self.now + 300), "nonce": nil, "productId": nil,
          ])
    }
    let path = "/inApps/v1/transactions/2000000000000001"
    #expect(cli.run(["api", "GET", path, "--authorization", token(Self.team)]).code == 0)
    let forged = cli.run(["api", "GET", path, "--authorization", token(Self.stranger)])
    #expect(forged.code == 1)
    #expect(forged.stdout.hasPrefix("HTTP/1.1 401"))
  }
}
