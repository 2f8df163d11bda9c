import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimHTTP
import StoreSimServer
import StoreSimSession
import StoreSimSync

/// The control API `serve` answers under `/storesim/v1/` on its port (docs/control-api.md):
/// sessions made, listed and deleted; every session command as
/// `POST /storesim/v1/sessions/{session}/{command}`, made from the command table as the MCP
/// tools are (`CommandCalls`), its body the tool's arguments and its answer the command's
/// `--json` output; a session's App Store Server API under the session's base URL; the OpenAPI
/// document. It sits above the HTTP server's handler interface: a request in, a response out.
final class ControlAPI: Sendable {
  /// Where the control API answers.
  static let prefix = "/storesim/v1"
  /// The largest request body: a configuration file in `POST /storesim/v1/sessions`.
  static let bodyLimit = 8 << 20

  let sessions: ControlSessions
  let table: CommandTable
  /// The environment commands run in (the wall clock, random bytes); its output is captured.
  let environment: CLIEnvironment
  /// The bearer token a control request must carry (nil: none, on loopback).
  let token: String?
  /// Whether `serve` listens beyond loopback: `Host` is then not checked, the token is.
  let exposed: Bool

  init(sessions: ControlSessions, environment: CLIEnvironment, token: String?, exposed: Bool) {
    self.sessions = sessions
    self.table = CommandTable.standard
    var quiet = environment.quiet(in: sessions.folder)
    quiet.now = environment.now
    quiet.randomBytes = environment.randomBytes
    quiet.pathPolicy = PathPolicy(
      project: sessions.folder, sessionFolder: sessions.folder, allowed: [], owner: "the control API",
      widening: "nothing: it takes no file names")
    quiet.keptSessions = sessions.kept
    self.environment = quiet
    self.token = token
    self.exposed = exposed
  }

  /// Whether a request is the control API's.
  static func isControl(_ path: String) -> Bool { path == prefix || path.hasPrefix(prefix + "/") }

  /// The answer to a control request (`isControl`).
  func answer(_ request: HTTPRequest) -> HTTPResponse {
    let rest = request.path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
      .dropFirst().map(String.init)
    let serverAPI = rest.count >= 3 && rest[0] == "sessions" && ServerAPIPath.isServerAPI(rest[2...])
    if let refusal = admit(request, serverAPI: serverAPI) { return refusal.response }
    do {
      switch (request.method, rest.count, rest.first) {
      case (_, 1, "openapi.json"):
        try only("GET", request)
        return HTTPResponse(status: 200, body: ControlOpenAPI.standard)
      case (_, 1, "sessions"):
        if request.method == "GET" { return list() }
        try only("POST", request)
        return try make(request)
      case (_, 2, "sessions"):
        try only("DELETE", request)
        try sessions.delete(rest[1])
        return ok(.object(["session": .string(rest[1]), "deleted": .bool(true)]))
      case (_, _, "sessions") where serverAPI:
        return try sessions.service(rest[1]).answer(ServerAPIPath.request(request, rest[2...]))
      case (_, 3, "sessions"):
        guard let spec = CommandCalls.operations(table).first(where: { $0.name == rest[2] }) else {
          throw ControlError(
            404, "unknownCommand",
            Suggest.appending(
              to: "no command '\(TerminalText.field(rest[2]))'", for: rest[2],
              in: CommandCalls.operations(table).map(\.name)))
        }
        try only("POST", request)
        return try call(spec, session: rest[1], body: request.body)
      default:
        throw ControlError.notFound("no such path in the control API (GET /storesim/v1/openapi.json lists them)")
      }
    } catch let error as ControlError {
      return error.response
    } catch {
      return ControlError(409, "refused", CLIError(reporting: error).message).response
    }
  }

  private func only(_ method: String, _ request: HTTPRequest) throws(ControlError) {
    guard request.method == method else {
      throw ControlError(405, "methodNotAllowed", "\(request.method) is not allowed here; use \(method)")
    }
  }

  private func ok(_ value: JSONOutput, status: Int = 200) -> HTTPResponse {
    HTTPResponse(status: status, body: value.rendered(pretty: true) + "\n")
  }

  /// `GET /storesim/v1/sessions`.
  private func list() -> HTTPResponse {
    ok(
      .object([
        "sessions": .array(sessions.ids().map { .object(["session": .string($0)]) }),
        "limit": .int(Int64(sessions.limit)),
      ]))
  }

