import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer

/// `storesim retention` against a developer server on loopback, and the performance test.
@Suite struct RetentionCommandTests {
  /// The message id of the retention tests (as `RetentionEndpointTests.message` in the server's tests).
  static let message = "6f1c2b9e-0d4a-4c1e-9b1f-3a2d5e7c8b01"

  /// A session file with a monthly subscription, one message, a default message and the
  /// realtime URL `url` (if any).
  static func session(_ cli: CLIHarness, url: String?) {
    cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy com.example.premium.monthly")
    cli.run(["api", "PUT", "/inApps/v1/messaging/message/\(message)", "--data", #"{"header":"Stay","body":"Please."}"#])
    cli.run([
      "api", "PUT", "/inApps/v1/messaging/default/com.example.premium.monthly/en-US", "--data",
      #"{"messageIdentifier":"\#(message)"}"#,
    ])
    if let url {
      let r = cli.run(["api", "PUT", "/inApps/v1/messaging/realtime/url", "--data", #"{"realtimeURL":"\#(url)"}"#])
      #expect(r.code == 0, "\(r.stdout)")
    }
  }

  @Test func theSignedRequestIsPostedToTheRealtimeURLAndTheAnswerShown() throws {
    let server = try TestHTTPServer(
      .ipv4,
      [
        .respond(status: 200, body: #"{"message":{"messageIdentifier":"\#(Self.message)"}}"#)
      ])
    defer { server.stop() }
    let cli = try CLIHarness()
    Self.session(cli, url: server.base + "/retention")
    let r = cli.run("retention com.example.premium.monthly --json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains(#""outcome": "ok""#) && r.stdout.contains(#""header": "Stay""#))
    let request = try #require(server.requests.first)
    #expect(request.method == "POST" && request.target == "/retention")
    #expect(request.header("content-type") == "application/json")
    let body = try JSONParser.parse(request.body)
    #expect(body.members?.map(\.key) == ["signedPayload"])
    guard case .string(let jws)? = body["signedPayload"]?.value else { throw CLIError.failed("no signedPayload") }
    let payload = String(decoding: try #require(JWS.payload(of: jws)), as: UTF8.self)
    #expect(payload.contains(#""productId":"com.example.premium.monthly""#))
  }

  @Test func anAnswerPastTheDeadlineFallsBackToTheDefaultMessage() throws {
    let server = try TestHTTPServer(.ipv4, [.silent])
    defer { server.stop() }
    let cli = try CLIHarness()
    Self.session(cli, url: server.base + "/retention")
    let r = cli.run("retention com.example.premium.monthly --timeout 50ms")
    #expect(r.code == 0)
    #expect(r.stdout.contains(": timeout\nfallback: the default message\nshown: \"Stay\" Please."))
    #expect(cli.run("retention --list").stdout.contains("timeout"))
  }

  @Test func declineCancelsAsCancelDoesAndIsRecorded() throws {
    let cli = try CLIHarness()
    Self.session(cli, url: nil)
    let r = cli.run("retention com.example.premium.monthly --decline")
    #expect(r.code == 0)
    #expect(r.stdout.contains("notification DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"))
    let list = cli.run("retention --list --json").stdout
    #expect(list.contains(#""action": "declined""#) && list.contains(#""outcome": "no realtime URL""#))
    // Without auto-renew there is no cancel flow; nothing is recorded.
    let again = cli.run("retention com.example.premium.monthly")
    #expect(again.code == 1 && again.stderr.contains("does not renew"))
    #expect(cli.run("retention --list --json").stdout.components(separatedBy: "requestIdentifier").count == 2)
  }

  @Test func acceptingAPromotionalOfferRedeemsIt() throws {
    let claims = JSONOutput.object([
      "aud": .string("promotional-offer"), "bid": .string("com.example.app"), "nonce": .string(UUID().uuidString),
      "productId": .string("com.example.premium.monthly"), "offerIdentifier": .string("premium.monthly.comeback"),
      "transactionId": .string("2000000000000001"), "iat": .int(1),
    ])
    let jws = "eyJhbGciOiJFUzI1NiJ9." + JWS.base64URL(Array(claims.rendered(pretty: false).utf8)) + ".c2ln"
    let server = try TestHTTPServer(
      .ipv4,
      [
        .respond(
          status: 200,
          body:
            #"{"promotionalOffer":{"messageIdentifier":"\#(Self.message)","promotionalOfferSignatureV2":"\#(jws)"}}"#)
      ])
    defer { server.stop() }
    let cli = try CLIHarness()
    Self.session(cli, url: server.base + "/")
    let r = cli.run("retention com.example.premium.monthly --accept")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("[offer premium.monthly.comeback on com.example.premium.monthly]"))
    #expect(r.stdout.contains("notification OFFER_REDEEMED"))
  }

  @Test(arguments: [
    ("retention", "missing product id"),
    ("retention com.example.premium.monthly --accept --decline", "not both"),
    ("retention --list com.example.premium.monthly", "--list takes no product"),
    ("retention com.example.premium.monthly --timeout 0ms", "--timeout must be"),
    ("retention com.example.premium.monthly --locale english", "--locale must be"),
    ("retention com.example.premium.nope", "nope"),
    ("retention com.example.coins.100", "not an auto-renewable"),
  ])
  func badInputIsOneLineAndChangesNothing(line: String, text: String) throws {
    let cli = try CLIHarness()
    Self.session(cli, url: nil)
    let before = try Data(contentsOf: URL(fileURLWithPath: cli.folder + "/.storesim/session.json"))
    let r = cli.run(line)
    #expect(r.code == 64, "\(r.stderr)")
    #expect(r.stderr.contains(text), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").first?.hasPrefix("error: ") == true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: cli.folder + "/.storesim/session.json")) == before)
  }

  @Test func thePerformanceTestSendsRealRequestsAndReportsTheirResult() throws {
    let server = try TestHTTPServer(
      .ipv4,
      [
        .respond(status: 200, body: #"{"message":{"messageIdentifier":"\#(Self.message)"}}"#)
      ])
    defer { server.stop() }
    let cli = try CLIHarness()
    Self.session(cli, url: server.base + "/r")
    let start = cli.run([
      "api", "POST", "/inApps/v1/messaging/performanceTest", "--data", #"{"originalTransactionId":"2000000000000001"}"#,
    ])
    #expect(start.code == 0, "\(start.stdout)")
    #expect(server.requests.count == ServerAPI.performanceTestRequests)
    let id = try #require(start.stdout.components(separatedBy: #""requestId":""#).last?.prefix(36))
    let result = cli.run("api GET /inApps/v1/messaging/performanceTest/result/\(id)")
    #expect(result.stdout.contains(#""result":"PASS""#) && result.stdout.contains(#""successRate":100"#))
    #expect(cli.run("api GET /inApps/v1/messaging/performanceTest/result/nope").stdout.contains("4000212"))
    #expect(
      cli.run("api GET /inApps/v1/messaging/performanceTest/result/\(UUID().uuidString)").stdout.contains("4040018"))
    let notOriginal = cli.run([
      "api", "POST", "/inApps/v1/messaging/performanceTest", "--data", #"{"originalTransactionId":"abc"}"#,
    ])
    #expect(notOriginal.stdout.contains("4000006"))
  }

  @Test func aFailingServerFailsThePerformanceTest() throws {
    let server = try TestHTTPServer(.ipv4, [.respond(status: 500)])
    defer { server.stop() }
    let cli = try CLIHarness()
    Self.session(cli, url: server.base + "/r")
    let start = cli.run([
      "api", "POST", "/inApps/v1/messaging/performanceTest", "--data", #"{"originalTransactionId":"2000000000000001"}"#,
    ])
    let id = try #require(start.stdout.components(separatedBy: #""requestId":""#).last?.prefix(36))
    let result = cli.run("api GET /inApps/v1/messaging/performanceTest/result/\(id)").stdout
    #expect(result.contains(#""result":"FAIL""#) && result.contains(#""UNSUCCESSFUL_HTTP_RESPONSE_CODE":10"#))
  }

  @Test func aMessageReviewedAsRejectedIsNeitherAnswerNorDefault() throws {
    let server = try TestHTTPServer(
      .ipv4, [.respond(status: 200, body: #"{"message":{"messageIdentifier":"\#(Self.message)"}}"#)])
    defer { server.stop() }
    let cli = try CLIHarness()
    Self.session(cli, url: server.base + "/")
    let review = cli.run("retention --review \(Self.message.uppercased()) --state rejected")
    #expect(review.code == 0 && review.stdout == "message \(Self.message) is REJECTED\n", "\(review.stderr)")
    #expect(cli.run("api GET /inApps/v1/messaging/message/list").stdout.contains(#""messageState":"REJECTED""#))
    let r = cli.run("retention com.example.premium.monthly --json").stdout
    #expect(r.contains("is REJECTED, not APPROVED") && r.contains(#""fallback": "none""#), "\(r)")
    let unknown = cli.run("retention --review \(UUID().uuidString) --state PENDING")
    #expect(unknown.code == 64 && unknown.stderr.contains("no uploaded message or image"))
    #expect(cli.run("retention --state PENDING").stderr.contains("--review and --state go together"))
    #expect(cli.run("retention --review \(Self.message) --state LATER").stderr.contains("--state must be"))
  }
}
