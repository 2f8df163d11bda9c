import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCrypto
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimSession

/// `serve` on a large session (issue 50, item 6): the file's head is checked before it listens,
/// the whole session is read on another thread, and meanwhile a request about one transaction
/// is answered from that customer's row alone, byte for byte what the whole session answers.
@Suite struct EarlyAnswerTests {
  typealias C = ServerAPIContractTests

  /// Every transaction of the fixture (the family member's copies and a refunded one included).
  static let transactions = (1...9).map { "2000000000000\(String(format: "%03d", $0))" }

  static func info(_ id: String) -> HTTPRequest { QuickAnswerTests.request("/inApps/v1/transactions/\(id)") }

  /// What a service that read the whole session answers (the reference).
  static func whole(_ server: LiveServer, _ request: HTTPRequest) -> HTTPResponse {
    SessionService(location: server.location, now: { LiveServer.wallClock }, warning: { _ in }).answer(request)
  }

  /// A service over the server's session whose head only was checked (its whole read not begun).
  static func headOnly(_ server: LiveServer) throws -> SessionService {
    let service = SessionService(location: server.location, now: { LiveServer.wallClock }, warning: { _ in })
    let head = try service.checkHead(lazyFrom: 0)
    #expect(head?.state.bundleID == "com.example.app" && head?.state.customers.isEmpty == true)
    return service
  }

  /// `service.answer(request)` before the whole read begins: a request the early path does not
  /// answer would wait for that read, so after 10 s the read is begun and the test fails.
  static func early(_ service: SessionService, _ request: HTTPRequest) -> HTTPResponse {
    let answers = SessionRefreshTests.Answers()
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) { answers.append(service.answer(request)) }
    if done.wait(timeout: .now() + 10) == .timedOut {
      Issue.record("\(request.target) waited for the whole read")
      service.loadInBackground()
      done.wait()
    }
    return answers.all[0]
  }

  @Test func aTransactionIsAnsweredFromItsCustomersRowAsTheWholeSessionAnswersIt() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let service = try Self.headOnly(server)
    for id in Self.transactions {
      let early = Self.early(service, Self.info(id))
      #expect(early.status == 200)
      #expect(early == Self.whole(server, Self.info(id)), "transaction \(id)")
    }
    #expect(service.earlyAnswers == Self.transactions.count)
    #expect(service.fileReads == 0)
  }

  @Test func aChangeByAnotherProcessIsSeenByTheNextEarlyAnswer() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let service = try Self.headOnly(server)
    let before = Self.early(service, Self.info(C.lifetime))
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    let after = Self.early(service, Self.info(C.lifetime))
    #expect(after != before && after == Self.whole(server, Self.info(C.lifetime)))
    #expect(service.earlyAnswers == 2)
  }

  /// `serve` on a session holding the team's key checks tokens with it through the service
  /// `using(apiKey:)` makes after `checkHead`: that one answers early too.
  @Test func theServiceThatChecksTheTeamsKeyAnswersEarlyToo() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let team = P256.PrivateKey(deriving: [5], label: "team")
    let keyed = try Self.headOnly(server).using(
      apiKey: Authentication.Key(publicKey: team.publicKey, keyID: "KEY123", issuer: "issuer"))
    let header = JSONOutput.object(["alg": .string("ES256"), "kid": .string("KEY123"), "typ": .string("JWT")])
    let claims = JSONOutput.object([
      "iss": .string("issuer"), "aud": .string("appstoreconnect-v1"), "bid": .string("com.example.app"),
      "exp": .int(Int64(LiveServer.wallClock.timeIntervalSince1970) + 900),
    ])
    let input =
      JWS.base64URL(Array(header.rendered(pretty: false).utf8)) + "."
      + JWS.base64URL(Array(claims.rendered(pretty: false).utf8))
    let token = "Bearer " + input + "." + JWS.base64URL(team.signature(for: Array(input.utf8)).rawRepresentation)
    let request = QuickAnswerTests.request("/inApps/v1/transactions/\(C.lifetime)", auth: token)
    let early = Self.early(keyed, request)
    #expect(early.status == 200 && early == Self.whole(server, Self.info(C.lifetime)))
    #expect(keyed.earlyAnswers == 1)
  }

  @Test func otherRequestsWaitForTheWholeReadAndAnswerAsItDoes() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let service = try Self.headOnly(server)
    // Not one customer's: an unknown id, an appTransactionId, a family member's statuses (they
    // come from the organiser's subscription), the notifications.
    let requests = [
      Self.info("2000000000000099"), Self.info("704000000000000001"),
      QuickAnswerTests.request("/inApps/v1/subscriptions/2000000000000005"),
      QuickAnswerTests.request("/inApps/v2/history/704000000000000001"),
      QuickAnswerTests.request(
        "/inApps/v1/notifications/history", method: "POST", body: #"{"startDate":0,"endDate":1893456000000}"#),
    ]
    let answers = SessionRefreshTests.Answers()
    let done = DispatchGroup()
    for request in requests {
      DispatchQueue.global().async(group: done) { answers.append(service.answer(request)) }
    }
    // None of them is answered before the session is read.
    #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
    #expect(answers.all.isEmpty)
    service.loadInBackground()
    #expect(done.wait(timeout: .now() + 30) == .success)
    let expected = requests.map { Self.whole(server, $0) }
    #expect(Set(answers.all.map(\.body)) == Set(expected.map(\.body)))
    #expect(answers.all.count == requests.count)
    #expect(service.earlyAnswers == 0)
    // Once read, a transaction is answered from the whole session.
    #expect(service.answer(Self.info(C.lifetime)) == Self.whole(server, Self.info(C.lifetime)))
    #expect(service.earlyAnswers == 0)
  }
}