  /// The request body as an object's members (an empty body is `{}`).
  static func members(_ body: [UInt8]) throws(ControlError) -> [JSONMember] {
    guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return [] }
    let node: JSONNode
    do {
      node = try JSONParser.parse(body)
    } catch {
      throw ControlError.badJSON("the body is not JSON: \(error.message) at column \(error.location.column)")
    }
    guard let members = node.members else { throw ControlError.badJSON("the body is a JSON object") }
    return members
  }

  /// `POST /storesim/v1/sessions`: `init` on a configuration given as JSON.
  private func make(_ request: HTTPRequest) throws(ControlError) -> HTTPResponse {
    let members = try Self.members(request.body)
    guard let configuration = members.last(where: { $0.key == "configuration" })?.value else {
      throw ControlError(
        400, "usage", "missing configuration: the .storekit file's JSON object", field: "configuration")
    }
    guard case .object = configuration.value else {
      throw ControlError(
        400, "usage",
        "configuration is the .storekit file's JSON object itself, never a path on the server's disk",
        field: "configuration")
    }
    var requested: String?
    if let node = members.last(where: { $0.key == "session" })?.value {
      guard case .string(let id) = node.value else {
        throw ControlError(400, "usage", "'session' is a string", field: "session")
      }
      requested = id
    }
    let options = members.filter { $0.key != "configuration" && $0.key != "session" }
    if options.contains(where: { $0.key == "arguments" }) {
      throw ControlError(
        400, "usage", "init takes the configuration as 'configuration', not 'arguments'", field: "arguments")
    }
    let keys = try Self.keys(options)
    let spec = table.spec(named: "init")!
    let line: (words: [String], options: [String])
    switch CommandCalls.commandLine(spec, options.filter { !Self.keyOptions.contains($0.key) }, paths: false) {
    case .success(let given): line = given
    case .failure(let refusal): throw ControlError(400, "usage", refusal.message, field: refusal.field)
    }
    let text = JSONOutput(node: configuration).rendered(pretty: true)
    let random = environment.randomBytes
    let made = try sessions.make(
      requested: requested, configuration: text,
      randomID: { "s" + random(8).map { String(format: "%02x", $0) }.joined() }
    ) { (id, config) throws(ControlError) -> JSONOutput in
      let given = Self.keyOptions.filter { keys[KeyFile.given($0)] != nil }.map { "--\($0)=\(KeyFile.given($0))" }
      let argv =
        ["init"] + line.options + given + [
          "--json", "--session=\(id).json", "--", (config as NSString).lastPathComponent,
        ]
      var answer = try run(argv, spec: spec, keys: keys)
      if case .object(var fields) = answer {
        fields["session"] = .string(id)
        answer = .object(fields)
      }
      return answer
    }
    return ok(made, status: 201)
  }

  /// Init's options that take a key: in a body, the key's PEM text (never a file's name).
  static let keyOptions = ["signing-key", "api-key"]

  /// The keys of a `POST /storesim/v1/sessions` body, by the name init is given in their place
  /// (`KeyFile.given`), each checked here so that a bad one is refused before anything is made.
  private static func keys(_ options: [JSONMember]) throws(ControlError) -> [String: String] {
    var keys: [String: String] = [:]
    for name in keyOptions {
      guard let node = options.last(where: { $0.key == name })?.value else { continue }
      guard case .string(let text) = node.value else {
        throw ControlError(
          400, "usage", "'\(name)' is a string: the key's PEM text", field: name)
      }
      do { _ = try P256.PrivateKey(pemOrBase64: text) } catch {
        throw ControlError(
          400, "usage", "'\(name)' is not a P-256 private key in PEM (\(error.message)); nothing was made",
          field: name)
      }
      keys[KeyFile.given(name)] = text
    }
    return keys
  }

  /// `POST /storesim/v1/sessions/{session}/{command}`.
  private func call(_ spec: CommandSpec, session id: String, body: [UInt8]) throws(ControlError) -> HTTPResponse {
    let location = try sessions.location(id)
    let members = try Self.members(body)
    let line: (words: [String], options: [String])
    switch CommandCalls.commandLine(spec, members, paths: false) {
    case .success(let given): line = given
    case .failure(let refusal): throw ControlError(400, "usage", refusal.message, field: refusal.field)
    }
    let session = id == ControlSessions.defaultName ? location.file : location.shown
    // An option with an optional value given alone (`timeline {"svg": true}`) prints a drawing,
    // which has no JSON: the command runs as the MCP tools run it (its JSON, or its refusal, to
    // a sink of its own), and the drawing is the text answer.
    let drawing = line.options.contains { given in
      spec.options.contains { $0.valueIsOptional && given == "--\($0.name)=-" }
    }
    let argv = [spec.name] + line.options + (drawing ? [] : ["--json"]) + ["--session=\(session)", "--"] + line.words
    return ok(try run(argv, spec: spec, jsonAside: drawing))
  }

  /// Runs a command line in-process, its output captured: its `--json` answer, or its refusal.
  /// With `jsonAside`, the JSON goes to a sink of its own and standard output is the text.
  private func run(
    _ argv: [String], spec: CommandSpec, jsonAside: Bool = false, keys: [String: String] = [:]
  ) throws(ControlError) -> JSONOutput {
    let out = Mutex(""), document = Mutex("")
    var captured = environment
    captured.givenKeys = keys
    captured.writeOut = { text in out.withLock { $0 += text } }
    captured.writeErr = { _ in }
    if jsonAside { captured.writeJSON = { text in document.withLock { $0 += text } } }
    let code = CLI.run(argv, environment: captured)
    let text = out.withLock { $0 }
    let json = jsonAside ? document.withLock { $0 } : text
    let node = try? JSONParser.parse(Array(json.utf8))
    if let node, case .string(let message)? = node["error"]?.value, node["exitCode"] != nil {
      let exit = CLIError(code: ExitCode(rawValue: code) ?? .failure, message: message)
      throw ControlError(command: exit, spec: spec)
    }
    guard let node else {
      // A command whose answer is not JSON (an SVG drawing, a PEM certificate): as text.
      return .object(["text": .string(text)])
    }
    return JSONOutput(node: node)
  }

  /// Host, Origin and the control token: a web page elsewhere cannot drive the API (issue 46,
  /// item 8). A `Host` that is no loopback name is refused (DNS rebinding), an `Origin` that is
  /// not this server's own is refused, and no CORS header is ever sent, so a browser never lets
  /// a page read an answer. Beyond loopback the control token is required instead; a session's
  /// App Store Server API keeps Apple's bearer token in `Authorization`.
  func admit(_ request: HTTPRequest, serverAPI: Bool) -> ControlError? {
    let host = request.headers["host"] ?? ""
    if !exposed && !Self.isLoopbackHost(host) {
      return ControlError(
        403, "forbiddenHost",
        "the control API answers only requests to a loopback host (Host: 127.0.0.1:PORT or localhost:PORT)")
    }
    if let origin = request.headers["origin"], origin.lowercased() != "http://" + host.lowercased() {
      return ControlError(403, "forbiddenOrigin", "a request from another origin (a web page) is refused")
    }
    if let token, !serverAPI, !Self.constantTimeEqual(request.headers["authorization"] ?? "", "Bearer " + token) {
      return ControlError(
        401, "unauthorized",
        "the control API needs 'Authorization: Bearer TOKEN' (serve --control-token, or the token serve printed)")
    }
    return nil
  }

  /// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
  static func isLoopbackHost(_ header: String) -> Bool {
    var name = Substring(header)
    if name.hasPrefix("[") {
      guard let end = name.firstIndex(of: "]") else { return false }
      name = name[name.index(after: name.startIndex)..<end]
    } else if let colon = name.lastIndex(of: ":") {
      name = name[..<colon]
    }
    return !name.isEmpty && isLoopback(name.lowercased())
  }

  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }
}

/// A session's App Store Server API under its base URL: `{base}/inApps/...`, `{base}/verifyReceipt`
/// and `{base}/sandbox/verifyReceipt`, answered as the root answers them for `default`.
enum ServerAPIPath {
  static func isServerAPI(_ rest: ArraySlice<String>) -> Bool {
    guard let first = rest.first else { return false }
    return first == "inApps" || (first == "verifyReceipt" && rest.count == 1)
      || (first == "sandbox" && rest.count == 2 && rest.last == "verifyReceipt")
  }

  /// The request as the root would see it: the session's prefix taken off its target.
  static func request(_ request: HTTPRequest, _ rest: ArraySlice<String>) -> HTTPRequest {
    let query = request.target.firstIndex(of: "?").map { String(request.target[$0...]) } ?? ""
    var inner = HTTPRequest(
      method: request.method, target: "/" + rest.joined(separator: "/") + query, headers: request.headers,
      body: request.body)
    inner.received = request.received
    return inner
  }
}
