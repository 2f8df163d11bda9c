import Foundation
import StoreSim
import StoreSimSync
import Testing

@testable import StoreSimCLI

/// Issue 36: `storesim mcp`, driven line by line as an agent client drives it.
@Suite struct MCPServerTests {
  /// A server on a session file in a harness folder (the session made by the CLI itself).
  struct Fixture {
    let cli: CLIHarness
    let server: MCPServer
    var session: String { cli.folder + "/s.json" }

    /// `allowed`: the server's `--allow-path` folders; it may use the harness folder (its
    /// project and the session's folder) and those, as `storesim mcp` would.
    init(initialized: Bool = true, allowed: [String] = []) throws {
      cli = try CLIHarness()
      var environment = CLIEnvironment(
        writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder,
        now: { Date(timeIntervalSince1970: 1_767_225_600) })
      environment.pathPolicy = MCPCommand.pathPolicy(environment, session: cli.folder + "/s.json", allowed: allowed)
      server = MCPServer(
        tools: MCPTools(
          table: .standard, environment: environment, session: cli.folder + "/s.json", customer: nil))
      if initialized {
        #expect(cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z --session s.json").code == 0)
      }
    }

    /// The answer to one message, parsed.
    func send(_ line: String) throws -> JSONNode? {
      guard let answer = server.handle(line) else { return nil }
      #expect(!answer.contains("\n"), "an answer is one line")
      return try JSONParser.parse(Array(answer.utf8))
    }

    /// `tools/call NAME ARGUMENTS` (arguments as JSON text), answered with a result.
    func call(_ name: String, _ arguments: String = "{}", id: Int = 7) throws -> JSONNode {
      let answer = try send(
        #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(name)","arguments":\#(arguments)}}"#)
      let result = try #require(answer?["result"], "no result: \(String(describing: answer))")
      return result
    }

    var sessionBytes: Data? { FileManager.default.contents(atPath: session) }
  }

  static func string(_ node: JSONNode?) -> String? {
    if case .string(let s)? = node?.value { return s }
    return nil
  }

  static func errorCode(_ node: JSONNode?) -> String? {
    if case .number(let n)? = node?["error"]?["code"]?.value { return n }
    return nil
  }

  static func isError(_ result: JSONNode) -> Bool { result["isError"]?.value == .bool(true) }

  static func firstText(_ result: JSONNode) -> String? {
    if case .array(let items)? = result["content"]?.value { return string(items.first?["text"]) }
    return nil
  }

