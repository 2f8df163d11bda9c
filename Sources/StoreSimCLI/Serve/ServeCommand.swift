import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession
import StoreSimSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `storesim serve`.
struct ServeCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "serve", group: "Server",
    abstract: "Serve the session as the App Store Server API on loopback",
    discussion: """
      Prints the base URL (http://127.0.0.1:PORT) on the first line of standard output and answers
      Apple's App Store Server API (every /inApps/v1 and /inApps/v2 endpoint, the Retention
      Messaging API, POST /verifyReceipt and /sandbox/verifyReceipt) with Apple's response shapes
      and error codes, until SIGINT, SIGTERM, SIGHUP or SIGQUIT. The session file stays the
      database: 'storesim buy' in another terminal shows in the next answer. Every request but
      verifyReceipt needs 'Authorization: Bearer JWT' shaped as Apple requires; its signature is
      checked with --api-key/--key-id/--issuer or the key given at 'init --api-key'. A request
      that waits more than 3 s for the session's lock answers 503 with Retry-After. serve listens
      on loopback only unless --expose-to-network is given. 'storesim api' answers the same
      requests without a port. The same port answers the control API under /storesim/v1/: a
      session per test, every command over HTTP (docs/control-api.md). A browser at the base URL
      gets the store as a page, live, with a button for each action (docs/page.md). The
      endpoints, tokens, limits and statuses in full: docs/server.md and docs/server-api.md.
      """,
    example: "storesim serve --port 0 --session demo.json")

  @Arguments(0...0, "")
  var arguments: [String]
  @Option("<n>", help: "the port (default 8080; 0 picks a free one)", parse: ServeCommand.port)
  var port: Int?
  @Option("<address>", help: "the address (default 127.0.0.1; loopback unless --expose-to-network)")
  var host: String?
  @Flag(help: "allow a --host beyond loopback (token signatures are verified only with --api-key)")
  var exposeToNetwork: Bool
  @Flag(help: "no log line per request on stderr (the line 'api --log' writes)")
  var quiet: Bool
  @Option("<secret>", help: "the app's shared secret verifyReceipt requires as 'password'")
  var sharedSecret: String?
  @OptionGroup var teamKey: APIKeyOptions
  @Option("<dir>", help: "the folder of the control API's sessions (default: 'sessions' beside the session)")
  var sessions: String?
  @Option("<n>", help: "how many sessions the control API may make (default 256)", parse: ServeCommand.count)
  var maxSessions: Int?
  @Flag(help: "start with no session: only the control API (POST /storesim/v1/sessions makes them)")
  var noSession: Bool
  @Option(
    "<token>",
    help:
      "the bearer token the control API requires (default: none on loopback; made and printed with --expose-to-network)"
  )
  var controlToken: String?

  static func port(_ portText: String, _ context: ParseContext) throws -> Int {
    guard let port = Int(portText), (0...65535).contains(port) else {
      throw CLIError.usage("invalid port '\(portText)'; give a number from 0 to 65535", command: "serve")
    }
    return port
  }

  static func count(_ text: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(text), (1...100_000).contains(n) else {
      throw CLIError.usage("--max-sessions must be a number from 1 to 100000, not '\(text)'", command: "serve")
    }
    return n
  }

  func validate() throws {
    if let controlToken, controlToken.count < 16 || !controlToken.allSatisfy({ $0.isASCII && !$0.isWhitespace }) {
      throw CLIError.usage("--control-token must be at least 16 characters, no spaces", command: "serve")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let key = try teamKey.key(inv, command: "serve")
    let control = ControlOptions(
      folder: sessions, limit: maxSessions ?? ControlSessions.defaultLimit, withoutSession: noSession,
      token: controlToken)
    return try runServe(
      inv, port: port ?? 8080, host: host ?? "127.0.0.1", exposeToNetwork: exposeToNetwork, quiet: quiet,
      sharedSecret: sharedSecret, apiKey: key, control: control)
  }
}

/// What `serve` is told of its control API.
struct ControlOptions {
  /// `--sessions DIR`.
  var folder: String?
  var limit = ControlSessions.defaultLimit
  /// `--no-session`.
  var withoutSession = false
  /// `--control-token`.
  var token: String?
}

extension RequestLog {
  /// The logging layer on the invocation's standard error, the request line escaped for a
  /// terminal (`serve` unless --quiet, `api --log`).
  init(_ inv: Invocation) {
    let environment = inv.environment
    self.init(escape: { TerminalText.field($0) }, write: { environment.writeErr($0) })
  }
}

