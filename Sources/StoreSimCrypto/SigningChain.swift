import Foundation
import StoreSimSync

/// What a root key makes for signing: the key that signs JWS, the certificates of the JWS `x5c`
/// header, and that header, encoded.
///
/// Everything is derived from the root key, so the same key always gives the same root
/// certificate. The chain shape (`xcodeShape` false) is the App Store's: a leaf (Receipt Signing
/// OID), an intermediate (WWDR OID) and the root, no `kid` (rule
/// signed-data-carries-a-chain-of-three-with-apples-oids). Xcode's shape is `kid`
/// `Apple_Xcode_Key` and one self-signed certificate (rule xcode-sessions-sign-as-xcode-does).
/// Every certificate is valid from 1970 to 9999, so every date a virtual clock can reach is
/// inside it (rule signing-certificates-cover-every-virtual-date). The keys are test material.
package struct SigningChain: Sendable {
  package let rootKey: P256.PrivateKey
  /// The key that signs JWS (the leaf's, or the Xcode certificate's).
  package let signingKey: P256.PrivateKey
  /// `x5c`: the certificates, leaf first.
  package let certificates: [X509Certificate]
  /// The Base64url of the JWS header and the dot after it.
  package let encodedHeader: String

  package init(rootKey: P256.PrivateKey, xcodeShape: Bool) {
    self.rootKey = rootKey
    let seed = rootKey.rawRepresentation
    if xcodeShape {
      let name = X509Certificate.name(
        commonName: "StoreKit Testing in Xcode", organization: "StoreKit Testing in Xcode")
      let certificate = X509Certificate(
        serial: 1, issuer: name, subject: name, notBefore: Self.notBefore, notAfter: Self.notAfter,
        publicKey: rootKey.publicKey,
        extensions: [
          .init(
            oid: X509Certificate.OID.basicConstraints, critical: true,
            value: [0x30, 0x06, 0x01, 0x01, 0xFF, 0x02, 0x01, 0x00]),
          .init(oid: X509Certificate.OID.keyUsage, critical: true, value: [0x03, 0x02, 0x07, 0x80]),
          .init(
            oid: X509Certificate.OID.subjectAltName, critical: false,
            value: DER.sequence([DER.element(0x81, Array("StoreKit Testing in Xcode".utf8))])),
        ], signedBy: rootKey)
      signingKey = rootKey
      certificates = [certificate]
    } else {
      let intermediateKey = P256.PrivateKey(deriving: seed, label: "storesim intermediate")
      let leafKey = P256.PrivateKey(deriving: seed, label: "storesim leaf")
      let organization = "storesim (test material)"
      let rootName = X509Certificate.name(
        commonName: "storesim Test Root CA", organization: organization, unit: "storesim", country: "US")
      let intermediateName = X509Certificate.name(
        commonName: "storesim Worldwide Developer Relations Test CA", organization: organization, unit: "G6",
        country: "US")
      let leafName = X509Certificate.name(
        commonName: "storesim App Store Receipt Signing (test)", organization: organization, unit: "storesim",
        country: "US")
      let caUsage: [UInt8] = [0x03, 0x02, 0x01, 0x06]
      let root = Self.certificate(
        serial: 1, issuerName: rootName, issuerKey: rootKey, subjectName: rootName, subjectKey: rootKey.publicKey,
        ca: true, usage: caUsage, appleOID: nil)
      let intermediate = Self.certificate(
        serial: 2, issuerName: rootName, issuerKey: rootKey, subjectName: intermediateName,
        subjectKey: intermediateKey.publicKey, ca: true, usage: caUsage,
        appleOID: X509Certificate.OID.appleWWDRIntermediate)
      let leaf = Self.certificate(
        serial: 3, issuerName: intermediateName, issuerKey: intermediateKey, subjectName: leafName,
        subjectKey: leafKey.publicKey, ca: false, usage: [0x03, 0x02, 0x07, 0x80],
        appleOID: X509Certificate.OID.appleReceiptSigning)
      signingKey = leafKey
      certificates = [leaf, intermediate, root]
    }
    encodedHeader = JWS.base64URL(Array(Self.header(certificates, xcodeShape: xcodeShape).utf8)) + "."
  }

  /// The certificate a verifier trusts: the chain's root, or Xcode's single certificate.
  package var rootCertificate: X509Certificate { certificates[certificates.count - 1] }

  /// The JWS header as JSON, keys sorted and no spaces (as the core's `JSONOutput` writes it; the
  /// Base64 of a certificate needs no escape).
  static func header(_ certificates: [X509Certificate], xcodeShape: Bool) -> String {
    let x5c = certificates.map { "\"" + Data($0.der).base64EncodedString() + "\"" }.joined(separator: ",")
    let kid = xcodeShape ? #""kid":"Apple_Xcode_Key","typ":"JWT","# : ""
    return #"{"alg":"ES256","# + kid + #""x5c":["# + x5c + "]}"
  }

  /// The root key's 32 bytes made from random bytes (HMAC-SHA256 counter until they are a valid
  /// P-256 scalar).
  package static func rootKeyBytes(fromRandom randomBytes: [UInt8]) -> [UInt8] {
    var counter: UInt8 = 0
    var bytes = SHA256.hmac(key: randomBytes, message: Array("storesim root".utf8) + [counter])
    while P256.PrivateKey.isValidScalar(bytes) == false {
      counter &+= 1
      bytes = SHA256.hmac(key: randomBytes, message: Array("storesim root".utf8) + [counter])
    }
    return bytes
  }

  static let notBefore: Int64 = 0
  static let notAfter: Int64 = 253_402_300_799  // 9999-12-31T23:59:59Z

  private static func certificate(
    serial: Int, issuerName: [UInt8], issuerKey: P256.PrivateKey, subjectName: [UInt8],
    subjectKey: P256.PublicKey, ca: Bool, usage: [UInt8], appleOID: String?
  ) -> X509Certificate {
    typealias OID = X509Certificate.OID
    var extensions: [X509Certificate.Extension] = [
      .init(oid: OID.basicConstraints, critical: true, value: ca ? [0x30, 0x03, 0x01, 0x01, 0xFF] : [0x30, 0x00]),
      .init(oid: OID.keyUsage, critical: true, value: usage),
      .init(oid: OID.subjectKeyIdentifier, critical: false, value: DER.octetString(keyIdentifier(subjectKey))),
      .init(
        oid: OID.authorityKeyIdentifier, critical: false,
        value: DER.sequence([DER.element(0x80, keyIdentifier(issuerKey.publicKey))])),
    ]
    if let appleOID { extensions.append(.init(oid: appleOID, critical: false, value: DER.null)) }
    return X509Certificate(
      serial: serial, issuer: issuerName, subject: subjectName, notBefore: notBefore, notAfter: notAfter,
      publicKey: subjectKey, extensions: extensions, signedBy: issuerKey)
  }

  /// A key identifier: the first 20 bytes of SHA-256 of the public key (RFC 7093 §2 method 1).
  private static func keyIdentifier(_ key: P256.PublicKey) -> [UInt8] {
    Array(SHA256.hash(key.x963Representation).prefix(20))
  }
}

