import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession
@testable import StoreSimSync

/// The control API (issue 46): sessions, every session command from the one table, refusals
/// as 4xx JSON with nothing changed, the Host/Origin/token guard, a session's Server API under
/// its base URL. Answered as `serve` answers it, without a socket (`ControlAPI.answer`).
@Suite struct ControlAPITests {
  /// A control API over a harness folder, serving its `.storesim/session.json` as `default`.
  static func control(
    _ cli: CLIHarness, limit: Int = ControlSessions.defaultLimit, token: String? = nil, exposed: Bool = false
  ) throws -> ControlAPI {
    var env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600) })
    env.randomBytes = { count in (0..<count).map { _ in UInt8.random(in: 0...255) } }
    let location = try SessionLocation(shown: ".storesim/session.json", environment: env)
    let exists = FileManager.default.fileExists(atPath: location.file)
    let environment = env
    let made: @Sendable (SessionLocation) throws -> SessionService = { location in
      let service = SessionService(environment: environment, location: location)
      try service.check()
      return service
    }
    let sessions = ControlSessions(
      folder: cli.folder + "/sessions", defaultLocation: exists ? location : nil, limit: limit,
      defaultService: exists ? try made(location) : nil, makeService: made)
    return ControlAPI(sessions: sessions, environment: env, token: token, exposed: exposed)
  }

  static func request(
    _ method: String, _ path: String, _ body: String = "", headers: [String: String] = [:]
  ) -> HTTPRequest {
    var all = ["host": "127.0.0.1:8080"]
    all.merge(headers) { $1 }
    return HTTPRequest(method: method, target: path, headers: all, body: Array(body.utf8))
  }

  static func json(_ response: HTTPResponse) -> JSONNode? { try? JSONParser.parse(Array(response.body.utf8)) }

  /// The sample configuration's JSON, as a client sends it.
  static var configuration: String {
    get throws {
      try String(
        contentsOf: CLIHarness.projectRoot.appendingPathComponent("Configurations/AppleSample.storekit"),
        encoding: .utf8)
    }
  }

  /// Makes a session over the control API; its id.
  static func make(_ control: ControlAPI, id: String? = nil) throws -> String {
    let session = id.map { #", "session": "\#($0)""# } ?? ""
    let body = #"{"configuration": \#(try configuration), "start": "2026-01-01T00:00:00Z"\#(session)}"#
    let response = control.answer(request("POST", "/storesim/v1/sessions", body))
    #expect(response.status == 201, "\(response.body)")
    guard case .string(let made)? = json(response)?["session"]?.value else { throw CLIError.failed("no session id") }
    return made
  }

  /// Issue 46, control-api-one-table: every command of the table is a command line, an MCP tool and
  /// (unless it names why not) an operation, and the OpenAPI document lists each operation.
  @Test func everySessionCommandIsAnOperationFromTheOneTable() throws {
    let table = CommandTable.standard
    let operations = CommandCalls.operations(table).map(\.name)
    let expected = table.names.filter {
      !CommandCalls.interactive.contains($0) && CommandCalls.notOperations[$0] == nil
    }
    #expect(operations == expected)
    for name in [
      "buy", "approve", "decline", "refund", "advance", "cancel", "resolve", "finish", "expire", "renew",
      "family", "settings", "entitlements", "transactions", "status", "pending", "notifications", "receipt",
      "timeline", "now",
    ] {
      #expect(operations.contains(name), "\(name) is no operation")
    }
    let document = ControlOpenAPI.document(table)
    guard case .object(let paths)? = document["paths"] else { throw CLIError.failed("no paths") }
    for name in operations {
      let id = paths["/storesim/v1/sessions/{session}/\(name)"]?["post"]?["operationId"]
      #expect(id == .string(name), "\(name) is missing from the OpenAPI document")
    }
    #expect(paths["/storesim/v1/sessions"]?["post"]?["operationId"] == .string("init"))
  }

  /// Issue 46, control-api-sessions: a session is made from the configuration's JSON, lives as a
  /// session file `storesim --session` opens, is listed and deleted.
  @Test func sessionsAreMadeListedUsedAndDeleted() throws {
    let cli = try CLIHarness()
    let control = try Self.control(cli)
    let id = try Self.make(control)
    let bought = control.answer(
      Self.request("POST", "/storesim/v1/sessions/\(id)/buy", #"{"arguments": ["subscription.pro"]}"#))
    #expect(bought.status == 200, "\(bought.body)")
    #expect(Self.json(bought)?["result"]?.value == .string("purchased"))
    // The same session through the command line.
    let status = cli.run(["status", "--session", "sessions/\(id).json"])
    #expect(status.code == 0 && status.stdout.contains("subscription.pro"), "\(status.stderr)")
    let list = control.answer(Self.request("GET", "/storesim/v1/sessions"))
    #expect(list.body.contains(#""session" : "\#(id)""#) || list.body.contains(#""session": "\#(id)""#), "\(list.body)")
    #expect(!list.body.contains(#""default""#), "no default session was started: \(list.body)")
    #expect(control.answer(Self.request("DELETE", "/storesim/v1/sessions/\(id)")).status == 200)
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/sessions/\(id).json"))
    let gone = control.answer(Self.request("POST", "/storesim/v1/sessions/\(id)/now"))
    #expect(gone.status == 404 && Self.json(gone)?["error"]?["code"]?.value == .string("sessionNotFound"))
  }

  /// Issue 46, control-api-drawings-are-text: `timeline {"svg": true}` answers the drawing as
  /// `{"text": "<svg ..."}`, as docs/control-api.md shows (it was a 400, "--svg and --json exclude
  /// each other"), and a refusal of the same call is still a 4xx.
  @Test func aTimelineDrawingIsATextAnswer() throws {
    let cli = try CLIHarness()
    let control = try Self.control(cli)
    let id = try Self.make(control)
    _ = control.answer(Self.request("POST", "/storesim/v1/sessions/\(id)/buy", #"{"arguments": ["subscription.pro"]}"#))
    let drawing = control.answer(Self.request("POST", "/storesim/v1/sessions/\(id)/timeline", #"{"svg": true}"#))
    #expect(drawing.status == 200, "\(drawing.body)")
    guard case .string(let text)? = Self.json(drawing)?["text"]?.value else {
      Issue.record("no text answer: \(drawing.body)")
      return
    }
    #expect(text.contains("<svg") && text.contains("subscription.pro"))
    let refused = control.answer(
      Self.request("POST", "/storesim/v1/sessions/\(id)/timeline", #"{"svg": true, "width": 80}"#))
    #expect(
      refused.status == 400 && Self.json(refused)?["error"]?["code"]?.value == .string("usage"), "\(refused.body)")
  }

  /// Issue 46, control-api-configuration-never-a-path: a configuration given as a path is a 400.
  @Test func aConfigurationGivenAsAPathIsRefused() throws {
    let cli = try CLIHarness()
    let control = try Self.control(cli)
    let response = control.answer(
      Self.request("POST", "/storesim/v1/sessions", #"{"configuration": "\#(cli.folder)/AppleSample.storekit"}"#))
    #expect(response.status == 400)
    #expect(Self.json(response)?["error"]?["field"]?.value == .string("configuration"))
    let key = control.answer(
      Self.request("POST", "/storesim/v1/sessions", #"{"configuration": {}, "signing-key": "/etc/passwd"}"#))
    #expect(key.status == 400 && Self.json(key)?["error"]?["field"]?.value == .string("signing-key"), "\(key.body)")
    #expect(!key.body.contains("root:"))
  }

  /// Issue 46, control-api-refusals-change-nothing: malformed JSON, an unknown option, a wrong type,
  /// an unknown product or session: a 4xx naming what was wrong, and the session file unchanged.
  @Test func badInputIsA4xxWithNothingChanged() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let control = try Self.control(cli)
    let file = cli.folder + "/.storesim/session.json"
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    let cases: [(String, String, Int, String?)] = [
      ("buy", #"{"arguments": ["subscription.pro"""#, 400, nil),
      ("buy", #"{"arguments": ["subscription.pro"], "colour": "red"}"#, 400, "colour"),
      ("buy", #"{"arguments": "subscription.pro"}"#, 400, "arguments"),
      ("buy", #"{"arguments": ["no.such.product"]}"#, 400, nil),
      ("buy", #"{"arguments": ["subscription.pro"], "quantity": "lots"}"#, 400, "quantity"),
      ("advance", #"{"arguments": ["-1d"]}"#, 400, nil),
      ("timeline", #"{"svg": "/tmp/x.svg"}"#, 400, "svg"),
      ("resolve", #"{"arguments": ["subscription.pro"]}"#, 409, nil),
    ]
    for (command, body, status, field) in cases {
      let response = control.answer(Self.request("POST", "/storesim/v1/sessions/default/\(command)", body))
      #expect(response.status == status, "\(command) \(body): \(response.body)")
      let error = Self.json(response)?["error"]
      #expect(error?["message"] != nil && error?["code"] != nil, "\(response.body)")
      if let field { #expect(error?["field"]?.value == .string(field), "\(response.body)") }
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "a refused request changed the session")
    #expect(control.answer(Self.request("POST", "/storesim/v1/sessions/nope/now")).status == 404)
    #expect(control.answer(Self.request("POST", "/storesim/v1/sessions/default/frobnicate")).status == 404)
    #expect(control.answer(Self.request("GET", "/storesim/v1/sessions/default/now")).status == 405)
  }

  /// Issue 46, control-api-sessions-bounded: past the documented count a new session is a 409.
  @Test func sessionsAreBounded() throws {
    let cli = try CLIHarness()
    let control = try Self.control(cli, limit: 2)
    _ = try Self.make(control)
    _ = try Self.make(control, id: "second")
    let third = control.answer(
      Self.request("POST", "/storesim/v1/sessions", #"{"configuration": \#(try Self.configuration)}"#))
    #expect(third.status == 409 && Self.json(third)?["error"]?["code"]?.value == .string("tooManySessions"))
    let again = control.answer(
      Self.request("POST", "/storesim/v1/sessions", #"{"configuration": {}, "session": "second"}"#))
    #expect(again.status == 409)
  }

  /// Issue 46, control-api-browser-safety: a Host that is not loopback (DNS rebinding) and a
  /// foreign Origin are refused; no answer carries a CORS header; with a token, it is required.
  @Test func aWebPageElsewhereCannotDriveIt() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let control = try Self.control(cli)
    let rebound = control.answer(
      Self.request("POST", "/storesim/v1/sessions/default/now", headers: ["host": "evil.example:8080"]))
    #expect(rebound.status == 403)
    let page = control.answer(
      Self.request("POST", "/storesim/v1/sessions/default/now", headers: ["origin": "http://evil.example"]))
    #expect(page.status == 403)
    for host in ["127.0.0.1:8080", "localhost:1234", "[::1]:80"] {
      let ok = control.answer(Self.request("POST", "/storesim/v1/sessions/default/now", headers: ["host": host]))
      #expect(ok.status == 200, "\(host): \(ok.body)")
      #expect(!ok.headers.contains { $0.name.lowercased().hasPrefix("access-control") })
    }
    let guarded = try Self.control(cli, token: "0123456789abcdef0123", exposed: true)
    let anyHost = ["host": "storesim.internal:8080"]
    #expect(guarded.answer(Self.request("POST", "/storesim/v1/sessions/default/now", headers: anyHost)).status == 401)
    let bearer = anyHost.merging(["authorization": "Bearer 0123456789abcdef0123"]) { $1 }
    #expect(guarded.answer(Self.request("POST", "/storesim/v1/sessions/default/now", headers: bearer)).status == 200)
  }

  /// Issue 46, control-api-session-base-url: a session's App Store Server API answers under its base
  /// URL, reading that session alone.
  @Test func aSessionsServerAPIAnswersUnderItsBaseURL() throws {
    let cli = try CLIHarness()
    let control = try Self.control(cli)
    let a = try Self.make(control, id: "a")
    let b = try Self.make(control, id: "b")
    let bought = control.answer(
      Self.request("POST", "/storesim/v1/sessions/a/buy", #"{"arguments": ["nonconsumable.car"]}"#))
    guard case .string(let id)? = Self.json(bought)?["transaction"]?["transactionId"]?.value else {
      throw CLIError.failed("no transaction: \(bought.body)")
    }
    let auth = ["authorization": ServerAPICall.token(exp: 1_767_225_600 + 900)]
    let mine = control.answer(
      Self.request("GET", "/storesim/v1/sessions/\(a)/inApps/v1/transactions/\(id)", headers: auth))
    #expect(mine.status == 200, "\(mine.body)")
    #expect(mine.body.contains("signedTransactionInfo"))
    let theirs = control.answer(
      Self.request("GET", "/storesim/v1/sessions/\(b)/inApps/v1/transactions/\(id)", headers: auth))
    #expect(theirs.status == 404, "sessions are isolated: \(theirs.body)")
  }
}
