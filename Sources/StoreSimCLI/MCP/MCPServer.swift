import Foundation
import StoreSim

/// The Model Context Protocol over standard input and output: JSON-RPC 2.0 messages, one a
/// line. Every tool and resource is a storesim command run through `CLI.run` in-process, so it
/// takes the session's lock and saves as the command line does.
struct MCPServer {
  /// The protocol revisions this server speaks, newest first.
  static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

  /// JSON-RPC's error codes (and MCP's one for a missing resource).
  enum ErrorCode: Int64 {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case resourceNotFound = -32002
  }

  /// A request refused at the protocol level.
  struct Failure: Error {
    var code: ErrorCode
    var message: String
    var data: JSONOutput?
  }

  let tools: MCPTools

  /// The answer to one line of input: nil for a notification, a response or an empty line.
  func handle(_ input: InputLine) -> String? {
    guard case .text(let line) = input else {
      return Self.error(
        id: .null, .parseError,
        "parse error: a message longer than \(InputLine.limit >> 20) MiB; it was not read (one message a line)")
    }
    return handle(line)
  }

  /// The answer to one line of text.
  func handle(_ line: String) -> String? {
    guard !line.allSatisfy(\.isWhitespace) else { return nil }
    let message: JSONNode
    do {
      message = try JSONParser.parse(Array(line.utf8))
    } catch {
      return Self.error(id: .null, .parseError, "parse error: \(error.message) at column \(error.location.column)")
    }
    guard let members = message.members else {
      return Self.error(id: .null, .invalidRequest, "invalid request: a message is one JSON object (no batches)")
    }
    let id = message["id"].map { JSONOutput(node: $0) }
    if let id, !Self.isValidID(id) {
      return Self.error(id: .null, .invalidRequest, "invalid request: 'id' is a string or an integer")
    }
    guard case .string("2.0")? = message["jsonrpc"]?.value else {
      return Self.error(id: id ?? .null, .invalidRequest, "invalid request: 'jsonrpc' must be \"2.0\"")
    }
    guard let methodNode = message["method"] else {
      // A response to a request we never send, or nonsense without an id: nothing to answer.
      if members.contains(where: { $0.key == "result" || $0.key == "error" }) { return nil }
      return id.map { Self.error(id: $0, .invalidRequest, "invalid request: no 'method'") }
    }
    guard case .string(let method) = methodNode.value else {
      return Self.error(id: id ?? .null, .invalidRequest, "invalid request: 'method' is a string")
    }
    let params = message["params"]
    guard let id else {
      // A notification (notifications/initialized, notifications/cancelled, ...): never answered.
      return nil
    }
    do {
      let result = try answer(method, params: params)
      return JSONOutput.object(["jsonrpc": .string("2.0"), "id": id, "result": result]).rendered(pretty: false)
    } catch {
      return Self.error(id: id, error.code, error.message, data: error.data)
    }
  }

  /// The result of a request.
  func answer(_ method: String, params: JSONNode?) throws(Failure) -> JSONOutput {
    if let params, params.members == nil {
      throw Failure(code: .invalidParams, message: "invalid params: 'params' is an object")
    }
    switch method {
    case "initialize": return initialize(params)
    case "ping": return .object([:])
    case "tools/list": return .object(["tools": .array(tools.descriptions)])
    case "tools/call":
      guard case .string(let name)? = params?["name"]?.value else {
        throw Failure(code: .invalidParams, message: "invalid params: tools/call needs the tool's 'name'")
      }
      guard tools.names.contains(name) else {
        throw Failure(
          code: .invalidParams,
          message: Suggest.appending(to: "unknown tool '\(name)'", for: name, in: tools.names))
      }
      let arguments = params?["arguments"]
      if let arguments, arguments.value != .null, arguments.members == nil {
        throw Failure(code: .invalidParams, message: "invalid params: 'arguments' is an object")
      }
      return tools.call(name, arguments: arguments?.members ?? [])
    case "resources/list": return .object(["resources": .array(tools.resources.descriptions)])
    case "resources/templates/list": return .object(["resourceTemplates": .array([])])
    case "resources/read":
      guard case .string(let uri)? = params?["uri"]?.value else {
        throw Failure(code: .invalidParams, message: "invalid params: resources/read needs a 'uri'")
      }
      return try tools.resources.read(uri, tools: tools)
    default:
      throw Failure(code: .methodNotFound, message: "method not found: \(method)")
    }
  }

  private func initialize(_ params: JSONNode?) -> JSONOutput {
    var version = Self.protocolVersions[0]
    if case .string(let asked)? = params?["protocolVersion"]?.value, Self.protocolVersions.contains(asked) {
      version = asked
    }
    return .object([
      "protocolVersion": .string(version),
      "capabilities": .object([
        "tools": .object(["listChanged": .bool(false)]),
        "resources": .object(["subscribe": .bool(false), "listChanged": .bool(false)]),
      ]),
      "serverInfo": .object([
        "name": .string("storesim"), "title": .string("storesim App Store simulator"),
        "version": .string(storesimVersion),
      ]),
      "instructions": .string(
        "Each tool is the storesim command of the same name (see 'storesim help NAME'); "
          + "positional words go in 'arguments', options under their own names. Start with "
          + "'init' on a .storekit file unless the session exists; 'advance' moves the virtual clock."),
    ])
  }

  static func isValidID(_ id: JSONOutput) -> Bool {
    switch id {
    case .string, .int: return true
    case .number(let text): return Int64(text) != nil
    default: return false
    }
  }

  static func error(id: JSONOutput, _ code: ErrorCode, _ message: String, data: JSONOutput? = nil) -> String {
    JSONOutput.object([
      "jsonrpc": .string("2.0"), "id": id,
      "error": .object(["code": .int(code.rawValue), "message": .string(message), "data": data]),
    ]).rendered(pretty: false)
  }
}

extension JSONOutput {
  /// The value of a parsed node (numbers kept as written; of duplicate keys, the last).
  init(node: JSONNode) {
    switch node.value {
    case .null: self = .null
    case .bool(let b): self = .bool(b)
    case .number(let n): self = .number(n)
    case .string(let s): self = .string(s)
    case .array(let items): self = .array(items.map(JSONOutput.init(node:)))
    case .object(let members):
      var dict: [String: JSONOutput] = [:]
      for member in members { dict[member.key] = JSONOutput(node: member.value) }
      self = .object(dict)
    }
  }
}
