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
      requests without a port. The endpoints, tokens, limits and statuses in full: docs/server.md
      and docs/server-api.md.
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

  static func port(_ portText: String, _ context: ParseContext) throws -> Int {
    guard let port = Int(portText), (0...65535).contains(port) else {
      throw CLIError.usage("invalid port '\(portText)'; give a number from 0 to 65535", command: "serve")
    }
    return port
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let key = try teamKey.key(inv, command: "serve")
    return try runServe(
      inv, port: port ?? 8080, host: host ?? "127.0.0.1", exposeToNetwork: exposeToNetwork, quiet: quiet,
      sharedSecret: sharedSecret, apiKey: key)
  }
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
  apiKey: Authentication.Key? = nil
) throws -> ExitCode {
  let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
  guard FileManager.default.fileExists(atPath: location.file) else {
    throw CLIError.noInput("no session at \(location.shown); start one with 'storesim init CONFIG.storekit'")
  }
  let (service, sessionKey) = try servedSession(inv, location: location, sharedSecret: sharedSecret, apiKey: apiKey)
  let apiKey = apiKey ?? sessionKey
  // A host that is no address at all is refused by the server with its own message. Said once
  // the session is read, so what it says of bearer tokens is true (the session may hold a key).
  let exposed = !isLoopback(host) && SocketAddress.isNumeric(host)
  if exposed && !exposeToNetwork {
    throw CLIError.usage(
      "refusing to listen on \(host): it is beyond loopback, \(apiKey.map { "where anyone who reaches it could call /verifyReceipt, which takes no bearer token (bearer tokens are verified with key \($0.keyID))" } ?? "and anyone who reaches it could read and change the session (bearer tokens are not verified)"); add --expose-to-network to do it anyway",
      command: "serve")
  }
  var log: (@Sendable (HTTPServer.LogEntry) -> Void)?
  if !quiet {
    let requestLog = RequestLog(inv)
    log = { @Sendable entry in requestLog.record(entry) }
  }
  let server: HTTPServer
  do {
    var limits = HTTPServer.Limits()
    limits.bodyBytesFor = { service.bodyLimit(method: $0, target: $1) }
    server = try HTTPServer(
      host: host, port: port, limits: limits, log: log, refusalBody: appStoreRefusal,
      quickHandler: { service.quickAnswer($0) }
    ) { service.answer($0) }
  } catch let error as HTTPServer.StartError {
    if case .address = error { throw CLIError.usage(error.description, command: "serve") }
    throw CLIError.failed(error.description)
  }
  // SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the server cleanly (after the save under way),
  // from before the URL is printed.
  ProcessSignals.serving(wake: server.wakeWrite) {
    serve(inv, server, location, exposed: exposed, apiKey: apiKey, fromSession: sessionKey != nil)
  }
  inv.err("stopped")
  return .success
}

private func serve(
  _ inv: Invocation, _ server: HTTPServer, _ location: SessionLocation, exposed: Bool, apiKey: Authentication.Key?,
  fromSession: Bool
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
    "serving \(location.shown) at \(server.baseURL) (up to \(server.connectionBudget) connections at once, file limit \(server.fileLimit)); \(tokens); Ctrl-C stops"
  )
  server.run()
}

/// The service `serve` answers with, over the session read once: without `apiKey`, the team's
/// key given at init checks the tokens, and the service that uses it keeps the session as read
/// (`SessionService.using(apiKey:)`). Also the session's key (nil: none, or `apiKey` given).
func servedSession(
  _ inv: Invocation, location: SessionLocation, sharedSecret: String?, apiKey: Authentication.Key?
) throws -> (SessionService, Authentication.Key?) {
  let checked = SessionService(inv, location: location, sharedSecret: sharedSecret, apiKey: apiKey)
  let session = try checked.check()
  let sessionKey = apiKey == nil ? session.state.teamKey.flatMap(APIKeyOptions.key) : nil
  return (sessionKey.map { checked.using(apiKey: $0) } ?? checked, sessionKey)
}

extension SessionService {
  /// The service over a session, loading it as commands do (a changed configuration is
  /// reloaded, with a warning) and warning on the invocation's standard error.
  convenience init(
    _ inv: Invocation, location: SessionLocation, sharedSecret: String? = nil, apiKey: Authentication.Key? = nil
  ) {
    let environment = inv.environment
    let warning: @Sendable (String) -> Void = { environment.writeErr(TerminalText.block("warning: \($0)") + "\n") }
    self.init(
      location: location, now: environment.now, warning: warning, cacheAnswers: true, sharedSecret: sharedSecret,
      apiKey: apiKey)
  }
}
