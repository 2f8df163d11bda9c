import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimServer
import StoreSimSession

/// `--api-key AuthKey.p8 --key-id KID --issuer ISS`: the team's In-App Purchase key, declared
/// once for `init` (verifies signed offers and bearer tokens), `serve` and `api` (bearer tokens
/// must be signed with it) and `token` (signs with it).
struct APIKeyOptions: OptionGroupDeclaration {
  @Option("<path>", help: "the team's In-App Purchase key (.p8), which signs bearer tokens and offers")
  var apiKey: String?
  @Option("<kid>", help: "the key id of --api-key (kid, keyIdentifier)")
  var keyID: String?
  @Option("<iss>", help: "the issuer id of --api-key (iss)")
  var issuer: String?

  /// Whether any of the three is given.
  var isGiven: Bool { apiKey != nil || keyID != nil || issuer != nil }

  /// The key bearer tokens must be signed with (serve, api); nil when none of the three is
  /// given; all three go together.
  func key(_ inv: Invocation, command: String) throws -> Authentication.Key? {
    guard isGiven else { return nil }
    guard let apiKey, let keyID, let issuer, !keyID.isEmpty, !issuer.isEmpty else {
      throw CLIError.usage("--api-key, --key-id and --issuer go together; give all three", command: command)
    }
    let key = try KeyFile.read(apiKey, option: "--api-key", inv)
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