/// What the transport answers when it refuses a request itself, in the App Store's error
/// shape: a malformed request is Apple's 4000000; other refusals (too large, too slow, too many
/// connections) have no Apple code, so they carry none.
let appStoreRefusal: HTTPServer.RefusalBody = { status, message in
  APIResponse.error(APIError(status: status, code: status == 400 ? 4_000_000 : nil, message: message)).body
}

/// Whether an address stays on this machine: 127.0.0.0/8, ::1 or `localhost`.
func isLoopback(_ host: String) -> Bool {
  if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
  let parts = host.split(separator: ".", omittingEmptySubsequences: false)
  return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
}

func runServe(
  _ inv: Invocation, port: Int, host: String, exposeToNetwork: Bool, quiet: Bool, sharedSecret: String?,
  apiKey: Authentication.Key? = nil, control options: ControlOptions = ControlOptions()
) throws -> ExitCode {
  let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
  var served: (SessionService, Authentication.Key?)?
  if !options.withoutSession {
    guard FileManager.default.fileExists(atPath: location.file) else {
      throw CLIError.noInput("no session at \(location.shown); start one with 'storesim init CONFIG.storekit'")
    }
    served = try servedSession(inv, location: location, sharedSecret: sharedSecret, apiKey: apiKey)
  }
  let service = served?.0
  let sessionKey = served?.1
  let givenKey = apiKey
  let apiKey = apiKey ?? sessionKey
  // A host that is no address at all is refused by the server with its own message. Said once
  // the session is read, so what it says of bearer tokens is true (the session may hold a key).
  let exposed = !isLoopback(host) && SocketAddress.isNumeric(host)
  if exposed && !exposeToNetwork {
    throw CLIError.usage(
      "refusing to listen on \(host): it is beyond loopback, \(apiKey.map { "where anyone who reaches it could call /verifyReceipt, which takes no bearer token (bearer tokens are verified with key \($0.keyID))" } ?? "and anyone who reaches it could read and change the session (bearer tokens are not verified)"); add --expose-to-network to do it anyway",
      command: "serve")
  }
  let control = controlAPI(
    inv, options, location: location, service: service, exposed: exposed, sharedSecret: sharedSecret,
    apiKey: givenKey)
  let page = PageRoutes(control: control)
  var log: (@Sendable (HTTPServer.LogEntry) -> Void)?
  if !quiet {
    let requestLog = RequestLog(inv)
    log = { @Sendable entry in requestLog.record(entry) }
  }
  let server: HTTPServer
  do {
    var limits = HTTPServer.Limits()
    limits.bodyBytesFor = { method, target in
      ControlAPI.isControl(target) ? ControlAPI.bodyLimit : service?.bodyLimit(method: method, target: target)
    }
    server = try HTTPServer(
      host: host, port: port, limits: limits, clock: service?.clock ?? .system, log: log, refusalBody: appStoreRefusal,
      quickHandler: { ControlAPI.isControl($0.path) || PageRoutes.isPage($0.path) ? nil : service?.quickAnswer($0) }
    ) { request in
      if ControlAPI.isControl(request.path) { return control.answer(request) }
      if PageRoutes.isPage(request.path) { return page.answer(request) }
      return service?.answer(request) ?? noDefaultSession
    }
  } catch let error as HTTPServer.StartError {
    if case .address = error { throw CLIError.usage(error.description, command: "serve") }
    throw CLIError.failed(error.description)
  }
  // SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the server cleanly (after the save under way),
  // from before the URL is printed.
  ProcessSignals.serving(wake: server.wakeWrite) {
    serve(
      inv, server, options.withoutSession ? nil : location, control: control, exposed: exposed, apiKey: apiKey,
      fromSession: sessionKey != nil)
  }
  inv.err("stopped")
  return .success
}

/// What the root answers when serve was started with no session (`--no-session`).
private let noDefaultSession = APIResponse.error(
  APIError(
    status: 404, code: nil,
    message: "serve was started with no session: use a session's base URL, /storesim/v1/sessions/{session}")
).http

