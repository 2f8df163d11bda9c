import StoreSimCrypto

/// JWS signed with a session's identity: StoreSimCrypto's compact ES256 JWS under the identity's
/// chain (`state.signer`).
extension JWS {
  /// Signs a JSON payload with the session's identity.
  package static func sign(_ payload: JSONOutput, signer: SigningIdentity) -> String {
    sign(payload: Array(payload.rendered(pretty: false).utf8), chain: signer.chain)
  }

  /// Signs payload bytes.
  package static func sign(payload: [UInt8], signer: SigningIdentity) -> String {
    sign(payload: payload, chain: signer.chain)
  }

  /// The payload bytes of a JWS that `signer` signed (its header's `x5c` is the signer's chain
  /// and its signature verifies with the signer's key), or nil.
  package static func verify(_ jws: String, signer: SigningIdentity) -> [UInt8]? {
    verify(jws, chain: signer.chain)
  }
}
