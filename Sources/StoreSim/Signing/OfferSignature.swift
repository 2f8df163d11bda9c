import Foundation
import StoreSimCrypto

/// A key the developer signs offers with: the `.storekit` file's `subscriptionOffersKeyPair`
/// (its 8-hex-digit `id` and the public half of its PKCS #8 key), or the team's In-App Purchase
/// key given to the session (`init --api-key`: its key id and issuer id too).
public struct OfferKey: Sendable, Hashable, Codable {
  /// `keyIdentifier` (StoreKit 1) or `kid` (JWS).
  public var keyID: String
  /// The uncompressed public point, `04 || X || Y`, in Base64 (session files keep this only).
  public var publicKey: String
  /// The issuer id a JWS signed with this key must carry as `iss` (the team's key); nil for the
  /// `.storekit` file's key, whose `iss` Xcode does not say it checks.
  public var issuer: String?

  package init(keyID: String, publicKey: P256.PublicKey, issuer: String? = nil) {
    self.keyID = keyID
    self.publicKey = Data(publicKey.x963Representation).base64EncodedString()
    self.issuer = issuer
  }

  var key: P256.PublicKey? {
    Data(base64Encoded: publicKey).flatMap { P256.PublicKey(x963Representation: Array($0)) }
  }
}

/// The developer's signature on a promotional offer, as the app hands it to StoreKit.
public enum OfferSignature: Sendable, Hashable, Codable {
  /// StoreKit 1's `SKPaymentDiscount` (and StoreKit 2's `promotionalOffer(offerID:keyID:nonce:
  /// signature:timestamp:)`): ECDSA over the U+2063-joined fields, Base64 DER.
  case separated(keyID: String, nonce: UUID, timestamp: Int64, signature: String)
  /// StoreKit 2's `promotionalOffer(_:compactJWS:)`: a compact JWS, `aud` promotional-offer.
  case compactJWS(String)

  /// The 24 hours a signature stays valid after its timestamp or `iat`
  /// (rule offer-signatures-are-checked-as-the-app-store-checks-them).
  static let window: Int64 = 86_400_000

  /// Why the signature does not let this purchase redeem `offerID`, or nil when it does; and
  /// the nonce it spends (lower case).
  func refusal(
    offerID: String, productID: ProductID, bundleID: String, appAccountToken: UUID?, keys: [OfferKey], now: Date,
    usedNonces: [String]
  ) -> (reason: String?, nonce: String?) {
    let nowMS = now.epochMilliseconds
    switch self {
    case .separated(let keyID, let nonce, let timestamp, let signature):
      let lowerNonce = nonce.uuidString.lowercased()
      guard let key = keys.first(where: { $0.keyID == keyID })?.key else {
        return ("no offer key has the id \(keyID)", nil)
      }
      guard !usedNonces.contains(lowerNonce) else { return ("the nonce was used before", nil) }
      guard timestamp <= nowMS + 60_000, nowMS - timestamp <= Self.window else {
        return ("the timestamp is not within 24 hours of now", nil)
      }
      let fields = [
        bundleID, keyID, productID, offerID, appAccountToken?.uuidString.lowercased() ?? "", lowerNonce,
        String(timestamp),
      ]
      guard let der = Data(base64Encoded: signature), let value = P256.Signature(derRepresentation: Array(der)),
        key.isValidSignature(value, for: Array(fields.joined(separator: "\u{2063}").utf8))
      else { return ("the signature does not verify with key \(keyID)", nil) }
      return (nil, lowerNonce)
    case .compactJWS(let jws):
      let claims = Self.verifiedClaims(jws, audience: "promotional-offer", bundleID: bundleID, keys: keys, now: now)
      guard case .success(let payload) = claims else {
        if case .failure(let refusal) = claims { return (refusal.text, nil) }
        return ("unreadable", nil)
      }
      guard payload["productId"]?.value == .string(productID) else {
        return ("the productId claim is not \(productID)", nil)
      }
      guard payload["offerIdentifier"]?.value == .string(offerID) else {
        return ("the offerIdentifier claim is not \(offerID)", nil)
      }
      guard case .string(let nonce) = payload["nonce"]?.value, !nonce.isEmpty else { return ("no nonce claim", nil) }
      guard !usedNonces.contains(nonce.lowercased()) else { return ("the nonce was used before", nil) }
      return (nil, nonce.lowercased())
    }
  }