  @Test func initializeAnswersTheClientsRevisionWhenSpokenElseTheNewest() throws {
    let f = try Fixture(initialized: false)
    let known = try f.send(
      #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
    )
    #expect(Self.string(known?["result"]?["protocolVersion"]) == "2025-06-18")
    #expect(Self.string(known?["result"]?["serverInfo"]?["name"]) == "storesim")
    #expect(known?["result"]?["capabilities"]?["tools"] != nil)
    #expect(known?["result"]?["capabilities"]?["resources"] != nil)
    let unknown = try f.send(
      #"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{}}}"#)
    #expect(Self.string(unknown?["result"]?["protocolVersion"]) == MCPServer.protocolVersions[0])
    #expect(Self.string(unknown?["id"]) == "a")
    #expect(try f.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) == nil)
  }

  @Test func everyDeclaredCommandAndOptionIsAToolAndAPropertyOfItsSchema() throws {
    let f = try Fixture(initialized: false)
    let answer = try f.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
    guard case .array(let tools)? = answer?["result"]?["tools"]?.value else {
      Issue.record("no tools")
      return
    }
    let byName = Dictionary(tools.compactMap { t in Self.string(t["name"]).map { ($0, t) } }) { a, _ in a }
    for spec in CommandTable.standard.commands where !MCPTools.excluded.contains(spec.name) {
      let tool = try #require(byName[spec.name], "command \(spec.name) is no tool")
      let properties = tool["inputSchema"]?["properties"]
      for option in spec.options {
        let property = try #require(properties?[option.name], "\(spec.name) --\(option.name) is not in its schema")
        if option.valueIsOptional {  // `timeline --svg [FILE]`: a file, or true for the option alone
          guard case .array(let types)? = property["type"]?.value else {
            Issue.record("\(spec.name) --\(option.name): type is not [string, boolean]")
            continue
          }
          #expect(types.map { Self.string($0) } == ["string", "boolean"])
        } else {
          #expect(Self.string(property["type"]) == (option.value == nil ? "boolean" : "string"))
        }
      }
      #expect((properties?["arguments"] != nil) == (spec.positionals != nil), "\(spec.name) arguments")
      #expect(tool["inputSchema"]?["additionalProperties"]?.value == .bool(false))
    }
    #expect(byName["expect"] != nil)
    for name in MCPTools.excluded { #expect(byName[name] == nil, "\(name) takes over stdin or runs forever") }
    // The positional count of the declaration is the schema's.
    #expect(byName["buy"]?["inputSchema"]?["properties"]?["arguments"]?["maxItems"]?.value == .number("1"))
  }

  @Test func aBuyAndAnAdvanceThroughToolsAreSavedAndTheCLIReadsTheStatus() throws {
    let f = try Fixture()
    let bought = try f.call("buy", #"{"arguments":["com.example.premium.monthly"]}"#)
    #expect(!Self.isError(bought))
    #expect(Self.string(bought["structuredContent"]?["result"]) == "purchased")
    let advanced = try f.call("advance", #"{"arguments":["1mo"]}"#)
    #expect(!Self.isError(advanced))
    // The CLI on the same file sees what the agent did.
    let cli = f.cli.run("status --session s.json --json")
    #expect(cli.stdout.contains("\"state\": \"subscribed\""))
    #expect(cli.stdout.contains("\"expiresDate\": 1770508800000"))
    let status = try f.call("status")
    #expect(Self.firstText(status)?.contains("com.example.premium.monthly  2026-02-08T00:00:00Z") == true)
    guard case .array(let rows)? = status["structuredContent"]?["result"]?.value else {
      Issue.record("status has no JSON rows")
      return
    }
    #expect(Self.string(rows.first?["state"]) == "subscribed")
  }

  @Test func whatTheCLISavesTheAgentReadsOnItsNextCall() throws {
    let f = try Fixture()
    #expect(f.cli.run("buy com.example.coins.100 --session s.json").code == 0)
    let transactions = try f.call("transactions")
    guard case .array(let rows)? = transactions["structuredContent"]?["result"]?.value else {
      Issue.record("no transactions")
      return
    }
    #expect(rows.map { Self.string($0["productId"]) } == ["com.example.coins.100"])
    // A reading command whose option excludes JSON (`timeline --svg`) still answers its text.
    let svg = try f.call("timeline", #"{"svg":true}"#)
    #expect(!Self.isError(svg))
    #expect(Self.firstText(svg)?.hasPrefix("<svg xmlns=") == true)
    #expect(svg["structuredContent"] == nil)
  }

  @Test func purchasesMadeAtOnceByTheAgentAndTheCLIAreAllKept() throws {
    let f = try Fixture()
    let folder = f.cli.folder
    DispatchQueue.concurrentPerform(iterations: 16) { i in
      if i.isMultiple(of: 2) {
        let answer = f.server.handle(
          #"{"jsonrpc":"2.0","id":\#(i),"method":"tools/call","params":{"name":"buy","arguments":{"arguments":["com.example.coins.100"]}}}"#
        )
        #expect(answer?.contains(#""isError":false"#) == true, "\(answer ?? "no answer")")
      } else {
        let environment = CLIEnvironment(writeOut: { _ in }, writeErr: { _ in }, currentDirectory: folder)
        #expect(CLI.run(["buy", "com.example.coins.100", "--session", "s.json"], environment: environment) == 0)
      }
    }
    let listed = f.cli.run("transactions --session s.json --json").stdout
    #expect(listed.components(separatedBy: "\"productId\": \"com.example.coins.100\"").count - 1 == 16)
  }

  @Test func aRefusalIsAToolErrorWithTheOneLineMessageAndChangesNothing() throws {
    let f = try Fixture()
    let before = f.sessionBytes
    let result = try f.call("buy", #"{"arguments":["com.example.nope"]}"#)
    #expect(Self.isError(result))
    #expect(Self.firstText(result) == "product 'com.example.nope' is not in the configuration")
    #expect(f.sessionBytes == before)
  }

  @Test func argumentsThatDoNotFitTheSchemaAreAToolErrorAndChangeNothing() throws {
    let f = try Fixture()
    let before = f.sessionBytes
    for arguments in [
      #"{"colour":"red"}"#, #"{"quantity":true,"arguments":["com.example.coins.100"]}"#, #"{"arguments":"x"}"#,
      #"{"arguments":["a","b"]}"#, #"{"arguments":["--json"]}"#,
    ] {
      let result = try f.call("buy", arguments)
      #expect(Self.isError(result), "\(arguments)")
      #expect(Self.firstText(result)?.isEmpty == false)
    }
    #expect(f.sessionBytes == before)
  }

  @Test func protocolErrorsCarryJSONRPCCodes() throws {
    let f = try Fixture()
    #expect(Self.errorCode(try f.send(#"{"jsonrpc":"2.0","id":1,"method":"frobnicate"}"#)) == "-32601")
    let parse = try f.send("{not json")
    #expect(Self.errorCode(parse) == "-32700")
    #expect(parse?["id"]?.value == .null)
    #expect(
      Self.errorCode(try f.send(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fly"}}"#))
        == "-32602")
    #expect(Self.errorCode(try f.send(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}"#)) == "-32602")
    #expect(
      Self.errorCode(
        try f.send(#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"buy","arguments":[1]}}"#))
        == "-32602")
    #expect(Self.errorCode(try f.send(#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#)) == "-32600")
    #expect(Self.errorCode(try f.send(#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#)) == "-32600")
    #expect(
      Self.errorCode(
        try f.send(#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"storesim://x"}}"#))
        == "-32002")
    // A notification is never answered, not even when it is wrong.
    #expect(try f.send(#"{"jsonrpc":"2.0","method":"frobnicate"}"#) == nil)
    #expect(try f.send(#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#)?["result"] != nil)
  }

  @Test func aBrokenSessionFileIsAToolErrorAndIsLeftAsItWas() throws {
    let f = try Fixture()
    try Data("{\"broken\": ".utf8).write(to: URL(fileURLWithPath: f.session))
    let before = f.sessionBytes
    for (name, arguments) in [("status", "{}"), ("buy", #"{"arguments":["com.example.premium.monthly"]}"#)] {
      let result = try f.call(name, arguments)
      #expect(Self.isError(result))
      #expect(Self.firstText(result)?.contains("s.json") == true, "\(String(describing: Self.firstText(result)))")
    }
    let read = try f.send(
      #"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"storesim://session/transactions"}}"#)
    #expect(Self.errorCode(read) == "-32603")
    #expect(f.sessionBytes == before)
  }

  @Test func resourcesAreTheSessionStateAsJSON() throws {
    let f = try Fixture()
    _ = try f.call("buy", #"{"arguments":["com.example.coins.100"]}"#)
    let list = try f.send(#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#)
    guard case .array(let resources)? = list?["result"]?["resources"]?.value else {
      Issue.record("no resources")
      return
    }
    #expect(
      Set(resources.compactMap { Self.string($0["uri"]) }) == [
        "storesim://session/transactions", "storesim://session/status", "storesim://session/notifications",
        "storesim://configuration/products",
      ])
    let read = try f.send(
      #"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"storesim://session/transactions"}}"#)
    guard case .array(let contents)? = read?["result"]?["contents"]?.value, let text = Self.string(contents[0]["text"])
    else {
      Issue.record("no contents")
      return
    }
    #expect(text.contains("\"productId\": \"com.example.coins.100\""))
    #expect(try JSONParser.parse(Array(text.utf8)).value.kindDescription == "an array")
  }

  @Test func expectHoldsOrIsAToolError() throws {
    let f = try Fixture()
    _ = try f.call("buy", #"{"arguments":["com.example.premium.monthly"]}"#)
    let held = try f.call("expect", #"{"arguments":["state","com.example.premium.monthly","subscribed"]}"#)
    #expect(!Self.isError(held))
    #expect(held["structuredContent"]?["passed"]?.value == .bool(true))
    let failed = try f.call("expect", #"{"arguments":["state","com.example.premium.monthly","expired"]}"#)
    #expect(Self.isError(failed))
    #expect(Self.firstText(failed)?.contains("expected") == true)
  }

  @Test func closedInputEndsTheServerWithExitCodeZero() throws {
    let cli = try CLIHarness()
    let lines = Mutex([
      #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, "", #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ])
    let out = Mutex("")
    let environment = CLIEnvironment(
      writeOut: { text in out.withLock { $0 += text } }, writeErr: { _ in }, currentDirectory: cli.folder,
      readLine: { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
    let code = CLI.run(["mcp", "--session", "none.json"], environment: environment)
    #expect(code == 0)
    let answers = out.withLock { $0 }.split(separator: "\n")
    #expect(answers.count == 2)
    #expect(answers.first?.contains(#""id":1"#) == true)
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/none.json"))
  }
}
