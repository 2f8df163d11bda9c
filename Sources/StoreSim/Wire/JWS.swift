import Foundation

/// SHA-256 (FIPS 180-4); Foundation on Linux has no digest API and storesim takes no packages.
package enum SHA256 {
  private static let k: [UInt32] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]

  /// The 32-byte digest of `message`.
  package static func hash(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    var data = message
    let bitLength = UInt64(message.count) * 8
    data.append(0x80)
    while data.count % 64 != 56 { data.append(0) }
    for i in (0..<8).reversed() { data.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
    var w = [UInt32](repeating: 0, count: 64)
    for chunk in stride(from: 0, to: data.count, by: 64) {
      for i in 0..<16 {
        let j = chunk + i * 4
        w[i] = UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
      }
      for i in 16..<64 {
        let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
        let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
      }
      var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
      for i in 0..<64 {
        let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
        let ch = (e & f) ^ (~e & g)
        let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
        let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
        let maj = (a & b) ^ (a & c) ^ (b & c)
        let t2 = s0 &+ maj
        (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
      }
      h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
      h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
    }
    return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - $0 * 8)) } }
  }

  /// HMAC-SHA256 (RFC 2104).
  package static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var k = key.count > 64 ? hash(key) : key
    k += [UInt8](repeating: 0, count: 64 - k.count)
    let inner = hash(k.map { $0 ^ 0x36 } + message)
    return hash(k.map { $0 ^ 0x5c } + inner)
  }
}

extension UInt32 {
  @inline(__always) fileprivate func rotatedRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}

/// Compact JWS in the shape Apple's libraries decode (`header.payload.signature`, base64url).
///
/// storesim signs with ES256 (ECDSA P-256, SHA-256) under the session's `SigningIdentity`: in
/// Sandbox and Production with a chain of three certificates in `x5c` that Apple's
/// `SignedDataVerifier` accepts when it is given the session's root; in Xcode and LocalTesting as
/// Xcode does (`kid` `Apple_Xcode_Key`, one self-signed certificate), which that verifier does
/// not check at all.
package enum JWS {
  /// Signs a JSON payload with the session's identity (`state.signer`).
  package static func sign(_ payload: JSONOutput, signer: SigningIdentity) -> String {
    sign(payload: Array(payload.rendered(pretty: false).utf8), signer: signer)
  }

  /// Signs payload bytes.
  package static func sign(payload: [UInt8], signer: SigningIdentity) -> String {
    let signingInput = signer.encodedHeader + base64URL(payload)
    let signature = signer.signingKey.signature(for: signingInput.utf8)
    return signingInput + "." + base64URL(signature.rawRepresentation)
  }

  /// The payload bytes of a JWS that `signer` signed (its header's `x5c` is the signer's chain
  /// and its signature verifies with the signer's key), or nil.
  package static func verify(_ jws: String, signer: SigningIdentity) -> [UInt8]? {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, signer.encodedHeader == parts[0] + ".",
      let raw = decodeBase64URL(parts[2]), let signature = P256.Signature(rawRepresentation: raw),
      signer.signingKey.publicKey.isValidSignature(signature, for: "\(parts[0]).\(parts[1])".utf8)
    else { return nil }
    return decodeBase64URL(parts[1])
  }

  /// The payload bytes of a compact JWS, its signature not checked (StoreKit's `payloadData`
  /// of a value that may be unverified); nil unless it has three parts and a base64url payload.
  package static func payload(of jws: String) -> [UInt8]? {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    return decodeBase64URL(parts[1])
  }

  /// Base64url without padding.
  package static func base64URL(_ bytes: [UInt8]) -> String {
    // Written out rather than Foundation's base64 and three string replacements: signing is on
    // the server's path for every answer, and those replacements were most of its cost.
    var out = [UInt8]()
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i + 3 <= bytes.count {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
      out.append(alphabet[Int(n >> 18)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(alphabet[Int(n >> 6 & 63)])
      out.append(alphabet[Int(n & 63)])
      i += 3
    }
    if bytes.count - i == 1 {
      let n = UInt32(bytes[i]) << 16
      out.append(alphabet[Int(n >> 18)])
      out.append(alphabet[Int(n >> 12 & 63)])
    } else if bytes.count - i == 2 {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
      out.append(alphabet[Int(n >> 18)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(alphabet[Int(n >> 6 & 63)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Decodes base64url with or without padding; nil for any other character or a bad length.
  package static func decodeBase64URL<S: StringProtocol>(_ text: S) -> [UInt8]? {
    var out = [UInt8]()
    out.reserveCapacity(text.utf8.count * 3 / 4)
    var acc: UInt32 = 0
    var bits = 0
    var padding = false
    for c in text.utf8 {
      let v: UInt32
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
      case UInt8(ascii: "-"), UInt8(ascii: "+"): v = 62
      case UInt8(ascii: "_"), UInt8(ascii: "/"): v = 63
      case UInt8(ascii: "="):
        padding = true
        continue
      default: return nil
      }
      if padding { return nil }
      acc = acc << 6 | v
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
      }
    }
    // A single leftover character cannot hold a byte.
    if bits >= 6 { return nil }
    return out
  }
}
