/// ECDSA over P-256 with SHA-256 (FIPS 186-4), nonces by RFC 6979 (deterministic, HMAC-SHA256).
package enum P256 {
  /// A private key: a scalar 1 ≤ d < n, with its public point.
  package struct PrivateKey: Hashable, Sendable {
    package let scalar: U256
    package let publicKey: PublicKey

    /// The key with scalar `d` (32 big-endian bytes); nil unless 1 ≤ d < n.
    package init?(rawRepresentation bytes: some Collection<UInt8>) {
      guard bytes.count == 32, let d = U256(bigEndian: bytes), !d.isZero, d.isLess(than: Modulus.n.m),
        let point = P256Point.baseMultiple(d).affine
      else { return nil }
      scalar = d
      publicKey = PublicKey(x: point.x, y: point.y)
    }

    /// Whether 32 bytes are a valid private scalar (1 ≤ d < n), without making the public key.
    package static func isValidScalar(_ bytes: [UInt8]) -> Bool {
      guard bytes.count == 32, let d = U256(bigEndian: bytes) else { return false }
      return !d.isZero && d.isLess(than: Modulus.n.m)
    }

    /// A key derived from seed material (HMAC-SHA256 counter until the value is a valid scalar).
    package init(deriving seed: [UInt8], label: String) {
      var counter: UInt8 = 0
      while true {
        let bytes = SHA256.hmac(key: seed, message: Array(label.utf8) + [counter])
        if let key = PrivateKey(rawRepresentation: bytes) {
          self = key
          return
        }
        counter &+= 1
      }
    }

    package var rawRepresentation: [UInt8] { scalar.bigEndianBytes }

    /// Signs SHA-256(message); the signature is deterministic (RFC 6979).
    package func signature(for message: some Sequence<UInt8>) -> Signature {
      signature(digest: SHA256.hash(Array(message)))
    }

    /// Signs a 32-byte digest.
    package func signature(digest: [UInt8]) -> Signature {
      let e = Modulus.n.reduce(U256(bigEndian: digest.prefix(32))!)
      var nonces = RFC6979(key: scalar, digest: e)
      while true {
        if let signature = signature(digest: digest, nonce: nonces.next()) { return signature }
      }
    }

    /// Signs a 32-byte digest with a given nonce k (known-answer tests); nil if k gives r or s zero.
    package func signature(digest: [UInt8], nonce k: U256) -> Signature? {
      let n = Modulus.n
      let e = n.reduce(U256(bigEndian: digest.prefix(32))!)
      guard let point = P256Point.baseMultiple(k).affine else { return nil }
      let r = n.reduce(point.x)
      if r.isZero { return nil }
      let s = n.mulPlain(n.inversePlain(k), n.add(e, n.mulPlain(r, scalar)))
      return s.isZero ? nil : Signature(r: r, s: s)
    }
  }

  /// A public key: an affine point on the curve.
  package struct PublicKey: Hashable, Sendable {
    package let x: U256
    package let y: U256

    fileprivate init(x: U256, y: U256) {
      self.x = x
      self.y = y
    }

    /// Reads the uncompressed SEC1 point `04 || X || Y`; nil unless it is on the curve.
    package init?(x963Representation bytes: [UInt8]) {
      guard bytes.count == 65, bytes[0] == 4, let x = U256(bigEndian: bytes[1..<33]),
        let y = U256(bigEndian: bytes[33..<65]), P256Point(affineX: x, y: y) != nil
      else { return nil }
      self.init(x: x, y: y)
    }

    /// `04 || X || Y`.
    package var x963Representation: [UInt8] { [4] + x.bigEndianBytes + y.bigEndianBytes }

    /// Whether `signature` signs SHA-256(message) under this key.
    package func isValidSignature(_ signature: Signature, for message: some Sequence<UInt8>) -> Bool {
      isValidSignature(signature, digest: SHA256.hash(Array(message)))
    }

    /// Whether `signature` signs a 32-byte digest under this key.
    package func isValidSignature(_ signature: Signature, digest: [UInt8]) -> Bool {
      let n = Modulus.n
      let (r, s) = (signature.r, signature.s)
      guard !r.isZero, !s.isZero, r.isLess(than: n.m), s.isLess(than: n.m),
        let digestValue = U256(bigEndian: digest.prefix(32)),
        let q = P256Point(affineX: x, y: y)
      else { return false }
      let e = n.reduce(digestValue)
      let w = n.inversePlain(s)
      let u1 = n.mulPlain(e, w)
      let u2 = n.mulPlain(r, w)
      guard let point = q.linearCombination(baseScalar: u1, scalar: u2).affine else { return false }
      return n.reduce(point.x) == r
    }
  }

  /// An ECDSA signature (r, s).
  package struct Signature: Hashable, Sendable {
    package let r: U256
    package let s: U256

    package init(r: U256, s: U256) {
      self.r = r
      self.s = s
    }

    /// JOSE's form: `r || s`, 32 bytes each; nil for any other length.
    package init?(rawRepresentation bytes: [UInt8]) {
      guard bytes.count == 64, let r = U256(bigEndian: bytes[0..<32]), let s = U256(bigEndian: bytes[32..<64])
      else { return nil }
      self.init(r: r, s: s)
    }

    package var rawRepresentation: [UInt8] { r.bigEndianBytes + s.bigEndianBytes }

    /// X.509's and StoreKit 1's form: DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }`.
    package init?(derRepresentation bytes: [UInt8]) {
      var reader = DER.Reader(bytes)
      guard var sequence = try? reader.read(.sequence), reader.isAtEnd,
        let r = try? sequence.readUnsignedInteger(), let s = try? sequence.readUnsignedInteger(), sequence.isAtEnd,
        let r256 = U256(bigEndian: r), let s256 = U256(bigEndian: s)
      else { return nil }
      self.init(r: r256, s: s256)
    }

    package var derRepresentation: [UInt8] {
      DER.sequence([DER.unsignedInteger(r.bigEndianBytes), DER.unsignedInteger(s.bigEndianBytes)])
    }
  }
}

/// RFC 6979 §3.2 nonce generation for P-256 and SHA-256 (qlen = hlen = 256).
private struct RFC6979 {
  var k: [UInt8]
  var v: [UInt8]
  var first = true

  init(key: U256, digest: U256) {
    let x = key.bigEndianBytes
    let h = digest.bigEndianBytes
    v = [UInt8](repeating: 1, count: 32)
    k = [UInt8](repeating: 0, count: 32)
    k = SHA256.hmac(key: k, message: v + [0] + x + h)
    v = SHA256.hmac(key: k, message: v)
    k = SHA256.hmac(key: k, message: v + [1] + x + h)
    v = SHA256.hmac(key: k, message: v)
  }

  mutating func next() -> U256 {
    while true {
      if !first {
        k = SHA256.hmac(key: k, message: v + [0])
        v = SHA256.hmac(key: k, message: v)
      }
      first = false
      v = SHA256.hmac(key: k, message: v)
      let candidate = U256(bigEndian: v)!
      if !candidate.isZero && candidate.isLess(than: Modulus.n.m) { return candidate }
    }
  }
}
