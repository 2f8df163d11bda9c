import Foundation
import Testing

@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession

/// The logging layer `serve` and `api` share (`RequestLog`): the same line for the same
/// request, on standard error. Peers' ports and times vary, so they are replaced before the
/// comparison with the golden (`PORT`, `Tms`).
@Suite struct RequestLogGoldenTests {
  /// What varies between runs: the client's port and the milliseconds.
  static func normalized(_ log: String) -> String {
    log.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.replacingOccurrences(of: #"^127\.0\.0\.1:[0-9]+ "#, with: "127.0.0.1:PORT ", options: .regularExpression)
        .replacingOccurrences(of: #" [0-9]+\.[0-9]ms$"#, with: " Tms", options: .regularExpression)
    }.joined(separator: "\n")
  }

  static let session = [
    "init AppleSample.storekit --start 2026-01-01T00:00:00Z --bundle-id com.example.app", "buy subscription.pro",
  ]

  /// What the server's invocation wrote on standard error.
  final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func append(_ s: String) { lock.withLock { text += s } }
    var all: String { lock.withLock { text } }
  }

  @Test func serveLogsOneLinePerRequestInTheSharedFormat() throws {
    let cli = try CLIHarness()
    for line in Self.session { #expect(cli.run(line).code == 0) }
    let err = Captured()
    let inv = try ServeSessionTests.serving(cli, writeErr: { err.append($0) })
    let service = try ServeSessionTests.service(inv)
    let log = RequestLog(inv)
    let running = try RunningHTTPServer(refusalBody: appStoreRefusal, log: { log.record($0) }) { service.answer($0) }
    defer { running.stop() }
    let client = try HTTPTestClient(port: running.server.port)
    let auth = ServerAPICall.token(exp: 1_800_000_000 + 600)
    for (method, target, token) in [
      ("GET", "/inApps/v1/transactions/2000000000000001", true), ("GET", "/inApps/v1/transactions/5", true),
      ("GET", "/inApps/v1/transactions/2000000000000001", false), ("DELETE", "/inApps/v1/transactions/1", true),
      ("GET", "/nowhere?x=1", true),
    ] {
      client.send("\(method) \(target) HTTP/1.1\r\n" + (token ? "Authorization: \(auth)\r\n" : "") + "\r\n")
      #expect(client.response() != nil)
    }
    client.send("NOT A REQUEST\r\n\r\n")
    #expect(client.response()?.status == 400)
    assertGolden(Self.normalized(err.all), "serve-log.txt")
  }

  @Test func apiWithLogWritesServesLineOnStandardErrorAndKeepsStandardOutputTheAnswer() throws {
    let cli = try CLIHarness()
    for line in Self.session { #expect(cli.run(line).code == 0) }
    var log = ""
    for (method, target) in [
      ("GET", "/inApps/v1/transactions/2000000000000001"), ("GET", "/inApps/v1/transactions/5"),
      ("DELETE", "/inApps/v1/transactions/1"), ("GET", "/nowhere?x=1"),
    ] {
      let plain = cli.run(["api", method, target])
      let logged = cli.run(["api", method, target, "--log"])
      #expect(logged.stdout == plain.stdout && logged.code == plain.code)
      #expect(plain.stderr.isEmpty)
      log += logged.stderr
    }
    let unauthenticated = cli.run([
      "api", "GET", "/inApps/v1/transactions/2000000000000001", "--authorization", "Bearer x", "--log",
    ])
    #expect(unauthenticated.stdout.hasPrefix("HTTP/1.1 401"))
    log += unauthenticated.stderr
    assertGolden(Self.normalized(log), "api-log.txt")
  }
}
