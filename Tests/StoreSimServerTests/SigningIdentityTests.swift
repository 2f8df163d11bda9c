import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCrypto
@testable import StoreSimServer

/// What a session signs with, and the bearer token checked with the team's key.
@Suite struct SigningIdentityTests {
  static let rootKey = P256.PrivateKey(deriving: [42], label: "root")

  static func header(_ jws: String) throws -> JSONNode {
    let bytes = try #require(JWS.decodeBase64URL(jws.split(separator: ".")[0]))
    return try JSONParser.parse(bytes)
  }

  /// Rule signed-data-carries-a-chain-of-three-with-apples-oids.
  @Test func signedDataCarriesAChainOfThreeWithApplesOIDs() throws {
    let identity = SigningIdentity(rootKey: Self.rootKey, environment: .sandbox)
    let jws = JWS.sign(.object(["signedDate": .int(1)]), signer: identity)
    let header = try Self.header(jws)
    #expect(header["alg"]?.value == .string("ES256"))
    #expect(header["kid"] == nil)
    guard case .array(let x5c)? = header["x5c"]?.value else {
      Issue.record("no x5c")
      return
    }
    #expect(x5c.count == 3)
    let certificates = try x5c.map { node -> X509Certificate in
      guard case .string(let text) = node.value, let der = Data(base64Encoded: text) else {
        throw DER.Failure(message: "x5c")
      }
      return try X509Certificate(der: Array(der))
    }
    let (leaf, intermediate, root) = (certificates[0], certificates[1], certificates[2])
    #expect(leaf.hasExtension(X509Certificate.OID.appleReceiptSigning))
    #expect(intermediate.hasExtension(X509Certificate.OID.appleWWDRIntermediate))
    #expect(!root.hasExtension(X509Certificate.OID.appleWWDRIntermediate))
    #expect(leaf.isSigned(by: intermediate.publicKey) && leaf.issuer == intermediate.subject)
    #expect(intermediate.isSigned(by: root.publicKey) && intermediate.issuer == root.subject)
    #expect(root.isSigned(by: root.publicKey) && root.publicKey == Self.rootKey.publicKey)
    #expect(!leaf.isSigned(by: root.publicKey))
    for certificate in certificates {
      #expect(certificate.hasExtension(X509Certificate.OID.subjectKeyIdentifier))
      #expect(certificate.hasExtension(X509Certificate.OID.authorityKeyIdentifier))
    }
    let parts = jws.split(separator: ".")
    let raw = try #require(JWS.decodeBase64URL(parts[2]))
    let signature = try #require(P256.Signature(rawRepresentation: raw))
    #expect(leaf.publicKey.isValidSignature(signature, for: "\(parts[0]).\(parts[1])".utf8))
    #expect(JWS.verify(jws, signer: identity) != nil)
    #expect(JWS.verify(String(jws.dropLast(2)) + "AA", signer: identity) == nil)
  }

  /// Rule signing-certificates-cover-every-virtual-date.
  @Test func signingCertificatesCoverEveryVirtualDate() throws {
    let identity = SigningIdentity(rootKey: Self.rootKey, environment: .production)
    for certificate in identity.certificates {
      #expect(certificate.notBefore == 0)
      #expect(certificate.notAfter == 253_402_300_799)
      #expect(try X509Certificate(der: certificate.der) == certificate)
    }
  }

  /// Rule xcode-sessions-sign-as-xcode-does.
  @Test func xcodeSessionsSignAsXcodeDoes() throws {
    for environment in [StoreEnvironment.xcode, .localTesting] {
      let identity = SigningIdentity(rootKey: Self.rootKey, environment: environment)
      let header = try Self.header(JWS.sign(.object([:]), signer: identity))
      #expect(header["kid"]?.value == .string("Apple_Xcode_Key"))
      #expect(header["typ"]?.value == .string("JWT"))
      #expect(identity.certificates.count == 1)
      let certificate = identity.rootCertificate
      #expect(certificate.issuer == certificate.subject && certificate.isSigned(by: certificate.publicKey))
      #expect(String(decoding: certificate.subject, as: UTF8.self).contains("StoreKit Testing in Xcode"))
    }
  }

  @Test func theSameRootKeyMakesTheSameRootAndSessionFilesKeepIt() throws {
    let a = SigningIdentity(rootKey: Self.rootKey, environment: .sandbox)
    let b = SigningIdentity(rootKey: Self.rootKey, environment: .sandbox)
    #expect(a.rootCertificate.der == b.rootCertificate.der)
    let other = SigningIdentity(randomBytes: [1, 2, 3], environment: .sandbox)
    #expect(other.rootCertificate.der != a.rootCertificate.der)
    let decoded = try JSONDecoder().decode(SigningIdentity.self, from: try JSONEncoder().encode(a))
    #expect(decoded == a)
  }

  static func token(_ key: P256.PrivateKey, kid: String = "KEY123", iss: String = "issuer") -> String {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string(kid), "typ": .string("JWT")])
    let payload = JSONOutput.object([
      "iss": .string(iss), "aud": .string("appstoreconnect-v1"), "bid": .string("com.example.app"),
      "exp": .int(1_800_000_300),
    ])
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(payload.rendered(pretty: false).utf8))
    return "Bearer " + input + "." + JWS.base64URL(key.signature(for: Array(input.utf8)).rawRepresentation)
  }

  /// Rule bearer-token-signed-with-the-teams-key.
  @Test func bearerTokenSignedWithTheTeamsKey() {
    let team = P256.PrivateKey(deriving: [5], label: "team")
    let key = Authentication.Key(publicKey: team.publicKey, keyID: "KEY123", issuer: "issuer")
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func check(_ header: String, _ key: Authentication.Key?) -> String? {
      Authentication.Gate(key: key).check(header, bundleID: "com.example.app", now: now)
    }
    #expect(check(Self.token(team), key) == nil)
    let stranger = P256.PrivateKey(deriving: [6], label: "stranger")
    #expect(check(Self.token(stranger), key) == "the token's signature does not verify with the team's key")
    #expect(check(Self.token(team, kid: "OTHER"), key) == "the token's kid is not the key id storesim was given")
    #expect(check(Self.token(team, iss: "other"), key) == "the token's iss is not the issuer storesim was given")
    // Without a key, only the shape and claims are checked.
    #expect(check(Self.token(stranger), nil) == nil)
  }

  /// StoreSimCrypto writes the JWS header itself: its bytes are those the core's `JSONOutput`
  /// writes for the same header (sorted keys, no spaces), in both shapes, so every signature
  /// stays what it was when the core wrote it.
  @Test func theChainsHeaderIsWhatJSONOutputWrites() throws {
    for environment in [StoreEnvironment.sandbox, .xcode] {
      let identity = SigningIdentity(rootKey: Self.rootKey, environment: environment)
      var header: [String: JSONOutput] = [
        "alg": .string("ES256"),
        "x5c": .array(identity.certificates.map { .string(Data($0.der).base64EncodedString()) }),
      ]
      if environment == .xcode {
        header["typ"] = .string("JWT")
        header["kid"] = .string("Apple_Xcode_Key")
      }
      let expected = JWS.base64URL(Array(JSONOutput.object(header).rendered(pretty: false).utf8)) + "."
      #expect(identity.chain.encodedHeader == expected)
    }
  }
}
