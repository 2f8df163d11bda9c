import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimServer
import StoreSimSession

/// `--api-key AuthKey.p8 --key-id KID --issuer ISS` (serve, api): the team's key bearer tokens
/// must be signed with; nil when none of the three is given.
enum APIKeyOptions {
  static let keyHelp = "the team's In-App Purchase key (.p8): bearer tokens must be signed with it"
  static let keyIDHelp = "the key id tokens must carry as kid (with --api-key)"
  static let issuerHelp = "the issuer id tokens must carry as iss (with --api-key)"

  static func key(
    _ inv: Invocation, path: String?, keyID: String?, issuer: String?, command: String
  ) throws
    -> Authentication.Key?
  {
    guard path != nil || keyID != nil || issuer != nil else { return nil }
    guard let path, let keyID, let issuer, !keyID.isEmpty, !issuer.isEmpty else {
      throw CLIError.usage("--api-key, --key-id and --issuer go together; give all three", command: command)
    }
    let key = try KeyFile.read(path, option: "--api-key", inv)
    return Authentication.Key(publicKey: key.publicKey, keyID: keyID, issuer: issuer)
  }

  /// The team's key given to the session at `init`, as bearer tokens are checked with it.
  static func key(_ teamKey: OfferKey) -> Authentication.Key? {
    guard let issuer = teamKey.issuer, let data = Data(base64Encoded: teamKey.publicKey),
      let publicKey = P256.PublicKey(x963Representation: Array(data))
    else { return nil }
    return Authentication.Key(publicKey: publicKey, keyID: teamKey.keyID, issuer: issuer)
  }
}
