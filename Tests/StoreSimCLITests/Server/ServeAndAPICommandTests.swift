import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession

/// `storesim serve`'s service behind the HTTP server, over a session the CLI changes meanwhile.
@Suite struct ServeSessionTests {
  /// An invocation of `serve` in the harness's folder, its standard error given to `writeErr`.
  static func serving(
    _ cli: CLIHarness, writeErr: @escaping @Sendable (String) -> Void = { _ in }
  ) throws
    -> Invocation
  {
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: writeErr, currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_800_000_000) })
    let parsed = try ArgumentScanner.scan(["serve"], commands: CommandTable.standard)
    return Invocation(arguments: parsed, environment: env, table: CommandTable.standard)
  }

  /// `serve`'s service (`SessionService(inv, location:)`) over the harness's session.
  static func service(_ inv: Invocation) throws -> SessionService {
    SessionService(inv, location: try SessionLocation(shown: ".storesim/session.json", environment: inv.environment))
  }

  /// Item 12 of issue 27: beyond loopback only with --expose-to-network.
  @Test(arguments: ["0.0.0.0", "::", "192.168.1.10"])
  func serveRefusesToListenBeyondLoopback(host: String) throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit").code == 0)
    let r = cli.run(["serve", "--port", "0", "--host", host])
    #expect(r.code == 64)
    #expect(r.stderr.contains("--expose-to-network") && r.stderr.contains("not verified"))
    #expect(isLoopback("127.0.0.1") && isLoopback("::1") && isLoopback("localhost") && !isLoopback(host))
  }

  @Test func serveAnswersFromTheSessionFileAndSeesOtherProcessesChanges() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy subscription.pro").code == 0)
    let service = try Self.service(Self.serving(cli))
    let running = try RunningHTTPServer { service.answer($0) }
    defer { running.stop() }
    let client = try HTTPTestClient(port: running.server.port)
    let auth = ServerAPICall.token(exp: 1_800_000_000 + 600).dropFirst(0)
    func get(_ path: String) -> (status: Int, headers: [String: String], body: String)? {
      client.send("GET \(path) HTTP/1.1\r\nAuthorization: \(auth)\r\n\r\n")
      return client.response()
    }
    #expect(get("/inApps/v1/transactions/2000000000000001")?.status == 200)
    #expect(get("/inApps/v1/transactions/2000000000000002")?.status == 404)
    #expect(cli.run("buy nonconsumable.car").code == 0)
    #expect(get("/inApps/v1/transactions/2000000000000002")?.status == 200)
    // Read without the outbox so far: notification history needs it and must see it all
    // (the notifications storesim attempted to deliver, within the last 30 days).
    cli.run("notifications deliver http://127.0.0.1:9/")
    let history = #"{"startDate":1767139200000,"endDate":9999999999999}"#
    client.send(
      "POST /inApps/v1/notifications/history HTTP/1.1\r\nAuthorization: \(auth)\r\nContent-Length: \(history.utf8.count)\r\n\r\n\(history)"
    )
    let answer = try #require(client.response())
    #expect(answer.status == 200)
    #expect(answer.body.components(separatedBy: "signedPayload").count - 1 == 2)
    client.send("GET /inApps/v1/transactions/2000000000000001 HTTP/1.1\r\n\r\n")
    #expect(client.response()?.status == 401)
  }
}

/// `storesim api` answers what `serve` would send, without a socket.
@Suite struct APICommandTests {
  @Test func apiCommandPrintsWhatServeWouldSend() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy subscription.pro").code == 0)
    let ok = cli.run(["api", "GET", "/inApps/v1/transactions/2000000000000001"])
    #expect(ok.code == 0)
    #expect(ok.stdout.hasPrefix("HTTP/1.1 200 OK\n{\"signedTransactionInfo\":\""))
    let missing = cli.run(["api", "GET", "/inApps/v1/transactions/5"])
    #expect(missing.code == 1)
    #expect(
      missing.stdout
        == "HTTP/1.1 404 Not Found\n{\"errorCode\":4040010,\"errorMessage\":\"Transaction id not found.\"}\n")
    let unauthenticated = cli.run([
      "api", "GET", "/inApps/v1/transactions/2000000000000001", "--authorization", "Bearer x",
    ])
    #expect(unauthenticated.stdout.hasPrefix("HTTP/1.1 401 Unauthorized\n"))
    #expect(cli.run(["api", "FETCH", "/x"]).code == 64)
    #expect(cli.run(["api", "POST", "/inApps/v1/notifications/history", "--body", "nope.json"]).code == 66)
  }

  /// `storesim api POST /verifyReceipt` answers as `serve`'s service does (it answered 404: the
  /// route table has no verifyReceipt, which `serve` answers before the table).
  @Test func theAPICommandAnswersVerifyReceiptAsServeDoes() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy subscription.standard")
    let receipt = try JSONSerialization.jsonObject(with: Data(cli.run("receipt --json").stdout.utf8)) as? [String: Any]
    let data = try #require(receipt?["latest_receipt"] as? String)
    let body = JSONOutput.object(["receipt-data": .string(data)]).rendered(pretty: false)
    try body.write(toFile: cli.folder + "/body.json", atomically: true, encoding: .utf8)
    let service = try ServeSessionTests.service(ServeSessionTests.serving(cli))
    for path in ["/sandbox/verifyReceipt", "/verifyReceipt"] {
      let served = service.answer(HTTPRequest(method: "POST", target: path, body: Array(body.utf8)))
      let answered = cli.run(["api", "POST", path, "--body", "body.json"])
      #expect(served.status == 200)
      #expect(answered.stdout == "HTTP/1.1 200 OK\n\(served.body)\n", "\(answered.stderr)")
    }
    #expect(cli.run(["api", "POST", "/sandbox/verifyReceipt", "--body", "body.json"]).stdout.contains(#""status":0"#))
  }
}