extension SigningChain {
  /// The chain a root key makes, made once on first use and shared by every copy of the identity
  /// that holds it (so reading a session file costs nothing). The core keeps no lock of its own:
  /// this memo and the cache of derived chains are the signing identity's only locks.
  package final class Memo: Sendable {
    /// The root key's 32 bytes: all the chain is made from.
    package let rootKeyBytes: [UInt8]
    /// Xcode's shape (one self-signed certificate, `kid`) rather than a chain of three.
    package let xcodeShape: Bool
    private let made = Mutex<SigningChain?>(nil)

    /// A memo for a root key's bytes, which must be a valid P-256 scalar.
    package init(rootKeyBytes: [UInt8], xcodeShape: Bool) {
      self.rootKeyBytes = rootKeyBytes
      self.xcodeShape = xcodeShape
    }

    package var chain: SigningChain {
      made.withLock { made in
        if let made { return made }
        let chain = SigningChain(rootKey: P256.PrivateKey(rawRepresentation: rootKeyBytes)!, xcodeShape: xcodeShape)
        made = chain
        return chain
      }
    }

    /// The memo of a derived identity (a session without its own key), one per name and shape,
    /// so its chain is made once per process; `seed` makes its random bytes on first use.
    package static func derived(name: String, xcodeShape: Bool, seed: () -> [UInt8]) -> Memo {
      let key = "\(xcodeShape) \(name)"
      return derivedMemos.withLock { memos in
        if let known = memos[key] { return known }
        let memo = Memo(rootKeyBytes: SigningChain.rootKeyBytes(fromRandom: seed()), xcodeShape: xcodeShape)
        memos[key] = memo
        return memo
      }
    }

    private static let derivedMemos = Mutex<[String: Memo]>([:])
  }
}
