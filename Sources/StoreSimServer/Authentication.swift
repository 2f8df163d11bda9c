import Foundation
import StoreSim

/// The bearer token check: shape and claims as Apple requires. The ES256 signature cannot be
/// checked without the team's public key, which the App Store holds and storesim does not.
package enum Authentication {
  /// nil when the header carries an acceptable token, else the reason it does not.
  package static func check(_ header: String?, bundleID: String, now: Date) -> String? {
    guard let header, !header.isEmpty else { return "missing Authorization header" }
    guard header.utf8.count > 7,
      header.utf8.prefix(7).map({ (65...90).contains($0) ? $0 + 32 : $0 }) == Array("bearer ".utf8)
    else {
      return "the Authorization header is not a Bearer token"
    }
    let token = header.dropFirst(7).drop { $0 == " " }
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[2].isEmpty else { return "the token is not a compact JWS" }
    guard let headerBytes = base64URL(parts[0]), let h = try? JSONParser.parse(headerBytes) else {
      return "the token header is not base64url JSON"
    }
    guard let payloadBytes = base64URL(parts[1]), let p = try? JSONParser.parse(payloadBytes) else {
      return "the token payload is not base64url JSON"
    }
    guard case .string("ES256") = h["alg"]?.value else { return "the token's alg is not ES256" }
    guard case .string(let kid) = h["kid"]?.value, !kid.isEmpty else { return "the token header has no kid" }
    if let typ = h["typ"], typ.value != .string("JWT") { return "the token's typ is not JWT" }
    guard case .string(let iss) = p["iss"]?.value, !iss.isEmpty else { return "the token has no iss" }
    guard case .string("appstoreconnect-v1") = p["aud"]?.value else {
      return "the token's aud is not appstoreconnect-v1"
    }
    guard case .string(let bid) = p["bid"]?.value else { return "the token has no bid" }
    guard bid == bundleID else { return "the token's bid \(bid) is not the session's bundle id \(bundleID)" }
    guard let exp = seconds(p["exp"]) else { return "the token has no exp" }
    let nowSeconds = now.timeIntervalSince1970
    guard exp > nowSeconds else { return "the token expired" }
    if let iat = seconds(p["iat"]) {
      guard exp - iat <= 3600 else { return "the token's exp is more than an hour after its iat" }
      guard iat <= nowSeconds + 60 else { return "the token's iat is in the future" }
    } else {
      guard exp - nowSeconds <= 3600 else { return "the token's exp is more than an hour away" }
    }
    return nil
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
