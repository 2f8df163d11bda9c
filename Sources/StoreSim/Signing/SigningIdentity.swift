import Foundation
import StoreSimCrypto

/// What a session signs with: a P-256 root key, and the `SigningChain` it makes (the key that
/// signs JWS and the certificates of the `x5c` header), made when first used.
///
/// Sandbox and Production sessions sign as the App Store does, with a chain of three; Xcode and
/// LocalTesting sessions sign as Xcode does, `kid` `Apple_Xcode_Key` and one self-signed
/// certificate (`SigningChain` states the rules). The keys are test material.
public struct SigningIdentity: Sendable, Hashable {
  /// The root key's bytes and shape, and the chain they make, made once (the memo's lock is
  /// StoreSimCrypto's: the core takes none).
  private let memo: SigningChain.Memo

  /// The identity a root key makes for an environment.
  package init(rootKey: P256.PrivateKey, environment: StoreEnvironment) {
    memo = SigningChain.Memo(rootKeyBytes: rootKey.rawRepresentation, xcodeShape: environment.signsAsXcode)
  }

  /// An identity from random bytes supplied by the caller (the core has no randomness).
  package init(randomBytes: [UInt8], environment: StoreEnvironment) {
    memo = SigningChain.Memo(
      rootKeyBytes: SigningChain.rootKeyBytes(fromRandom: randomBytes), xcodeShape: environment.signsAsXcode)
  }

  /// The identity of a session made without random bytes (older session files, sessions made
  /// in memory): a root key derived from the bundle id. Anyone can derive it; it proves nothing.
  package static func derived(bundleID: String, environment: StoreEnvironment) -> SigningIdentity {
    SigningIdentity(
      memo: .derived(name: bundleID, xcodeShape: environment.signsAsXcode) {
        SHA256.hash(Array("storesim-signing-key:\(bundleID)".utf8))
      })
  }

  private init(memo: SigningChain.Memo) { self.memo = memo }

  public static func == (a: SigningIdentity, b: SigningIdentity) -> Bool {
    a.memo.rootKeyBytes == b.memo.rootKeyBytes && a.memo.xcodeShape == b.memo.xcodeShape
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(memo.rootKeyBytes)
    hasher.combine(memo.xcodeShape)
  }

  /// The keys, the certificates and the encoded JWS header the root key makes.
  package var chain: SigningChain { memo.chain }
  /// The key the chain's root is made from (and signed with).
  package var rootKey: P256.PrivateKey { chain.rootKey }
  /// The key that signs JWS (the leaf's, or the Xcode certificate's).
  package var signingKey: P256.PrivateKey { chain.signingKey }
  /// `x5c`: the certificates, leaf first.
  package var certificates: [X509Certificate] { chain.certificates }
  /// `kid` (Xcode's signatures only).
  package var keyID: String? { memo.xcodeShape ? "Apple_Xcode_Key" : nil }
  /// The certificate a verifier trusts: the chain's root, or Xcode's single certificate.
  package var rootCertificate: X509Certificate { chain.rootCertificate }
}

extension StoreEnvironment {
  /// Whether a session in this environment signs as Xcode does (one self-signed certificate, `kid`).
  fileprivate var signsAsXcode: Bool { self == .xcode || self == .localTesting }
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
    memo = SigningChain.Memo(rootKeyBytes: Array(bytes), xcodeShape: environment.signsAsXcode)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Data(memo.rootKeyBytes).base64EncodedString(), forKey: .rootKey)
    try container.encode(memo.xcodeShape ? StoreEnvironment.xcode : .sandbox, forKey: .environment)
  }
}
