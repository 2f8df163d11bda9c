import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimServer

/// `storesim token`: a bearer token `serve` and `api --authorization` accept for the session, so
/// `curl` can call the App Store Server API on loopback (issue 44, item 7).
struct TokenCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "token", group: "Server",
    abstract: "Print a bearer token that 'serve' accepts for this session",
    discussion: """
      Prints a JWT shaped as Apple's App Store Server API requires (header alg ES256, kid, typ
      JWT; claims iss, iat, exp an hour later, aud appstoreconnect-v1, bid the session's bundle
      id), for 'curl -H "Authorization: Bearer $(storesim token)"'. With --api-key AuthKey.p8
      it is signed with the team's key, as Apple's libraries sign: needed when 'serve --api-key'
      or 'init --api-key' gave serve that key (the session's key id and issuer are used when
      --key-id and --issuer are not given). Without a team key, serve checks the shape and
      claims only, and the token is signed with a throwaway key. A token expires after an
      hour of the wall clock: ask for a new one.
      """,
    example: """
      curl -H "Authorization: Bearer $(storesim token)" http://127.0.0.1:PORT/inApps/v1/transactions/2000000000000001
      storesim token --api-key AuthKey_KEY123ABC.p8
      """)

  /// How long a token is valid: Apple refuses an `exp` more than an hour after `iat`.
  static let lifetime: TimeInterval = 3600
  /// The `kid` and `iss` of a token without a team key (serve does not check them then).
  static let throwawayKeyID = "STORESIM01"
  static let throwawayIssuer = "storesim-token"

  @OptionGroup var teamKey: APIKeyOptions
  @Arguments(0...0, "")
  var arguments: [String]

  func validate() throws {
    if teamKey.apiKey == nil, teamKey.keyID != nil || teamKey.issuer != nil {
      throw CLIError.usage("--key-id and --issuer go with --api-key AuthKey.p8", command: "token")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let key = try teamKey.apiKey.map { try KeyFile.read($0, option: "--api-key", inv) }
    return try inspecting(inv, needsNotifications: false) { store, _ in
      let (signingKey, kid, iss) = try Self.signer(
        key: key, keyID: teamKey.keyID, issuer: teamKey.issuer, session: store.state.teamKey, inv: inv)
      let now = inv.environment.now().timeIntervalSince1970.rounded(.down)
      let token = Self.token(
        key: signingKey, keyID: kid, issuer: iss, bundleID: store.state.bundleID, issuedAt: now)
      let expires = Date(timeIntervalSince1970: now + Self.lifetime)
      inv.emit(
        json: .object([
          "token": .string(token), "keyId": .string(kid), "issuer": .string(iss),
          "bundleId": .string(store.state.bundleID), "expiresDate": .string(ISO8601.string(expires)),
          "signedWithTeamKey": .bool(key != nil),
        ]), line: token)
      return .success
    }
  }

  /// The key to sign with, its `kid` and `iss`: the given team key (its id and issuer from the
  /// options or the session's), or a throwaway key when the session checks no signature.
  static func signer(
    key: P256.PrivateKey?, keyID: String?, issuer: String?, session teamKey: OfferKey?, inv: Invocation
  ) throws -> (P256.PrivateKey, String, String) {
    guard let key else {
      if let teamKey {
        throw CLIError.usage(
          "the session checks bearer tokens with the team's key \(teamKey.keyID) (init --api-key); "
            + "sign with it: storesim token --api-key AuthKey_\(teamKey.keyID).p8", command: "token")
      }
      return (
        P256.PrivateKey(deriving: inv.environment.randomBytes(32), label: "token"), throwawayKeyID, throwawayIssuer
      )
    }
    let sessionKey = teamKey.flatMap(APIKeyOptions.key)
    if let sessionKey, sessionKey.publicKey != key.publicKey {
      throw CLIError.usage(
        "--api-key is not the team's key the session was given (\(sessionKey.keyID)); serve would refuse its tokens",
        command: "token")
    }
    guard let kid = keyID ?? sessionKey?.keyID, let iss = issuer ?? sessionKey?.issuer, !kid.isEmpty, !iss.isEmpty
    else {
      throw CLIError.usage(
        "the session has no team key to take kid and iss from: give --key-id KID --issuer ISS with --api-key",
        command: "token")
    }
    return (key, kid, iss)
  }

  /// A compact JWS: `{"alg":"ES256","kid":KID,"typ":"JWT"}` over Apple's claims.
  static func token(key: P256.PrivateKey, keyID: String, issuer: String, bundleID: String, issuedAt: Double) -> String {
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string(keyID), "typ": .string("JWT")])
    let claims = JSONOutput.object([
      "iss": .string(issuer), "iat": .int(Int64(issuedAt)), "exp": .int(Int64(issuedAt + lifetime)),
      "aud": .string("appstoreconnect-v1"), "bid": .string(bundleID),
    ])
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(claims.rendered(pretty: false).utf8))
    return input + "." + JWS.base64URL(key.signature(for: input.utf8).rawRepresentation)
  }
}
