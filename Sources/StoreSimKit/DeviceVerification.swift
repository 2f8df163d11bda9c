import Foundation
import StoreSim
import StoreSimCrypto

/// `deviceVerification` and `deviceVerificationNonce`, computed as Apple describes for
/// `AppStore.deviceVerificationID`: the SHA-384 hash of the lowercased nonce followed by the
/// lowercased device verification identifier.
enum DeviceVerification {
  /// A nonce that stays the same for the same signed value in a session.
  static func nonce(_ seed: String, core: SessionCore) -> UUID {
    var bytes = SHA384.hash(Array((seed + " " + core.deviceVerificationID.uuidString).utf8))
    bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
    bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
        bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  static func value(nonce: UUID, core: SessionCore) -> Data {
    let text = nonce.uuidString.lowercased() + core.deviceVerificationID.uuidString.lowercased()
    return Data(SHA384.hash(Array(text.utf8)))
  }
}
