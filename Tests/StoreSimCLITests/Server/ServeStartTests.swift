import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession

/// `storesim serve`'s start: it reads the session once, and says what is true of bearer tokens
/// when it refuses a host (how it follows a changing session: `SessionRefreshTests` in the
/// server's tests).
@Suite struct ServeStartTests {
  /// A read with a token shaped as Apple's libraries make it, signed with another key than the
  /// session's.
  static func request() -> HTTPRequest {
    HTTPRequest(
      method: "GET", target: "/inApps/v1/transactions/2000000000000002",
      headers: ["authorization": ServerAPICall.token(exp: 1_767_225_600 + 900)])
  }

  /// `serve` over a session that holds the team's key: the session is read once at start, and
  /// the service that checks tokens with the key answers from that read.
  @Test func serveReadsTheSessionOnceWhenItHoldsTheTeamKey() throws {
    let cli = try SessionKeyOfferCLITests.session()
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600) })
    let parsed = try ArgumentScanner.scan(["serve"], commands: CommandTable.standard)
    let inv = Invocation(arguments: parsed, environment: env, table: CommandTable.standard)
    let location = try SessionLocation(shown: ".storesim/session.json", environment: env)
    let (service, key) = try servedSession(inv, location: location, sharedSecret: nil, apiKey: nil)
    #expect(key?.keyID == "KEY123ABC")
    // A token not signed with the team's key is refused, so the key is the one checking.
    #expect(service.answer(Self.request()).status == 401)
    // /verifyReceipt (no bearer token) reads the session: from what start read.
    let verify = HTTPRequest(method: "POST", target: "/verifyReceipt", headers: [:], body: Array("{}".utf8))
    _ = service.answer(verify)
    #expect(service.fileReads == 0)
  }

  /// `serve` on a session of `lazyLoadBytes(_:)` or more (issue 50, item 6; here every
  /// session): the head is checked before it listens and the rest is read on another thread,
  /// through the service that checks tokens with the team's key; what it answers is what the
  /// whole read answers.
  @Test func serveReadsALargeSessionOnAnotherThreadAndAnswersAsTheWholeRead() throws {
    let cli = try SessionKeyOfferCLITests.session()
    func served(_ variables: [String: String]) throws -> (SessionService, Authentication.Key?) {
      let env = CLIEnvironment(
        writeOut: { _ in }, writeErr: { _ in }, variables: variables, currentDirectory: cli.folder,
        now: { Date(timeIntervalSince1970: 1_767_225_600) })
      let parsed = try ArgumentScanner.scan(["serve"], commands: CommandTable.standard)
      let inv = Invocation(arguments: parsed, environment: env, table: CommandTable.standard)
      let location = try SessionLocation(shown: ".storesim/session.json", environment: env)
      return try servedSession(inv, location: location, sharedSecret: nil, apiKey: nil)
    }
    let (whole, _) = try served([:])
    let (early, key) = try served(["STORESIM_SERVE_BACKGROUND_READ_BYTES": "0"])
    #expect(key?.keyID == "KEY123ABC")
    #expect(early.answer(Self.request()).status == 401)
    let verify = HTTPRequest(method: "POST", target: "/verifyReceipt", headers: [:], body: Array("{}".utf8))
    #expect(early.answer(verify) == whole.answer(verify))
    #expect(early.fileReads == 0)
  }

  @Test func serveRefusingAHostSaysTokensAreVerifiedWhenTheSessionHoldsAKey() throws {
    let cli = try SessionKeyOfferCLITests.session()
    let r = cli.run(["serve", "--port", "0", "--host", "0.0.0.0"])
    #expect(r.code == 64)
    #expect(r.stderr.contains("--expose-to-network") && r.stderr.contains("verified with key KEY123ABC"))
    #expect(!r.stderr.contains("not verified"), "\(r.stderr)")
  }
}
