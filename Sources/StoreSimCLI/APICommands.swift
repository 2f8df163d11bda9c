import Foundation
import StoreSim

let apiMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]

let apiCommand = CommandSpec(
  name: "api", group: "Server",
  abstract: "Answer one App Store Server API request without a port (what 'serve' would send)",
  arguments: "<method> <path>",
  options: [
    OptionSpec(name: "body", value: "<file>", help: "the request body (JSON; '-' reads standard input)"),
    OptionSpec(name: "authorization", value: "<value>", help: "check this Authorization header as 'serve' does (default: trusted, no check)"),
  ],
  discussion: """
    Prints the status line and the JSON body that 'storesim serve' answers for the same request
    on the same session, e.g. 'HTTP/1.1 200 OK' then '{"signedTransactionInfo":"..."}'. The
    path is Apple's, with its query (quote it in the shell). Requests that change the session
    save it like any command. Without --authorization the caller is trusted; with it, the
    header is checked as the server checks it (an ES256 bearer token with kid, iss, exp at
    most an hour away, aud appstoreconnect-v1 and bid equal to the session's bundle id; the
    signature is not checked, as storesim does not have the team's key). Exit 0 for a 2xx
    answer, 1 for any other.
    """,
  example: "storesim api GET '/inApps/v1/history/2000000000000001?sort=DESCENDING'",
  run: { inv in
    let p = try inv.positionals(2...2, "method and path")
    let method = p[0].uppercased()
    guard apiMethods.contains(method) else {
      throw CLIError.usage("unknown method '\(p[0])'; use GET, POST or PUT", command: "api")
    }
    guard p[1].hasPrefix("/") else { throw CLIError.usage("the path must start with '/': \(p[1])", command: "api") }
    var body: [UInt8] = []
    if let file = inv.arguments.value("body") {
      if file == "-" {
        body = Array(FileHandle.standardInput.readDataToEndOfFile())
      } else {
        let path = inv.environment.resolve(file)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.noInput("no such file: \(file)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.noInput("cannot read \(file)") }
        body = Array(handle.readDataToEndOfFile())
      }
    }
    var headers: [String: String] = [:]
    if let auth = inv.arguments.value("authorization") { headers["authorization"] = auth }
    let request = APIRequest(method: method, target: p[1], headers: headers, body: body)
    let trusted = inv.arguments.value("authorization") == nil
    let mutating = ServerAPI.isMutating(request)
    var response = APIResponse(status: 500, body: "")
    _ = try SessionContext.with(inv, mutating: mutating, needsNotifications: true) { store in
      response = ServerAPI.handle(request, store: store, now: inv.environment.now(), trusted: trusted)
      if let changed = response.changed { store = changed }
      return .success
    }
    inv.out("HTTP/1.1 \(response.status) \(APIResponse.reason(response.status))\n\(response.body)")
    return (200...299).contains(response.status) ? .success : .failure
  })
