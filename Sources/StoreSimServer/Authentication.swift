import Foundation
import StoreSim
import StoreSimCrypto

/// The bearer token check: shape and claims as Apple requires and, when the team's key is given
/// (`serve --api-key AuthKey.p8 --key-id KID --issuer ISS`), its ES256 signature, `kid` and `iss`
/// (rule bearer-token-signed-with-the-teams-key). Without a key the signature is not checked.
package enum Authentication {
  /// The team's In-App Purchase key: the one a token must be signed with, its id and the issuer.
  package struct Key: Sendable {
    package var publicKey: P256.PublicKey
    package var keyID: String
    package var issuer: String

    package init(publicKey: P256.PublicKey, keyID: String, issuer: String) {
      self.publicKey = publicKey
      self.keyID = keyID
      self.issuer = issuer
    }
  }

  /// A bearer token whose shape and claims were checked, but not yet against the session.
  package struct Token: Sendable {
    /// The `bid` claim.
    package var bundleID: String
    /// The `exp` claim (seconds since 1970).
    package var expiry: Double

    /// Why the token is refused for a session of `bundleID` (nil: it is accepted).
    package func refusal(for sessionBundleID: String) -> String? {
      bundleID == sessionBundleID
        ? nil : "the token's bid \(bundleID) is not the session's bundle id \(sessionBundleID)"
    }
  }

  /// Why a header is refused.
  package struct Refusal: Error {
    package var text: String
  }

  /// Reads and checks a bearer token without the session: its shape and its claims, except
  /// that `bid` names the session's app (see `Token.refusal(for:)`).
  package static func token(_ header: String?, now: Date, key: Key? = nil) -> Result<Token, Refusal> {
    func refuse(_ text: String) -> Result<Token, Refusal> { .failure(Refusal(text: text)) }
    guard let header, !header.isEmpty else { return refuse("missing Authorization header") }
    guard header.utf8.count > 7,
      header.utf8.prefix(7).map({ (65...90).contains($0) ? $0 + 32 : $0 }) == Array("bearer ".utf8)
    else {
      return refuse("the Authorization header is not a Bearer token")
    }
    let token = header.dropFirst(7).drop { $0 == " " }
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[2].isEmpty else { return refuse("the token is not a compact JWS") }
    guard let headerBytes = base64URL(parts[0]), let h = try? JSONParser.parse(headerBytes) else {
      return refuse("the token header is not base64url JSON")
    }
    guard let payloadBytes = base64URL(parts[1]), let p = try? JSONParser.parse(payloadBytes) else {
      return refuse("the token payload is not base64url JSON")
    }
    guard case .string("ES256") = h["alg"]?.value else { return refuse("the token's alg is not ES256") }
    guard case .string(let kid) = h["kid"]?.value, !kid.isEmpty else { return refuse("the token header has no kid") }
    if let typ = h["typ"], typ.value != .string("JWT") { return refuse("the token's typ is not JWT") }
    guard case .string(let iss) = p["iss"]?.value, !iss.isEmpty else { return refuse("the token has no iss") }
    if let key {
      guard kid == key.keyID else { return refuse("the token's kid is not the key id storesim was given") }
      guard iss == key.issuer else { return refuse("the token's iss is not the issuer storesim was given") }
      guard let raw = base64URL(parts[2]), let signature = P256.Signature(rawRepresentation: raw),
        key.publicKey.isValidSignature(signature, for: token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
      else { return refuse("the token's signature does not verify with the team's key") }
    }
    guard case .string("appstoreconnect-v1") = p["aud"]?.value else {
      return refuse("the token's aud is not appstoreconnect-v1")
    }
    guard case .string(let bid) = p["bid"]?.value else { return refuse("the token has no bid") }
    guard let exp = seconds(p["exp"]) else { return refuse("the token has no exp") }
    let nowSeconds = now.timeIntervalSince1970
    guard exp > nowSeconds else { return refuse("the token expired") }
    if let iat = seconds(p["iat"]) {
      guard exp - iat <= 3600 else { return refuse("the token's exp is more than an hour after its iat") }
      guard iat <= nowSeconds + 60 else { return refuse("the token's iat is in the future") }
    } else {
      guard exp - nowSeconds <= 3600 else { return refuse("the token's exp is more than an hour away") }
    }
    return .success(Token(bundleID: bid, expiry: exp))
  }

  /// The `exp` claim of a bearer token (already checked by `check`).
  package static func expiry(_ header: String) -> Double? {
    let parts = header.dropFirst(7).drop { $0 == " " }.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = base64URL(parts[1]), let p = try? JSONParser.parse(bytes) else { return nil }
    return seconds(p["exp"])
  }

  package static func seconds(_ node: JSONNode?) -> Double? {
    guard let node, case .number(let n) = node.value else { return nil }
    return Double(n)
  }

  package static func base64URL(_ s: Substring) -> [UInt8]? {
    JWS.decodeBase64URL(s)
  }
}
