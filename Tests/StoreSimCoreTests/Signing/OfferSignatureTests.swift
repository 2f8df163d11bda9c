import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Offers signed by the developer, checked as the App Store checks them
/// (rule offer-signatures-are-checked-as-the-app-store-checks-them).
@Suite struct OfferSignatureTests {
  static let developer = OfferFixtures.developer
  static let stranger = P256.PrivateKey(deriving: [12], label: "stranger")

  static func store() -> Store { OfferFixtures.offerStore() }

  static func separated(
    _ key: P256.PrivateKey = developer, keyID: String = "5509FCF1", nonce: UUID = UUID(), timestamp: Int64,
    offer: String = "promo.half"
  ) -> OfferSignature {
    OfferFixtures.separated(key, keyID: keyID, nonce: nonce, timestamp: timestamp, offer: offer)
  }

  static func jws(
    _ key: P256.PrivateKey = developer, kid: String = "5509FCF1", aud: String = "promotional-offer",
    iat: Int64, nonce: String = UUID().uuidString, extra: [String: JSONOutput] = [:]
  ) -> OfferSignature {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string(kid), "typ": .string("JWT")])
    var claims: [String: JSONOutput] = [
      "iss": .string("issuer"), "iat": .int(iat), "aud": .string(aud), "bid": .string("com.example.app"),
      "nonce": .string(nonce), "productId": .string("monthly"), "offerIdentifier": .string("promo.half"),
    ]
    claims.merge(extra) { $1 }
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(JSONOutput.object(claims).rendered(pretty: false).utf8))
    return .compactJWS(input + "." + JWS.base64URL(key.signature(for: Array(input.utf8)).rawRepresentation))
  }

  static func buy(_ store: inout Store, _ signature: OfferSignature) throws -> PurchaseResult {
    try OfferFixtures.buy(&store, signature)
  }

  static func refusal(_ result: PurchaseResult) -> String? {
    if case .failed(.invalidOfferSignature(let reason)) = result { return reason }
    return nil
  }

  @Test func offerSignaturesAreCheckedAsTheAppStoreChecksThem() throws {
    let now = Fixtures.start.epochMilliseconds
    var store = Self.store()
    let nonce = UUID()
    let good = Self.separated(nonce: nonce, timestamp: now - 60_000)
    let first = try Self.buy(&store, good)
    guard case .success = first else {
      Issue.record("a signature by the configuration's key was refused: \(first)")
      return
    }
    var again = Self.store()
    _ = try Self.buy(&again, good)
    #expect(Self.refusal(try Self.buy(&again, good)) == "the nonce was used before")
    var other = Self.store()
    #expect(
      Self.refusal(try Self.buy(&other, Self.separated(Self.stranger, timestamp: now)))
        == "the signature does not verify with key 5509FCF1")
    #expect(
      Self.refusal(try Self.buy(&other, Self.separated(keyID: "00000000", timestamp: now)))
        == "no offer key has the id 00000000")
    #expect(
      Self.refusal(try Self.buy(&other, Self.separated(timestamp: now - 86_400_001)))
        == "the timestamp is not within 24 hours of now")
    #expect(other.state.usedOfferNonces == nil)
  }

  @Test func compactJWSOffersNeedTheKeyAudienceNonceAndNoExp() throws {
    let iat = Int64(Fixtures.start.timeIntervalSince1970)
    var store = Self.store()
    let first = try Self.buy(&store, Self.jws(iat: iat - 10))
    guard case .success = first else {
      Issue.record("a JWS by the configuration's key was refused: \(first)")
      return
    }
    var other = Self.store()
    #expect(
      Self.refusal(try Self.buy(&other, Self.jws(Self.stranger, iat: iat)))
        == "the signature does not verify with key 5509FCF1")
    #expect(Self.refusal(try Self.buy(&other, Self.jws(kid: "OTHER", iat: iat))) == "no offer key has the JWS's kid")
    #expect(
      Self.refusal(try Self.buy(&other, Self.jws(aud: "introductory-offer-eligibility", iat: iat)))
        == "aud is not promotional-offer")
    #expect(
      Self.refusal(try Self.buy(&other, Self.jws(iat: iat, extra: ["exp": .int(iat + 60)])))
        == "the JWS has an exp claim")
    #expect(
      Self.refusal(try Self.buy(&other, Self.jws(iat: iat - 86_401))) == "iat is not within 24 hours of now")
    #expect(
      Self.refusal(try Self.buy(&other, Self.jws(iat: iat, extra: ["offerIdentifier": .string("other")])))
        == "the offerIdentifier claim is not promo.half")
    let nonce = UUID().uuidString
    _ = try Self.buy(&other, Self.jws(iat: iat, nonce: nonce))
    #expect(
      Self.refusal(try Self.buy(&other, Self.jws(iat: iat, nonce: nonce.lowercased()))) == "the nonce was used before")
  }
}
