import Foundation
import StoreSim
import StoreSimCrypto

// Offers signed by the developer: the team's key and what an eligibility JWS that does not
// verify does.
extension SKTestSession {
  /// Not in StoreKitTest: gives the session the team's In-App Purchase key (the `.p8` file's
  /// PEM text), with its key id and issuer id. Offers signed with it (`kid` or `keyIdentifier`
  /// `keyID`, and `iss` `issuerID` in a JWS) are honoured as with the configuration's
  /// `subscriptionOffersKeyPair`. Only the public half is kept.
  ///
  /// - Throws: `SKTestError(.invalidAction)` when the text is not a P-256 private key or an id
  ///   is empty.
  public func setInAppPurchaseKey(_ privateKeyPEM: String, keyID: String, issuerID: String) throws {
    guard !keyID.isEmpty, !issuerID.isEmpty, let key = try? P256.PrivateKey(pemOrBase64: privateKeyPEM) else {
      throw SKTestError(.invalidAction, "not a P-256 private key with a key id and an issuer id")
    }
    let teamKey = OfferKey(keyID: keyID, publicKey: key.publicKey, issuer: issuerID)
    try control { (store: inout Store) throws(StoreError) in
      store.useTeamKey(teamKey)
      return Outcome(events: [])
    }
  }

  /// Not in StoreKitTest: an introductory-offer eligibility JWS
  /// (`introductoryOfferEligibility(compactJWS:)`) that does not verify fails the purchase with
  /// `Product.PurchaseError.invalidOfferSignature` (true), or is ignored and the customer's
  /// normal eligibility applies (false, the default; what the App Store does is not documented).
  public var strictIntroductoryOfferEligibility: Bool {
    get { core.read { $0.strictIntroductoryOfferEligibility } }
    set {
      try? control { (store: inout Store) throws(StoreError) in
        store.strictIntroductoryOfferEligibility = newValue
        return Outcome(events: [])
      }
    }
  }
}
