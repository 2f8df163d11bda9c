import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimCrypto
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimSession

/// `storesim token` (issue 44, item 7): `curl` against `serve` got a 401 with no way forward;
/// the token `storesim token` prints is accepted by serve, with the team's key when one is set.
@Suite struct TokenCommandTests {
  static let team = P256.PrivateKey(deriving: [51], label: "token team key")
  static let stranger = P256.PrivateKey(deriving: [52], label: "token stranger")

  /// `serve`'s service over the harness's session, on the harness's clock.
  static func serve(_ cli: CLIHarness) throws -> (RunningHTTPServer, HTTPTestClient) {
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600 + 30) })
    let parsed = try ArgumentScanner.scan(["serve"], commands: CommandTable.standard)
    let inv = Invocation(arguments: parsed, environment: env, table: CommandTable.standard)
    // As serve makes it: the team's key given at init, when there is one, checks the tokens.
    let (service, _) = try servedSession(
      inv, location: try SessionLocation(shown: ".storesim/session.json", environment: env), sharedSecret: nil,
      apiKey: nil)
    let running = try RunningHTTPServer { service.answer($0) }
    return (running, try HTTPTestClient(port: running.server.port))
  }

  /// A curl-style request: `curl -H "Authorization: Bearer TOKEN" URL`.
  static func get(_ client: HTTPTestClient, token: String?) -> (status: Int, body: String)? {
    let header = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
    client.send("GET /inApps/v1/transactions/2000000000000001 HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)\r\n")
    return client.response().map { ($0.status, $0.body) }
  }

  static func token(_ cli: CLIHarness, _ line: String = "token") -> String {
    let r = cli.run(line)
    #expect(r.code == 0, "\(line): \(r.stderr)")
    return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func aTokenFromStoresimTokenIsAcceptedByServeAndA401SaysHowToGetOne() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy subscription.pro").code == 0)
    let (running, client) = try Self.serve(cli)
    defer { running.stop() }
    let refused = try #require(Self.get(client, token: nil))
    #expect(refused.status == 401)
    #expect(refused.body.contains("storesim token"), "\(refused.body)")
    let token = Self.token(cli)
    #expect(token.split(separator: ".").count == 3 && !token.contains(" "))
    let answered = try #require(Self.get(client, token: token))
    #expect(answered.status == 200, "\(answered.body)")
    #expect(answered.body.contains("signedTransactionInfo"))
    // The claims are Apple's: the session's bundle id, an hour at most.
    let json = cli.run("token --json").stdout
    #expect(json.contains(#""bundleId" : "com.example.app""#) || json.contains(#""bundleId": "com.example.app""#))
    #expect(json.contains("2026-01-01T01:00:00Z"), "\(json)")
  }

  @Test func withTheTeamsKeyTheTokenIsSignedWithItAndOtherwiseRefusedUpFront() throws {
    let cli = try CLIHarness()
    try Self.team.pemRepresentation.write(toFile: cli.folder + "/AuthKey.p8", atomically: true, encoding: .utf8)
    try Self.stranger.pemRepresentation.write(toFile: cli.folder + "/Other.p8", atomically: true, encoding: .utf8)
    let initialized = cli.run(
      "init AppleSample.storekit --start 2026-01-01T00:00:00Z --api-key AuthKey.p8 --key-id KEY123ABC --issuer issuer-5678"
    )
    #expect(initialized.code == 0, "\(initialized.stderr)")
    #expect(cli.run("buy subscription.pro").code == 0)
    let before = try String(contentsOfFile: cli.folder + "/.storesim/session.json", encoding: .utf8)
    // Without the key: one line saying which key, nothing printed on stdout.
    let unkeyed = cli.run("token")
    #expect(unkeyed.code == 64 && unkeyed.stdout.isEmpty)
    #expect(
      unkeyed.stderr.contains("team's key KEY123ABC") && unkeyed.stderr.contains("--api-key"), "\(unkeyed.stderr)")
    let other = cli.run("token --api-key Other.p8")
    #expect(other.code == 64 && other.stderr.contains("is not the team's key"), "\(other.stderr)")
    #expect(cli.run("token --key-id K").code == 64)
    #expect(try String(contentsOfFile: cli.folder + "/.storesim/session.json", encoding: .utf8) == before)

    let (running, client) = try Self.serve(cli)
    defer { running.stop() }
    let signed = Self.token(cli, "token --api-key AuthKey.p8")
    #expect(Self.get(client, token: signed)?.status == 200)
    // A token of the right shape under another key is refused: the signature is checked.
    let wrong = TokenCommand.token(
      key: Self.stranger, keyID: "KEY123ABC", issuer: "issuer-5678", bundleID: "com.example.app",
      issuedAt: 1_767_225_600)
    #expect(Self.get(client, token: wrong)?.status == 401)
  }
}
