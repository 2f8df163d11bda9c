import Foundation
import StoreSim
import StoreSimSync

/// storesim's commands as MCP tools: each tool is the command of the same name, its input
/// schema made from the command's declarations (the ones `--help` and the completions read),
/// and a call is the command line run through `CLI.run` in-process.
struct MCPTools {
  /// Commands that are no tool (`CommandCalls.interactive`).
  static let excluded = CommandCalls.interactive
  /// Commands that change neither the session nor any file (`readOnlyHint`).
  static let readOnly: Set<String> = [
    "validate", "products", "now", "entitlements", "transactions", "latest", "status", "pending", "receipt",
    "restore", "consumption", "version",
  ]
  /// Commands that write a file they are given (in the MCP server's folders) but never change
  /// the session, and so post nothing: neither read-only nor open-world.
  static let writeFilesOnly: Set<String> = ["timeline", "report"]

  /// Commands that reach URLs outside the session (`openWorldHint`): `settings` sets the
  /// delivery URL and `retention` asks the developer's server; beside them every command that
  /// changes the session, which posts its notifications to the delivery URL when one is set.
  static let reachesURLs: Set<String> = ["settings", "retention"]

  let table: CommandTable
  /// What `storesim mcp` itself was given: the session, the customer, the folder.
  let environment: CLIEnvironment
  let session: String?
  let customer: String?
  let resources = MCPResources()

  var specs: [CommandSpec] { CommandCalls.tools(table) }
  var names: [String] { specs.map(\.name) + ["expect"] }

  /// `tools/list`.
  var descriptions: [JSONOutput] {
    specs.map { spec in
      let readOnly = Self.readOnly.contains(spec.name)
      return .object([
        "name": .string(spec.name),
        "title": .string(spec.abstract),
        "description": .string(description(spec)),
        "inputSchema": Self.inputSchema(spec),
        "annotations": .object([
          "readOnlyHint": .bool(readOnly),
          "openWorldHint": .bool(
            (!readOnly && !Self.writeFilesOnly.contains(spec.name)) || Self.reachesURLs.contains(spec.name)),
        ]),
      ])
    } + [expectDescription]
  }

  private func description(_ spec: CommandSpec) -> String {
    var text = spec.abstract + "."
    if !spec.discussion.isEmpty { text += " " + spec.discussion.split(separator: "\n").joined(separator: " ") }
    text += " Command line: " + spec.usage + ". Example: " + spec.example.split(separator: "\n").joined(separator: "; ")
    return text
  }

  /// The JSON Schema of a command's input (`CommandCalls.inputSchema`).
  static func inputSchema(_ spec: CommandSpec) -> JSONOutput { CommandCalls.inputSchema(spec) }

  /// The command line of a call, or the message refusing its arguments.
  func commandLine(
    _ name: String, _ arguments: [JSONMember]
  ) -> Result<(words: [String], options: [String]), ToolRefusal> {
    guard let spec = table.spec(named: name) else { return .failure(ToolRefusal("unknown tool '\(name)'")) }
    return CommandCalls.commandLine(spec, arguments)
  }

  static func texts(_ node: JSONNode) -> [String]? { CommandCalls.texts(node) }
  static func text(_ node: JSONNode) -> String? { CommandCalls.text(node) }

  /// `tools/call`: the command's result, or a tool error with its one-line message.
  func call(_ name: String, arguments: [JSONMember]) -> JSONOutput {
    if name == "expect" { return expect(arguments) }
    let line: (words: [String], options: [String])
    switch commandLine(name, arguments) {
    case .success(let given): line = given
    case .failure(let refusal): return Self.toolError(refusal.message)
    }
    let argv = [name] + line.options + sessionOptions(line.options) + ["--"] + line.words
    // One run in dual mode: the text and the JSON of the same change (or the error object).
    // None when the command has no JSON (`timeline --svg`, `api`).
    let both = run(argv, dual: true)
    return Self.result(both, text: both.stdout, structured: Self.structured(both.json))
  }

  /// A tool result: the text and any warnings, or the one-line refusal when the command failed.
  static func result(_ run: Run, text: String, structured: JSONOutput?) -> JSONOutput {
    guard run.code == 0 else {
      return .object([
        "content": .array([textItem(errorLine(run))]), "structuredContent": structured, "isError": .bool(true),
      ])
    }
    var content = [textItem(text)]
    if !run.stderr.isEmpty { content.append(textItem(run.stderr)) }
    return .object(["content": .array(content), "structuredContent": structured, "isError": .bool(false)])
  }

  /// `--session` and `--customer` as `storesim mcp` was given them (a call's own customer wins).
  func sessionOptions(_ given: [String]) -> [String] {
    var words: [String] = []
    if let session { words.append("--session=\(session)") }
    if let customer, !given.contains(where: { $0.hasPrefix("--customer=") }) { words.append("--customer=\(customer)") }
    return words
  }

  /// What one in-process run of the command line printed, and its exit code.
  struct Run {
    var stdout: String
    var stderr: String
    var code: Int32
    /// In dual mode, the `--json` output written beside the text.
    var json = ""
  }

  /// Runs a command line in-process with its output captured; `readLine` feeds a shell.
  /// `dual`: the text on stdout and the `--json` output in `Run.json`, from one run.
  func run(_ argv: [String], json: Bool = false, dual: Bool = false, input: [String] = []) -> Run {
    let out = Mutex(""), err = Mutex(""), lines = Mutex(input), document = Mutex("")
    var captured = environment
    captured.writeOut = { text in out.withLock { $0 += text } }
    captured.writeErr = { text in err.withLock { $0 += text } }
    if dual { captured.writeJSON = { text in document.withLock { $0 += text } } }
    captured.readLine = { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
    captured.isTerminal = false
    captured.columns = HelpText.width
    var words = argv
    if json, let end = words.firstIndex(of: "--") { words.insert("--json", at: end) }
    let code = CLI.run(words, environment: captured)
    return Run(stdout: out.withLock { $0 }, stderr: err.withLock { $0 }, code: code, json: document.withLock { $0 })
  }

  /// The `--json` output as structured content: an object as printed, anything else wrapped
  /// as `{"result": ...}`; nil when it is not JSON.
  static func structured(_ stdout: String) -> JSONOutput? {
    guard !stdout.isEmpty, let node = try? JSONParser.parse(Array(stdout.utf8)) else { return nil }
    let value = JSONOutput(node: node)
    if case .object = value { return value }
    return .object(["result": value])
  }

  /// The command's one-line refusal (`error: ...` on stderr), else what it printed.
  static func errorLine(_ run: Run) -> String {
    let lines = run.stderr.split(separator: "\n").map(String.init)
    if let line = lines.first(where: { $0.hasPrefix("error: ") }) { return String(line.dropFirst(7)) }
    let text = (run.stderr + run.stdout).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? "the command failed (exit code \(run.code))" : text
  }

  static func textItem(_ text: String) -> JSONOutput {
    .object(["type": .string("text"), "text": .string(text)])
  }

  static func toolError(_ message: String) -> JSONOutput {
    .object(["content": .array([textItem(message)]), "isError": .bool(true)])
  }
}
