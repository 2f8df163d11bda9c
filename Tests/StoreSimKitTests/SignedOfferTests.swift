import Foundation
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

  static func jws(_ key: P256.PrivateKey, now: Date) -> String {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string("5509FCF1"), "typ": .string("JWT")])
    let claims = JSONOutput.object([
      "iss": .string("issuer"), "iat": .int(Int64(now.timeIntervalSince1970)), "aud": .string("promotional-offer"),
      "bid": .string("com.example.app"), "nonce": .string(UUID().uuidString),
      "productId": .string("com.example.premium.yearly"), "offerIdentifier": .string("premium.yearly.loyalty"),
    ])
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
}
