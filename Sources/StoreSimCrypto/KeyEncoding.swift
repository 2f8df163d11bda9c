import Foundation

/// P-256 keys in the encodings App Store Connect, Xcode and OpenSSL use: PKCS #8 (an `.p8`
/// key, a `.storekit` file's offer key), SEC1 `EC PRIVATE KEY`, SPKI public keys, and PEM.
extension P256.PrivateKey {
  /// Reads DER PKCS #8 (RFC 5208/5915) or SEC1 (RFC 5915) of a P-256 key.
  package init(derRepresentation bytes: [UInt8]) throws(DER.Failure) {
    var outer = DER.Reader(bytes)
    var sequence = try outer.read(.sequence)
    guard outer.isAtEnd else { throw DER.Failure(message: "bytes after the key") }
    let version = try sequence.readSmallInteger()
    if version == 0 {
      var algorithm = try sequence.read(.sequence)
      guard try algorithm.readOID() == KeyOID.ecPublicKey else { throw DER.Failure(message: "not an EC key") }
      guard try algorithm.readOID() == KeyOID.prime256v1 else { throw DER.Failure(message: "not a P-256 key") }
      let inner = try sequence.readBytes(.octetString)
      self = try P256.PrivateKey(sec1: inner, curveRequired: false)
    } else if version == 1 {
      self = try P256.PrivateKey(sec1: bytes, curveRequired: true)
    } else {
      throw DER.Failure(message: "unknown private key version \(version)")
    }
  }

  /// `ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] parameters, [1] publicKey }`.
  private init(sec1 bytes: [UInt8], curveRequired: Bool) throws(DER.Failure) {
    var outer = DER.Reader(bytes)
    var sequence = try outer.read(.sequence)
    guard try sequence.readSmallInteger() == 1 else { throw DER.Failure(message: "bad EC private key version") }
    let scalar = try sequence.readBytes(.octetString)
    var curveSeen = false
    var publicKey: [UInt8]?
    while !sequence.isAtEnd {
      let (tag, contents, _) = try sequence.readAny()
      var inner = contents
      if tag == DER.Tag.context0.rawValue {
        guard try inner.readOID() == KeyOID.prime256v1 else { throw DER.Failure(message: "not a P-256 key") }
        curveSeen = true
      } else if tag == DER.Tag.context1.rawValue {
        publicKey = try inner.readBitString()
      }
    }
    if curveRequired && !curveSeen { throw DER.Failure(message: "EC private key without its curve") }
    guard let key = P256.PrivateKey(rawRepresentation: scalar) else {
      throw DER.Failure(message: "private key out of range")
    }
    if let publicKey, publicKey != key.publicKey.x963Representation {
      throw DER.Failure(message: "public key does not match the private key")
    }
    self = key
  }

  /// DER PKCS #8 with the public key embedded (the 138-byte shape OpenSSL writes).
  package var pkcs8DERRepresentation: [UInt8] {
    DER.sequence([
      DER.integer(0),
      DER.sequence([DER.oid(KeyOID.ecPublicKey), DER.oid(KeyOID.prime256v1)]),
      DER.octetString(
        DER.sequence([
          DER.integer(1),
          DER.octetString(rawRepresentation),
          DER.element(.context1, DER.bitString(publicKey.x963Representation)),
        ])),
    ])
  }

  /// PEM `PRIVATE KEY` (PKCS #8).
  package var pemRepresentation: String { PEM.encode(pkcs8DERRepresentation, label: "PRIVATE KEY") }

  /// Reads PEM `PRIVATE KEY` or `EC PRIVATE KEY`, or bare Base64 of the DER (a `.storekit`
  /// file's `subscriptionOffersKeyPair.privateKey`).
  package init(pemOrBase64 text: String) throws(DER.Failure) {
    if let der = PEM.decode(text, labels: ["PRIVATE KEY", "EC PRIVATE KEY"]) {
      self = try P256.PrivateKey(derRepresentation: der)
    } else if let der = Data(base64Encoded: text.filter { !$0.isWhitespace }) {
      self = try P256.PrivateKey(derRepresentation: Array(der))
    } else {
      throw DER.Failure(message: "neither PEM nor Base64")
    }
  }
}

extension P256.PublicKey {
  /// DER `SubjectPublicKeyInfo`.
  package var spkiDERRepresentation: [UInt8] {
    DER.sequence([
      DER.sequence([DER.oid(KeyOID.ecPublicKey), DER.oid(KeyOID.prime256v1)]),
      DER.bitString(x963Representation),
    ])
  }

  /// Reads a DER `SubjectPublicKeyInfo` of a P-256 key.
  package init(spki reader: inout DER.Reader) throws(DER.Failure) {
    var sequence = try reader.read(.sequence)
    var algorithm = try sequence.read(.sequence)
    guard try algorithm.readOID() == KeyOID.ecPublicKey else { throw DER.Failure(message: "not an EC key") }
    guard try algorithm.readOID() == KeyOID.prime256v1 else { throw DER.Failure(message: "not a P-256 key") }
    guard let key = P256.PublicKey(x963Representation: try sequence.readBitString()) else {
      throw DER.Failure(message: "point not on P-256")
    }
    self = key
  }

  package var pemRepresentation: String { PEM.encode(spkiDERRepresentation, label: "PUBLIC KEY") }
}

/// Object identifiers of keys and signatures.
package enum KeyOID {
  package static let ecPublicKey = "1.2.840.10045.2.1"
  package static let prime256v1 = "1.2.840.10045.3.1.7"
  package static let ecdsaWithSHA256 = "1.2.840.10045.4.3.2"
}

/// PEM (RFC 7468).
package enum PEM {
  package static func encode(_ der: [UInt8], label: String) -> String {
    let base64 = Data(der).base64EncodedString()
    var lines = ["-----BEGIN \(label)-----"]
    var index = base64.startIndex
    while index < base64.endIndex {
      let next = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
      lines.append(String(base64[index..<next]))
      index = next
    }
    lines.append("-----END \(label)-----")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The DER of the first block with one of `labels`; nil if there is none or it is not Base64.
  package static func decode(_ text: String, labels: [String]) -> [UInt8]? {
    for label in labels {
      guard let begin = text.range(of: "-----BEGIN \(label)-----"),
        let end = text.range(of: "-----END \(label)-----", range: begin.upperBound..<text.endIndex)
      else { continue }
      let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
      return Data(base64Encoded: String(body)).map(Array.init)
    }
    return nil
  }
}
