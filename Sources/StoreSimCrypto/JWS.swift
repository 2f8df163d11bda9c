/// Compact JWS in the shape Apple's libraries decode (`header.payload.signature`, base64url).
///
/// storesim signs with ES256 (ECDSA P-256, SHA-256) under a `SigningChain` (the one a session's
/// `SigningIdentity` makes): in Sandbox and Production with a chain of three certificates in
/// `x5c` that Apple's `SignedDataVerifier` accepts when it is given the session's root; in Xcode
/// and LocalTesting as Xcode does (`kid` `Apple_Xcode_Key`, one self-signed certificate), which
/// that verifier does not check at all.
package enum JWS {
  /// Signs payload bytes with a chain's signing key, its header naming the chain.
  package static func sign(payload: [UInt8], chain: SigningChain) -> String {
    let signingInput = chain.encodedHeader + base64URL(payload)
    let signature = chain.signingKey.signature(for: signingInput.utf8)
    return signingInput + "." + base64URL(signature.rawRepresentation)
  }

  /// The payload bytes of a JWS that `chain` signed (its header's `x5c` is the chain and its
  /// signature verifies with the chain's signing key), or nil.
  package static func verify(_ jws: String, chain: SigningChain) -> [UInt8]? {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, chain.encodedHeader == parts[0] + ".",
      let raw = decodeBase64URL(parts[2]), let signature = P256.Signature(rawRepresentation: raw),
      chain.signingKey.publicKey.isValidSignature(signature, for: "\(parts[0]).\(parts[1])".utf8)
    else { return nil }
    return decodeBase64URL(parts[1])
  }

  /// The payload bytes of a compact JWS, its signature not checked (StoreKit's `payloadData`
  /// of a value that may be unverified); nil unless it has three parts and a base64url payload.
  ///
  /// Found on the UTF-8 bytes, not `split` on the `String`: that walks Characters (grapheme
  /// breaking), and `storesim import` finds 100,000 payloads (issue 49, item 8).
  package static func payload(of jws: String) -> [UInt8]? {
    let utf8 = jws.utf8
    if let fast = utf8.withContiguousStorageIfAvailable({ payload(ofBytes: $0) }) { return fast }
    return Array(utf8).withUnsafeBufferPointer { payload(ofBytes: $0) }
  }

  private static func payload(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    let dot = UInt8(ascii: ".")
    guard let first = bytes.firstIndex(of: dot),
      let second = bytes[(first + 1)...].firstIndex(of: dot),
      !bytes[(second + 1)...].contains(dot)
    else { return nil }
    return decodeBase64URL(bytes: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second]))
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
    if let fast = text.utf8.withContiguousStorageIfAvailable({ decodeBase64URL(bytes: $0) }) { return fast }
    return Array(text.utf8).withUnsafeBufferPointer { decodeBase64URL(bytes: $0) }
  }

  /// `decodeBase64URL` of UTF-8 bytes.
  static func decodeBase64URL(bytes text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var out = [UInt8]()
    out.reserveCapacity(text.count * 3 / 4)
    var acc: UInt32 = 0
    var bits = 0
    var padding = false
    for c in text {
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
