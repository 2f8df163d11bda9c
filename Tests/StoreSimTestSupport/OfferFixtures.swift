import Foundation
import StoreSim
import StoreSimCrypto
import Testing

/// The keys and stores of the signed-offer and eligibility rules, for the core's rule tests and
/// the session store's round trips.
package enum OfferFixtures {
  /// The developer's key that signs promotional offers (the configuration's offers key).
  package static let developer = P256.PrivateKey(deriving: [11], label: "offers")
  /// The team's In-App Purchase key given to the session.
  package static let team = P256.PrivateKey(deriving: [31], label: "team key")

  /// The catalogue with the developer's offers key, and a subscriber of the group (so that the
  /// promotional offer is one the customer may redeem).
  package static func offerStore() -> Store {
    var configuration = Fixtures.configuration
    configuration.subscriptionOffersKey = OfferKey(keyID: "5509FCF1", publicKey: developer.publicKey)
    var store = Store(configuration: configuration, start: Fixtures.start, bundleID: "com.example.app")
    _ = try? store.buyProduct("basic")
    return store
  }

  /// A promotional offer's signature in the separated form (StoreKit 1's and 2's parameters).
  package static func separated(
    _ key: P256.PrivateKey = developer, keyID: String = "5509FCF1", nonce: UUID = UUID(), timestamp: Int64,
    offer: String = "promo.half"
  ) -> OfferSignature {
    let fields = [
      "com.example.app", keyID, "monthly", offer, "", nonce.uuidString.lowercased(), String(timestamp),
    ]
    let signature = key.signature(for: Array(fields.joined(separator: "\u{2063}").utf8))
    return .separated(
      keyID: keyID, nonce: nonce, timestamp: timestamp,
      signature: Data(signature.derRepresentation).base64EncodedString())
  }

  /// Buys `monthly` with the promotional offer `promo.half` and `signature`.
  package static func buy(_ store: inout Store, _ signature: OfferSignature) throws -> PurchaseResult {
    var options = PurchaseOptions(offer: .promotional("promo.half"))
    options.offerSignature = signature
    return try store.purchase("monthly", options: options).value
  }

  /// A session holding the team's key whose customer has used the intro offer of the group
  /// (first transaction 2000000000000001, now expired).
  package static func usedIntro() throws -> Store {
    var store = Store(configuration: Fixtures.configuration, start: Fixtures.start, bundleID: "com.example.app")
    store.useTeamKey(OfferKey(keyID: "KEY123ABC", publicKey: team.publicKey, issuer: "issuer-5678"))
    let first = try store.buyProduct("monthly")
    #expect(first.offer?.type == .introductory)
    try store.expireSubscription(productID: "monthly")
    #expect(!store.isEligibleForIntroOffer(group: Fixtures.group))
    return store
  }
}