/// The control API over `serve`'s sessions: `default` (the session it was started with) and
/// those it makes in its sessions folder, each answering the Server API as `default` does.
private func controlAPI(
  _ inv: Invocation, _ options: ControlOptions, location: SessionLocation, service: SessionService?, exposed: Bool,
  sharedSecret: String?, apiKey: Authentication.Key?
) -> ControlAPI {
  let environment = inv.environment
  let folder = environment.absolutePath(
    options.folder
      ?? ((location.file as NSString).deletingLastPathComponent as NSString).appendingPathComponent("sessions"))
  let sessions = ControlSessions(
    folder: folder, defaultLocation: options.withoutSession ? nil : location, limit: options.limit,
    defaultService: service
  ) { location in
    let made = SessionService(environment: environment, location: location, sharedSecret: sharedSecret, apiKey: apiKey)
    let store = try made.check()
    if apiKey == nil, let key = store.state.teamKey.flatMap(APIKeyOptions.key) { return made.using(apiKey: key) }
    return made
  }
  let token =
    options.token ?? (exposed ? environment.randomBytes(24).map { String(format: "%02x", $0) }.joined() : nil)
  return ControlAPI(sessions: sessions, environment: environment, token: token, exposed: exposed)
}

private func serve(
  _ inv: Invocation, _ server: HTTPServer, _ location: SessionLocation?, control: ControlAPI, exposed: Bool,
  apiKey: Authentication.Key?, fromSession: Bool
) {
  inv.out(server.baseURL)
  inv.environment.flushOut()
  if exposed && apiKey == nil {
    inv.warning(
      "serving beyond loopback at \(server.baseURL): anyone who can reach it can read and change this session; bearer tokens are checked for shape and claims only, their signatures are not verified"
    )
  }
  let tokens =
    apiKey.map { "bearer tokens verified with \(fromSession ? "the session's key" : "key") \($0.keyID)" }
    ?? "bearer token signatures are not checked (give --api-key, --key-id, --issuer)"
  inv.err(
    "serving \(location?.shown ?? "no session") at \(server.baseURL) (up to \(server.connectionBudget) connections at once, file limit \(server.fileLimit)); \(tokens); Ctrl-C stops"
  )
  inv.err(
    "control API at \(server.baseURL)\(ControlAPI.prefix)/ (sessions in \(control.sessions.folder), at most \(control.sessions.limit))"
      + (control.token.map { "; it requires 'Authorization: Bearer \($0)'" } ?? ""))
  server.run()
}

/// The service `serve` answers with, over the session read once: without `apiKey`, the team's
/// key given at init checks the tokens, and the service that uses it keeps the session as read
/// (`SessionService.using(apiKey:)`). Also the session's key (nil: none, or `apiKey` given).
/// A session file of `lazyLoadBytes(_:)` or more is checked (header, checksums, `base`) before
/// serve listens and read whole on another thread while it listens (issue 50, item 6): a
/// request about one transaction is answered meanwhile from its customer's row.
func servedSession(
  _ inv: Invocation, location: SessionLocation, sharedSecret: String?, apiKey: Authentication.Key?
) throws -> (SessionService, Authentication.Key?) {
  let checked = SessionService(inv, location: location, sharedSecret: sharedSecret, apiKey: apiKey)
  let head = try checked.checkHead(lazyFrom: lazyLoadBytes(inv))
  let session = try head ?? checked.check()
  let sessionKey = apiKey == nil ? session.state.teamKey.flatMap(APIKeyOptions.key) : nil
  let service = sessionKey.map { checked.using(apiKey: $0) } ?? checked
  if head != nil { service.loadInBackground() }
  return (service, sessionKey)
}

/// From how many bytes `serve` reads its session on another thread while it listens: 128 MiB
/// (about 55,000 customers of `populate`, read whole in about half a second on a quiet machine;
/// a smaller session is read before listening, so every request is answered from the whole
/// session and its kept answers from the start), or `STORESIM_SERVE_BACKGROUND_READ_BYTES`
/// (for tests).
func lazyLoadBytes(_ inv: Invocation) -> Int {
  inv.environment.variables["STORESIM_SERVE_BACKGROUND_READ_BYTES"].flatMap { Int($0) } ?? 128 << 20
}

extension SessionService {
  /// The service over a session, loading it as commands do (a changed configuration is
  /// reloaded, with a warning) and warning on the invocation's standard error.
  convenience init(
    _ inv: Invocation, location: SessionLocation, sharedSecret: String? = nil, apiKey: Authentication.Key? = nil
  ) {
    self.init(environment: inv.environment, location: location, sharedSecret: sharedSecret, apiKey: apiKey)
  }

  /// The same, warning on the environment's standard error.
  convenience init(
    environment: CLIEnvironment, location: SessionLocation, sharedSecret: String? = nil,
    apiKey: Authentication.Key? = nil
  ) {
    let warning: @Sendable (String) -> Void = { environment.writeErr(TerminalText.block("warning: \($0)") + "\n") }
    self.init(
      location: location, now: environment.now, warning: warning, cacheAnswers: true, sharedSecret: sharedSecret,
      apiKey: apiKey)
  }
}
