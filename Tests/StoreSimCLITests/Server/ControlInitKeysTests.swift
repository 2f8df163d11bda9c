import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimCrypto
@testable import StoreSimHTTP
@testable import StoreSimSession

/// `POST /storesim/v1/sessions` takes init's two keys as PEM text in its body (issue 46): a
/// file on the server's disk is never named, so the keys come in the request itself.
@Suite struct ControlInitKeysTests {
  static let root = P256.PrivateKey(deriving: Array("control root".utf8), label: "root")
  static let team = P256.PrivateKey(deriving: Array("control team".utf8), label: "team")

  /// A body making session `id` with the sample configuration and `extra` members.
  static func body(_ id: String, _ extra: [String: JSONOutput]) throws -> String {
    var members: [String: JSONOutput] = [
      "session": .string(id), "start": .string("2026-01-01T00:00:00Z"),
    ]
    members.merge(extra) { $1 }
    let object = JSONOutput.object(members).rendered(pretty: false)
    return #"{"configuration": \#(try ControlAPITests.configuration), "# + object.dropFirst()
  }

  /// Issue 46, control-api-init-keys: `signing-key` (the chain's root key) and `api-key` (the
  /// team's In-App Purchase key, with `key-id` and `issuer`) are the keys' PEM text; the session
  /// signs with the one and keeps the other's public half, as `init --signing-key FILE
  /// --api-key FILE` makes it.
  @Test func initTakesItsKeysAsPEMTextInTheBody() throws {
    let cli = try CLIHarness()
    let control = try ControlAPITests.control(cli)
    let made = control.answer(
      ControlAPITests.request(
        "POST", "/storesim/v1/sessions",
        try Self.body(
          "keyed",
          [
            "signing-key": .string(Self.root.pemRepresentation), "api-key": .string(Self.team.pemRepresentation),
            "key-id": .string("KEY123ABC"), "issuer": .string("issuer-5678"),
          ])))
    #expect(made.status == 201, "\(made.body)")
    let state = try SessionFile.read(cli.folder + "/sessions/keyed.json", shownAs: "keyed.json").state
    #expect(state.signing?.rootKey == Self.root)
    #expect(state.teamKey == OfferKey(keyID: "KEY123ABC", publicKey: Self.team.publicKey, issuer: "issuer-5678"))
  }

  /// Issue 46, control-api-init-keys-refused: a key that is not a P-256 private key's PEM (or
  /// not a string) is a 400 naming its property, its text never in the answer, and no session
  /// (nor its configuration) is made.
  @Test func aBadKeyIsA400NamingItAndNothingIsMade() throws {
    let cli = try CLIHarness()
    let control = try ControlAPITests.control(cli)
    let broken = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0IHRleHQ=\n-----END PRIVATE KEY-----\n"
    let team: [String: JSONOutput] = ["key-id": .string("KEY123ABC"), "issuer": .string("issuer-5678")]
    let cases: [(String, [String: JSONOutput])] = [
      ("signing-key", ["signing-key": .string(broken)]),
      ("signing-key", ["signing-key": .int(42)]),
      ("signing-key", ["signing-key": .string("/etc/passwd")]),
      ("api-key", team.merging(["api-key": .string(broken)]) { $1 }),
      ("api-key", ["api-key": .string(Self.root.publicKey.pemRepresentation)]),
    ]
    for (field, extra) in cases {
      let refused = control.answer(
        ControlAPITests.request("POST", "/storesim/v1/sessions", try Self.body("refused", extra)))
      let error = ControlAPITests.json(refused)?["error"]
      #expect(refused.status == 400 && error?["field"]?.value == .string(field), "\(extra): \(refused.body)")
      #expect(!refused.body.contains("c2VjcmV0") && !refused.body.contains("passwd"), "\(refused.body)")
    }
    let left = (try? FileManager.default.contentsOfDirectory(atPath: cli.folder + "/sessions")) ?? []
    #expect(!left.contains { $0.hasPrefix("refused") }, "\(left)")
    // The three of the team's key still go together.
    let alone = control.answer(
      ControlAPITests.request(
        "POST", "/storesim/v1/sessions",
        try Self.body("alone", ["api-key": .string(Self.team.pemRepresentation)])))
    #expect(alone.status == 400, "\(alone.body)")
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/sessions/alone.json"))
  }
}
