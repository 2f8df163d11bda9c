import Foundation
import StoreSimSync

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
  /// The root key's 32 bytes: all the identity is made from.
  let rootKeyBytes: [UInt8]
  /// Xcode's shape (one self-signed certificate, `kid`) rather than a chain of three.
  let xcodeShape: Bool
  /// What the root key makes, made when first used: reading a session file costs nothing.
  private let made: Made

  /// The identity a root key makes for an environment.
  package init(rootKey: P256.PrivateKey, environment: StoreEnvironment) {
    self.init(rootKeyBytes: rootKey.rawRepresentation, xcodeShape: [.xcode, .localTesting].contains(environment))
  }

  private init(rootKeyBytes: [UInt8], xcodeShape: Bool) {
    self.rootKeyBytes = rootKeyBytes
    self.xcodeShape = xcodeShape
    made = Made(rootKeyBytes: rootKeyBytes, xcodeShape: xcodeShape)
  }

  public static func == (a: SigningIdentity, b: SigningIdentity) -> Bool {
    a.rootKeyBytes == b.rootKeyBytes && a.xcodeShape == b.xcodeShape
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rootKeyBytes)
    hasher.combine(xcodeShape)
  }

  /// The key the chain's root is made from (and signed with).
  package var rootKey: P256.PrivateKey { made.material.rootKey }
  /// The key that signs JWS (the leaf's, or the Xcode certificate's).
  package var signingKey: P256.PrivateKey { made.material.signingKey }
  /// `x5c`: the certificates, leaf first.
  package var certificates: [X509Certificate] { made.material.certificates }
  /// `kid` (Xcode's signatures only).
  package var keyID: String? { xcodeShape ? "Apple_Xcode_Key" : nil }
  /// The Base64url of the JWS header and the dot after it.
  var encodedHeader: String { made.material.encodedHeader }

  /// The identity of a session made without random bytes (older session files, sessions made
  /// in memory): a root key derived from the bundle id. Anyone can derive it; it proves nothing.
  package static func derived(bundleID: String, environment: StoreEnvironment) -> SigningIdentity {
    let key = "\([.xcode, .localTesting].contains(environment)) \(bundleID)"
    return DerivedIdentities.cache.withLock { cache in
      if let known = cache[key] { return known }
      let seed = SHA256.hash(Array("storesim-signing-key:\(bundleID)".utf8))
      let identity = SigningIdentity(randomBytes: seed, environment: environment)
      cache[key] = identity
      return identity
    }
  }

  /// An identity from random bytes supplied by the caller (the core has no randomness).
  package init(randomBytes: [UInt8], environment: StoreEnvironment) {
    var counter: UInt8 = 0
    var bytes = SHA256.hmac(key: randomBytes, message: Array("storesim root".utf8) + [counter])
    while P256.PrivateKey.isValidScalar(bytes) == false {
      counter &+= 1
      bytes = SHA256.hmac(key: randomBytes, message: Array("storesim root".utf8) + [counter])
    }
    self.init(rootKeyBytes: bytes, xcodeShape: [.xcode, .localTesting].contains(environment))
  }

  /// The certificate a verifier trusts: the chain's root, or Xcode's single certificate.
  package var rootCertificate: X509Certificate { certificates[certificates.count - 1] }
}

/// What a root key makes: the signing key, the certificates and the encoded JWS header.
private struct Material: Sendable {
  let rootKey: P256.PrivateKey
  let signingKey: P256.PrivateKey
  let certificates: [X509Certificate]
  let encodedHeader: String

  init(rootKey: P256.PrivateKey, xcodeShape: Bool) {
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
    var header: [String: JSONOutput] = [
      "alg": .string("ES256"),
      "x5c": .array(certificates.map { .string(Data($0.der).base64EncodedString()) }),
    ]
    if xcodeShape {
      header["typ"] = .string("JWT")
      header["kid"] = .string("Apple_Xcode_Key")
    }
    encodedHeader = JWS.base64URL(Array(JSONOutput.object(header).rendered(pretty: false).utf8)) + "."
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

/// Session files keep the root key only; the rest is made again when first used.
extension SigningIdentity: Codable {
  private enum CodingKeys: String, CodingKey {
    case rootKey, environment
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let text = try container.decode(String.self, forKey: .rootKey)
    guard let bytes = Data(base64Encoded: text), P256.PrivateKey.isValidScalar(Array(bytes)) else {
      throw DecodingError.dataCorruptedError(forKey: .rootKey, in: container, debugDescription: "not a P-256 key")
    }
    let environment = try container.decode(StoreEnvironment.self, forKey: .environment)
    self.init(rootKeyBytes: Array(bytes), xcodeShape: [.xcode, .localTesting].contains(environment))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Data(rootKeyBytes).base64EncodedString(), forKey: .rootKey)
    try container.encode(xcodeShape ? StoreEnvironment.xcode : .sandbox, forKey: .environment)
  }
}

/// The keys, certificates and header a root key makes, made once per identity on first use.
private final class Made: Sendable {
  let rootKeyBytes: [UInt8]
  let xcodeShape: Bool
  private let cached = Mutex<Material?>(nil)

  init(rootKeyBytes: [UInt8], xcodeShape: Bool) {
    self.rootKeyBytes = rootKeyBytes
    self.xcodeShape = xcodeShape
  }

  var material: Material {
    cached.withLock { cached in
      if let cached { return cached }
      let made = Material(rootKey: P256.PrivateKey(rawRepresentation: rootKeyBytes)!, xcodeShape: xcodeShape)
      cached = made
      return made
    }
  }
}

/// Derived identities by bundle id and shape, so a session without its own key makes its chain once.
private enum DerivedIdentities {
  static let cache = Mutex<[String: SigningIdentity]>([:])
}

extension Store {
  /// Sets what the session signs with and the app's Apple id (`init --signing-key`, `--app-apple-id`).
  package mutating func useSigning(_ identity: SigningIdentity?, appAppleID: Int64?) {
    state.signing = identity
    state.appAppleID = appAppleID
  }
}
