import Foundation
import StoreSim

/// The session's state as MCP resources, each the `--json` output of the command that shows it.
struct MCPResources {
  struct Resource {
    var uri: String
    var name: String
    var description: String
    /// The command line whose `--json` output is the resource.
    var command: [String]
  }

  let all: [Resource] = [
    Resource(
      uri: "storesim://session/transactions", name: "transactions",
      description: "Every transaction of the customer (Transaction.all), as 'storesim transactions --json'",
      command: ["transactions"]),
    Resource(
      uri: "storesim://session/status", name: "status",
      description: "Subscription status per group (state, renewal info), as 'storesim status --json'",
      command: ["status"]),
    Resource(
      uri: "storesim://session/notifications", name: "notifications",
      description: "App Store Server Notifications V2 sent so far, as 'storesim notifications --json'",
      command: ["notifications"]),
    Resource(
      uri: "storesim://configuration/products", name: "products",
      description: "The configuration's products, prices, groups and offers, as 'storesim products --json'",
      command: ["products"]),
  ]

  /// `resources/list`.
  var descriptions: [JSONOutput] {
    all.map {
      .object([
        "uri": .string($0.uri), "name": .string($0.name), "description": .string($0.description),
        "mimeType": .string("application/json"),
      ])
    }
  }

  /// `resources/read`: the command's JSON; a refusal (no session, a broken file) is an error
  /// carrying its one-line message.
  func read(_ uri: String, tools: MCPTools) throws(MCPServer.Failure) -> JSONOutput {
    guard let resource = all.first(where: { $0.uri == uri }) else {
      throw MCPServer.Failure(
        code: .resourceNotFound, message: "resource not found: \(uri)", data: .object(["uri": .string(uri)]))
    }
    let run = tools.run(resource.command + tools.sessionOptions([]) + ["--"], json: true)
    guard run.code == 0 else {
      throw MCPServer.Failure(
        code: .internalError, message: MCPTools.errorLine(run),
        data: .object(["uri": .string(uri), "exitCode": .int(Int64(run.code))]))
    }
    return .object([
      "contents": .array([
        .object([
          "uri": .string(uri), "mimeType": .string("application/json"), "text": .string(run.stdout),
        ])
      ])
    ])
  }
}

extension MCPTools {
  /// The `expect` tool: a scenario's check, run as one line of `storesim shell` on the session.
  var expectDescription: JSONOutput {
    let forms = Expectation.Kind.allCases.map(\.form).joined(separator: "; ")
    return .object([
      "name": .string("expect"),
      "title": .string("Check the store as a scenario's 'expect' line does"),
      "description": .string(
        "Checks the session as a scenario's 'expect' line does (see 'storesim help expect'); "
          + "the result says whether it held, and a failed expectation is a tool error. "
          + "'arguments' are the words after 'expect'. Forms: \(forms)"),
      "inputSchema": .object([
        "type": .string("object"),
        "properties": .object([
          "arguments": .object([
            "type": .string("array"), "items": .object(["type": .string("string")]), "minItems": .int(1),
            "description": .string("the form and its words, e.g. [\"state\", \"PRODUCT\", \"subscribed\"]"),
          ]),
          "customer": .object([
            "type": .string("string"), "description": .string("check this customer's store (default 'default')"),
          ]),
        ]),
        "required": .array([.string("arguments")]),
        "additionalProperties": .bool(false),
      ]),
      "annotations": .object(["readOnlyHint": .bool(true), "openWorldHint": .bool(false)]),
    ])
  }

  /// Runs `expect WORDS` through the shell on the session, so it reads the session under its
  /// lock as the shell does.
  func expect(_ arguments: [JSONMember]) -> JSONOutput {
    var words: [String] = []
    var customer: String?
    for member in arguments {
      switch member.key {
      case "arguments":
        guard let texts = Self.texts(member.value), !texts.isEmpty else {
          return Self.toolError("'arguments' is a non-empty array of strings")
        }
        words = texts
      case "customer":
        guard let text = Self.text(member.value) else { return Self.toolError("'customer' is a string") }
        customer = text
      default:
        return Self.toolError("expect takes no argument '\(member.key)'; it takes arguments, customer")
      }
    }
    guard !words.isEmpty else { return Self.toolError("expect needs 'arguments': the form and its words") }
    var line = "expect"
    for word in words + (customer.map { ["--customer", $0] } ?? []) {
      if word.contains("\n") || (word.contains("'") && word.contains("\"")) {
        return Self.toolError("a word of an expectation holds a line break or both kinds of quote")
      }
      line += word.contains("'") ? " \"\(word)\"" : " '\(word)'"
    }
    let run = run(["shell"] + (session.map { ["--session=\($0)"] } ?? []), json: false, input: [line])
    let output = (run.stdout + run.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    let passed = run.code == 0
    return .object([
      "content": .array([Self.textItem(output.isEmpty ? (passed ? "expectation held" : "expectation failed") : output)]
      ),
      "structuredContent": .object(["passed": .bool(passed), "output": .string(output)]),
      "isError": .bool(!passed),
    ])
  }
}
