import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// `introductoryOfferEligibility(compactJWS:)` and the team's key given to the session (rules
/// introductory-offer-eligibility-jws-sets-eligibility and
/// a-key-given-to-the-session-verifies-offers).
@Suite struct IntroductoryOfferEligibilityTests {
  static let team = OfferFixtures.team
  static let stranger = P256.PrivateKey(deriving: [32], label: "stranger")
  static let iat = Int64(Fixtures.start.timeIntervalSince1970)

  /// A session holding the team's key whose customer has used the intro offer of the group
  /// (first transaction 2000000000000001, now expired).
  static func usedIntro() throws -> Store { try OfferFixtures.usedIntro() }

  static func jws(
    _ key: P256.PrivateKey = team, kid: String = "KEY123ABC", claims extra: [String: JSONOutput?] = [:]
  ) -> String {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string(kid), "typ": .string("JWT")])
    var claims: [String: JSONOutput] = [
      "iss": .string("issuer-5678"), "iat": .int(iat), "aud": .string("introductory-offer-eligibility"),
      "bid": .string("com.example.app"), "nonce": .string(UUID().uuidString.lowercased()),
      "productId": .string("yearly"), "allowIntroductoryOffer": .bool(true),
      "transactionId": .string("2000000000000001"),
    ]
    for (name, value) in extra { claims[name] = value }
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(JSONOutput.object(claims).rendered(pretty: false).utf8))
    return input + "." + JWS.base64URL(key.signature(for: Array(input.utf8)).rawRepresentation)
  }

  /// Buys `yearly` with the eligibility JWS; the offer type of the new transaction, or the failure.
  static func buy(_ store: inout Store, _ jws: String) throws -> (offer: OfferType?, failure: PurchaseFailure?) {
    var options = PurchaseOptions()
    options.introductoryOfferEligibility = jws
    let result = try store.purchase("yearly", options: options).value
    switch result {
    case .success(let t, _):
      try store.expireSubscription(productID: "yearly")
      return (t.offer?.type, nil)
    case .failed(let failure): return (nil, failure)
    default:
      Issue.record("unexpected \(result)")
      return (nil, nil)
    }
  }

  @Test func aVerifiedEligibilityJWSGrantsTheIntroOfferANormalCheckWouldWithhold() throws {
    var store = try Self.usedIntro()
    #expect(try Self.buy(&store, Self.jws()).offer == .introductory)
    #expect(store.state.usedOfferNonces?.count == 1)
    // The app transaction id names the customer too.
    let appTransaction = store.state.customers[0].appTransactionID
    #expect(
      try Self.buy(&store, Self.jws(claims: ["transactionId": .string(appTransaction)])).offer == .introductory)
  }

  @Test func aVerifiedEligibilityJWSWithAllowFalseWithholdsTheIntroOffer() throws {
    var store = Store(configuration: Fixtures.configuration, start: Fixtures.start, bundleID: "com.example.app")
    store.useTeamKey(OfferKey(keyID: "KEY123ABC", publicKey: Self.team.publicKey, issuer: "issuer-5678"))
    let app = store.state.customers[0].appTransactionID
    #expect(store.isEligibleForIntroOffer(group: Fixtures.group))
    let jws = Self.jws(claims: ["allowIntroductoryOffer": .bool(false), "transactionId": .string(app)])
    #expect(try Self.buy(&store, jws) == (nil, nil))
    // The explicit intro offer is then refused as ineligible.
    var options = PurchaseOptions(offer: .introductory)
    options.introductoryOfferEligibility = Self.jws(
      claims: ["allowIntroductoryOffer": .bool(false), "transactionId": .string(app)])
    #expect(try store.purchase("yearly", options: options).value == .failed(.ineligibleForOffer))
  }

  @Test func anEligibilityJWSThatDoesNotVerifyIsIgnoredAndNormalEligibilityApplies() throws {
    let cases: [(String, String)] = [
      ("another key", Self.jws(Self.stranger)),
      ("an unknown kid", Self.jws(kid: "OTHERKEY1")),
      ("another aud", Self.jws(claims: ["aud": .string("promotional-offer")])),
      ("another issuer", Self.jws(claims: ["iss": .string("issuer-0000")])),
      ("another bundle", Self.jws(claims: ["bid": .string("com.example.other")])),
      ("another product", Self.jws(claims: ["productId": .string("monthly")])),
      ("an exp claim", Self.jws(claims: ["exp": .int(Self.iat + 60)])),
      ("an old iat", Self.jws(claims: ["iat": .int(Self.iat - 86_401)])),
      ("no transactionId", Self.jws(claims: ["transactionId": nil])),
      ("another customer's transactionId", Self.jws(claims: ["transactionId": .string("2000000000000099")])),
      ("no allowIntroductoryOffer", Self.jws(claims: ["allowIntroductoryOffer": nil])),
      ("a string allowIntroductoryOffer", Self.jws(claims: ["allowIntroductoryOffer": .string("true")])),
    ]
    for (name, jws) in cases {
      var store = try Self.usedIntro()
      let bought = try Self.buy(&store, jws)
      #expect(bought == (nil, nil), "\(name)")
      #expect(store.state.usedOfferNonces == nil, "\(name) spent its nonce")
    }
  }

  @Test func anEligibilityJWSNonceWorksOnceInEitherCase() throws {
    var store = try Self.usedIntro()
    let nonce = UUID().uuidString
    #expect(try Self.buy(&store, Self.jws(claims: ["nonce": .string(nonce)])).offer == .introductory)
    #expect(try Self.buy(&store, Self.jws(claims: ["nonce": .string(nonce.lowercased())])) == (nil, nil))
  }

  @Test func underStrictEligibilityAnEligibilityJWSThatDoesNotVerifyFailsThePurchase() throws {
    var store = try Self.usedIntro()
    store.strictIntroductoryOfferEligibility = true
    #expect(
      try Self.buy(&store, Self.jws(Self.stranger)).failure
        == .invalidOfferSignature("the signature does not verify with key KEY123ABC"))
    #expect(
      try Self.buy(&store, Self.jws(claims: ["aud": .string("promotional-offer")])).failure
        == .invalidOfferSignature("aud is not introductory-offer-eligibility"))
    #expect(
      try Self.buy(&store, Self.jws(claims: ["transactionId": nil])).failure
        == .invalidOfferSignature("no transactionId claim"))
    #expect(store.state.customers[0].transactions.count == 1)
    #expect(try Self.buy(&store, Self.jws()).offer == .introductory)
  }

  @Test func aKeyGivenToTheSessionVerifiesOffersAndAnotherKeyIsRefused() throws {
    var store = try Self.usedIntro()
    let now = Fixtures.start.epochMilliseconds
    func promotional(_ signature: OfferSignature) throws -> PurchaseResult {
      var options = PurchaseOptions(offer: .promotional("promo.half"))
      options.offerSignature = signature
      let result = try store.purchase("monthly", options: options).value
      if case .success = result { try store.expireSubscription(productID: "monthly") }
      return result
    }
    func separated(_ key: P256.PrivateKey) -> OfferSignature {
      let nonce = UUID()
      let fields = [
        "com.example.app", "KEY123ABC", "monthly", "promo.half", "", nonce.uuidString.lowercased(), String(now),
      ]
      let signature = key.signature(for: Array(fields.joined(separator: "\u{2063}").utf8))
      return .separated(
        keyID: "KEY123ABC", nonce: nonce, timestamp: now,
        signature: Data(signature.derRepresentation).base64EncodedString())
    }
    func compact(_ key: P256.PrivateKey, issuer: String = "issuer-5678") -> OfferSignature {
      .compactJWS(
        Self.jws(
          key,
          claims: [
            "aud": .string("promotional-offer"), "productId": .string("monthly"),
            "offerIdentifier": .string("promo.half"), "iss": .string(issuer), "allowIntroductoryOffer": nil,
          ]))
    }
    #expect(
      try promotional(separated(Self.stranger))
        == .failed(.invalidOfferSignature("the signature does not verify with key KEY123ABC")))
    #expect(
      try promotional(compact(Self.stranger))
        == .failed(.invalidOfferSignature("the signature does not verify with key KEY123ABC")))
    #expect(
      try promotional(compact(Self.team, issuer: "issuer-0000"))
        == .failed(.invalidOfferSignature("iss is not issuer-5678")))
    guard case .success(let t, _) = try promotional(separated(Self.team)) else {
      Issue.record("a StoreKit 1 signature by the session's key was refused")
      return
    }
    #expect(t.offer?.id == "promo.half")
    guard case .success = try promotional(compact(Self.team)) else {
      Issue.record("a JWS by the session's key was refused")
      return
    }
  }
}
