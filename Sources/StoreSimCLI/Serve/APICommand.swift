import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSync

let apiMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]

/// `storesim api METHOD PATH`.
struct APICommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "api", group: "Server",
    abstract: "Answer one App Store Server API request without a port (what 'serve' would send)",
    arguments: "<method> <path>",
    discussion: """
      Prints the status line and the JSON body that 'storesim serve' answers for the same request
      on the same session, e.g. 'HTTP/1.1 200 OK' then '{"signedTransactionInfo":"..."}'. The
      path is Apple's, with its query (quote it in the shell). Requests that change the session
      save it like any command. Without --authorization (and without --api-key) the caller is
      trusted; with it, the header is checked as the server checks it (an ES256 bearer token
      with kid, iss, exp at most an hour away, aud appstoreconnect-v1 and bid equal to the
      session's bundle id). Its signature is checked only with --api-key AuthKey.p8 --key-id KID
      --issuer ISS, which also require that kid and iss, or, without them, with the key given at
      'init --api-key'. With --log, the request's log line goes to standard error, in the format
      of serve's (peer '-', the time from the request to its answer); standard output stays the
      answer. Exit 0 for a 2xx answer, 1 for any other.
      """,
    example: "storesim api GET '/inApps/v1/history/2000000000000001?sort=DESCENDING'")

  @Arguments(2...2, "method and path")
  var arguments: [String]
  @Option("<file>", help: "the request body (JSON; '-' reads standard input)")
  var body: String?
  @Option("<json>", help: "the request body given inline (instead of --body)")
  var data: String?
  @Option("<value>", help: "check this Authorization header as 'serve' does (default: trusted, no check)")
  var authorization: String?
  @OptionGroup var teamKey: APIKeyOptions
  @Flag(help: "log the request on stderr as 'serve' does (peer '-')")
  var log: Bool

  func run(_ inv: Invocation) throws -> ExitCode {
    let started = WaitClock.system.nanoseconds()
    let p = arguments
    let method = p[0].uppercased()
    guard apiMethods.contains(method) else {
      throw CLIError.usage("unknown method '\(p[0])'; use GET, POST or PUT", command: "api")
    }
    guard p[1].hasPrefix("/") else { throw CLIError.usage("the path must start with '/': \(p[1])", command: "api") }
    var body: [UInt8] = []
    if let data {
      guard self.body == nil else { throw CLIError.usage("give --body or --data, not both", command: "api") }
      body = Array(data.utf8)
    } else if let file = self.body {
      if file == "-" {
        body = Array(FileHandle.standardInput.readDataToEndOfFile())
      } else {
        let path = try inv.environment.resolve(file)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.noInput("no such file: \(file)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.noInput("cannot read \(file)") }
        body = Array(handle.readDataToEndOfFile())
      }
    }
    let key = try teamKey.key(inv, command: "api")
    var headers: [String: String] = [:]
    if let auth = authorization { headers["authorization"] = auth }
    let request = HTTPRequest(method: method, target: p[1], headers: headers, body: body)
    let trusted = authorization == nil && key == nil
    let mutating = ServerAPI.match(request).route?.changesSession ?? false
    var response = APIResponse(status: 500, body: "")
    _ = try SessionContext.with(inv, mutating: mutating, needsNotifications: true) { store in
      // Without --api-key, the team's key given at init checks a token given with --authorization.
      let key = key ?? store.state.teamKey.flatMap(APIKeyOptions.key)
      response = ServerAPI.respond(request, store: store, now: inv.environment.now(), trusted: trusted, key: key)
      if let changed = response.changed { store = changed }
      return .success
    }
    if log { RequestLog(inv).record(request, response, started: started) }
    inv.out("HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\n\(response.body)")
    return (200...299).contains(response.status) ? .success : .failure
  }
}