  struct Refusal: Error {
    let text: String
  }

  /// The claims of a developer-signed JWS (promotional offer or introductory-offer eligibility)
  /// once its header, key, signature, `aud`, `bid`, `iat` window and absent `exp` are checked.
  static func verifiedClaims(
    _ jws: String, audience: String, bundleID: String, keys: [OfferKey], now: Date
  )
    -> Result<JSONNode, Refusal>
  {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerBytes = JWS.decodeBase64URL(parts[0]),
      let header = try? JSONParser.parse(headerBytes), let payloadBytes = JWS.decodeBase64URL(parts[1]),
      let payload = try? JSONParser.parse(payloadBytes), let raw = JWS.decodeBase64URL(parts[2])
    else { return .failure(Refusal(text: "not a compact JWS")) }
    guard header["alg"]?.value == .string("ES256") else { return .failure(Refusal(text: "alg is not ES256")) }
    guard case .string(let kid) = header["kid"]?.value, let offerKey = keys.first(where: { $0.keyID == kid }),
      let key = offerKey.key
    else {
      return .failure(Refusal(text: "no offer key has the JWS's kid"))
    }
    guard let signature = P256.Signature(rawRepresentation: raw),
      key.isValidSignature(signature, for: Array("\(parts[0]).\(parts[1])".utf8))
    else { return .failure(Refusal(text: "the signature does not verify with key \(kid)")) }
    if let issuer = offerKey.issuer, payload["iss"]?.value != .string(issuer) {
      return .failure(Refusal(text: "iss is not \(issuer)"))
    }
    guard payload["aud"]?.value == .string(audience) else { return .failure(Refusal(text: "aud is not \(audience)")) }
    guard payload["bid"]?.value == .string(bundleID) else { return .failure(Refusal(text: "bid is not \(bundleID)")) }
    guard payload["exp"] == nil else { return .failure(Refusal(text: "the JWS has an exp claim")) }
    guard case .number(let iatText) = payload["iat"]?.value, let iat = Double(iatText) else {
      return .failure(Refusal(text: "no iat claim"))
    }
    let age = now.timeIntervalSince1970 - iat
    guard age >= -60, age <= 86_400 else { return .failure(Refusal(text: "iat is not within 24 hours of now")) }
    return .success(payload)
  }
}

extension Store {
  /// The keys offers may be signed with: the configuration's `subscriptionOffersKeyPair` and
  /// the team's key given to the session (rule a-key-given-to-the-session-verifies-offers).
  var offerKeys: [OfferKey] { [state.configuration.subscriptionOffersKey, state.teamKey].compactMap { $0 } }

  /// Checks a signed promotional offer and spends its nonce (each nonce works once, even when
  /// the purchase then fails); the failure the purchase ends with, if any.
  mutating func checkOfferSignature(_ options: PurchaseOptions, productID: ProductID) -> PurchaseFailure? {
    guard let signature = options.offerSignature else { return nil }
    guard case .promotional(let offerID) = options.offer else {
      return .invalidOfferSignature("not a promotional offer")
    }
    let (reason, nonce) = signature.refusal(
      offerID: offerID, productID: productID, bundleID: state.bundleID, appAccountToken: options.appAccountToken,
      keys: offerKeys, now: state.now, usedNonces: state.usedOfferNonces ?? [])
    if let reason { return .invalidOfferSignature(reason) }
    if let nonce { state.usedOfferNonces = (state.usedOfferNonces ?? []) + [nonce] }
    return nil
  }
}
