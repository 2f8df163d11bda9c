import Foundation
import StoreSimCrypto
import StoreSimKit
import Testing

@testable import StoreSim

/// Offers signed with the `.storekit` file's `subscriptionOffersKeyPair` are honoured; signed
/// with another key they fail with StoreKit's own error (rule
/// offer-signatures-are-checked-as-the-app-store-checks-them).
@Suite struct SignedOfferTests {
  static let developer = P256.PrivateKey(deriving: [21], label: "kit offers")
  static let stranger = P256.PrivateKey(deriving: [22], label: "kit stranger")

  /// Premium.storekit with the developer's key pair added.
  static func configuration() throws -> URL {
    var document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: Kit.premium)) as? [String: Any])
    document["subscriptionOffersKeyPair"] = [
      "id": "5509FCF1", "privateKey": Data(developer.pkcs8DERRepresentation).base64EncodedString(),
    ]
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("signed-offers-\(UUID()).storekit")
    try JSONSerialization.data(withJSONObject: document).write(to: url)
    return url
  }

  static func jws(
    _ key: P256.PrivateKey, now: Date, kid: String = "5509FCF1", issuer: String = "issuer",
    claims extra: [String: JSONOutput] = ["offerIdentifier": .string("premium.yearly.loyalty")],
    aud: String = "promotional-offer"
  ) -> String {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string(kid), "typ": .string("JWT")])
    var fields: [String: JSONOutput] = [
      "iss": .string(issuer), "iat": .int(Int64(now.timeIntervalSince1970)), "aud": .string(aud),
      "bid": .string("com.example.app"), "nonce": .string(UUID().uuidString),
      "productId": .string("com.example.premium.yearly"),
    ]
    fields.merge(extra) { $1 }
    let claims = JSONOutput.object(fields)
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(claims.rendered(pretty: false).utf8))
    return input + "." + JWS.base64URL(key.signature(for: Array(input.utf8)).rawRepresentation)
  }

  @Test func anOfferSignedWithTheConfigurationsKeyIsHonouredAndAnotherKeyRefused() async throws {
    let url = try Self.configuration()
    defer { try? FileManager.default.removeItem(at: url) }
    let session = try SKTestSession(contentsOf: url, startDate: Kit.start)
    try await session.run {
      let yearly = try #require(try await Product.products(for: ["com.example.premium.yearly"]).first)
      _ = try await yearly.purchase()
      await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
        try await yearly.purchase(options: [
          .promotionalOffer("premium.yearly.loyalty", compactJWS: Self.jws(Self.stranger, now: Kit.start))
        ])
      }
      let result = try await yearly.purchase(options: [
        .promotionalOffer("premium.yearly.loyalty", compactJWS: Self.jws(Self.developer, now: Kit.start))
      ])
      guard case .success = result else {
        Issue.record("the signed offer was not honoured: \(result)")
        return
      }
      #expect(session.notificationNames().last == "OFFER_REDEEMED")
    }
  }

  /// A JWS by the team's key given to the session (`setInAppPurchaseKey`).
  static func teamJWS(_ key: P256.PrivateKey, claims: [String: JSONOutput], aud: String) -> String {
    jws(key, now: Kit.start, kid: "KEY123ABC", issuer: "issuer-5678", claims: claims, aud: aud)
  }

  @Test func anOfferSignedWithTheSessionsKeyIsHonouredAndAnotherKeyRefused() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try session.setInAppPurchaseKey(Self.developer.pemRepresentation, keyID: "KEY123ABC", issuerID: "issuer-5678")
    #expect(throws: SKTestError.self) { try session.setInAppPurchaseKey("not a key", keyID: "K", issuerID: "I") }
    try await session.run {
      let yearly = try #require(try await Product.products(for: ["com.example.premium.yearly"]).first)
      _ = try await yearly.purchase()
      let offer: [String: JSONOutput] = ["offerIdentifier": .string("premium.yearly.loyalty")]
      await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
        try await yearly.purchase(options: [
          .promotionalOffer(
            "premium.yearly.loyalty", compactJWS: Self.teamJWS(Self.stranger, claims: offer, aud: "promotional-offer"))
        ])
      }
      let result = try await yearly.purchase(options: [
        .promotionalOffer(
          "premium.yearly.loyalty", compactJWS: Self.teamJWS(Self.developer, claims: offer, aud: "promotional-offer"))
      ])
      guard case .success = result else {
        Issue.record("the offer signed with the session's key was not honoured: \(result)")
        return
      }
    }
  }

  @Test func anEligibilityJWSSignedWithTheSessionsKeyIsHonouredAndAnotherKeyIgnoredOrStrictlyRefused() async throws {
    let session = try SKTestSession(contentsOf: Kit.premium, startDate: Kit.start)
    try session.setInAppPurchaseKey(Self.developer.pemRepresentation, keyID: "KEY123ABC", issuerID: "issuer-5678")
    try await session.run {
      let yearly = try #require(try await Product.products(for: ["com.example.premium.yearly"]).first)
      guard case .success(.verified(let first)) = try await yearly.purchase() else {
        Issue.record("the first purchase did not succeed")
        return
      }
      #expect(first.offer?.type == .introductory)
      try session.expireSubscription(productIdentifier: "com.example.premium.yearly")
      func eligibility(_ key: P256.PrivateKey) -> StoreSimKit.Product.PurchaseOption {
        .introductoryOfferEligibility(
          compactJWS: Self.teamJWS(
            key,
            claims: ["allowIntroductoryOffer": .bool(true), "transactionId": .string(String(first.id))],
            aud: "introductory-offer-eligibility"))
      }
      func offerType(_ key: P256.PrivateKey) async throws -> StoreSimKit.Transaction.OfferType? {
        guard case .success(.verified(let t)) = try await yearly.purchase(options: [eligibility(key)]) else {
          Issue.record("the purchase did not succeed")
          return nil
        }
        try session.expireSubscription(productIdentifier: "com.example.premium.yearly")
        return t.offer?.type
      }
      // The intro offer is used: another key's JWS is ignored, the session key's grants it again.
      #expect(try await offerType(Self.stranger) == nil)
      #expect(try await offerType(Self.developer) == .introductory)
      #expect(!session.strictIntroductoryOfferEligibility)
      session.strictIntroductoryOfferEligibility = true
      await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
        try await yearly.purchase(options: [eligibility(Self.stranger)])
      }
    }
  }
}
