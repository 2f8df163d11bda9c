import Foundation

/// What a session signs with: a P-256 key and the certificates of the JWS `x5c` header.
///
/// Everything is derived from one root key, so the same key (`init --signing-key`) always gives
/// the same root certificate. Sandbox and Production sessions sign as the App Store does: `x5c`
/// holds a leaf (Receipt Signing OID), an intermediate (WWDR OID) and the root, no `kid` (rule
/// signed-data-carries-a-chain-of-three-with-apples-oids). Xcode and LocalTesting sessions sign
/// as Xcode does: `kid` `Apple_Xcode_Key` and one self-signed certificate (rule
/// xcode-sessions-sign-as-xcode-does). Every certificate is valid from 1970 to 9999, so every
/// date a virtual clock can reach is inside it (rule signing-certificates-cover-every-virtual-date).
/// The keys are test material.
public struct SigningIdentity: Sendable, Hashable {
  /// The key the chain's root is made from (and signed with).
  package let rootKey: P256.PrivateKey
  /// The key that signs JWS (the leaf's, or the Xcode certificate's).
  package let signingKey: P256.PrivateKey
  /// `x5c`: DER certificates, leaf first.
  package let certificates: [X509Certificate]
  /// `kid` (Xcode's signatures only).
  package let keyID: String?
  /// The Base64url of the JWS header and the dot after it, made once.
  let encodedHeader: String

  /// The identity a root key makes for an environment.
  package init(rootKey: P256.PrivateKey, environment: StoreEnvironment) {
    let seed = rootKey.rawRepresentation
    switch environment {
    case .xcode, .localTesting:
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
      self.init(rootKey: rootKey, signingKey: rootKey, certificates: [certificate], keyID: "Apple_Xcode_Key")
    case .sandbox, .production:
      let intermediateKey = P256.PrivateKey(deriving: seed, label: "storesim intermediate")
      let leafKey = P256.PrivateKey(deriving: seed, label: "storesim leaf")
      let rootName = X509Certificate.name(
        commonName: "storesim Test Root CA", organization: "storesim (test material)", unit: "storesim", country: "US")
      let intermediateName = X509Certificate.name(
        commonName: "storesim Worldwide Developer Relations Test CA", organization: "storesim (test material)",
        unit: "G6", country: "US")
      let leafName = X509Certificate.name(
        commonName: "storesim App Store Receipt Signing (test)", organization: "storesim (test material)",
        unit: "storesim", country: "US")
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
      self.init(rootKey: rootKey, signingKey: leafKey, certificates: [leaf, intermediate, root], keyID: nil)
    }
  }

  /// The identity of a session made without random bytes (older session files, sessions made
  /// in memory): a root key derived from the bundle id. Anyone can derive it; it proves nothing.
  package static func derived(bundleID: String, environment: StoreEnvironment) -> SigningIdentity {
    let key = DerivedIdentities.cache.withLock { $0[DerivedKey(bundleID: bundleID, environment: environment)] }
    if let key { return key }
    let seed = SHA256.hash(Array("storesim-signing-key:\(bundleID)".utf8))
    let identity = SigningIdentity(
      rootKey: P256.PrivateKey(deriving: seed, label: "storesim root"), environment: environment)
    DerivedIdentities.cache.withLock { $0[DerivedKey(bundleID: bundleID, environment: environment)] = identity }
    return identity
  }

  /// An identity from random bytes supplied by the caller (the core has no randomness).
  package init(randomBytes: [UInt8], environment: StoreEnvironment) {
    self.init(rootKey: P256.PrivateKey(deriving: randomBytes, label: "storesim root"), environment: environment)
  }

  init(rootKey: P256.PrivateKey, signingKey: P256.PrivateKey, certificates: [X509Certificate], keyID: String?) {
    self.rootKey = rootKey
    self.signingKey = signingKey
    self.certificates = certificates
    self.keyID = keyID
    var header: [String: JSONOutput] = [
      "alg": .string("ES256"),
      "x5c": .array(certificates.map { .string(Data($0.der).base64EncodedString()) }),
    ]
    if let keyID {
      header["typ"] = .string("JWT")
      header["kid"] = .string(keyID)
    }
    encodedHeader = JWS.base64URL(Array(JSONOutput.object(header).rendered(pretty: false).utf8)) + "."
  }

  /// The certificate a verifier trusts: the chain's root, or Xcode's single certificate.
  package var rootCertificate: X509Certificate { certificates[certificates.count - 1] }

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

/// Session files keep the root key only; the rest is made again when the session is read.
extension SigningIdentity: Codable {
  private enum CodingKeys: String, CodingKey {
    case rootKey, environment
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let text = try container.decode(String.self, forKey: .rootKey)
    guard let bytes = Data(base64Encoded: text), let key = P256.PrivateKey(rawRepresentation: Array(bytes)) else {
      throw DecodingError.dataCorruptedError(forKey: .rootKey, in: container, debugDescription: "not a P-256 key")
    }
    let environment = try container.decode(StoreEnvironment.self, forKey: .environment)
    self.init(rootKey: key, environment: environment)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Data(rootKey.rawRepresentation).base64EncodedString(), forKey: .rootKey)
    try container.encode(environment, forKey: .environment)
  }

  private var environment: StoreEnvironment { keyID == nil ? .sandbox : .xcode }
}

private struct DerivedKey: Hashable {
  let bundleID: String
  let environment: StoreEnvironment
}

private enum DerivedIdentities {
  static let cache = Mutex<[DerivedKey: SigningIdentity]>([:])
}

extension Store {
  /// Sets what the session signs with and the app's Apple id (`init --signing-key`, `--app-apple-id`).
  package mutating func useSigning(_ identity: SigningIdentity?, appAppleID: Int64?) {
    state.signing = identity
    state.appAppleID = appAppleID
  }
}
