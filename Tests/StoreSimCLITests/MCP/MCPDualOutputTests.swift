import Foundation
import StoreSim
import Testing

@testable import StoreSimCLI

/// Issue 36: a tool's result is the command's `--json` output as structured content plus the
/// text a person reads, both from one run, also for a command that changes the session.
@Suite struct MCPDualOutputTests {
  /// A mutating command as a tool call and as a command line, after the same setup.
  struct Case: CustomStringConvertible, Sendable {
    var setup: [String]
    var tool: String
    var arguments: String
    var line: String
    var description: String { line }
  }

  static let start = "init Premium.storekit --start 2026-01-01T00:00:00Z --session s.json"
  static let monthly = "com.example.premium.monthly"

  static let cases: [Case] = [
    Case(
      setup: [], tool: "init", arguments: #"{"arguments":["Premium.storekit"],"start":"2026-01-01T00:00:00Z"}"#,
      line: start),
    Case(
      setup: [start], tool: "buy", arguments: #"{"arguments":["\#(monthly)"]}"#, line: "buy \(monthly) --session s.json"
    ),
    Case(
      setup: [start, "buy \(monthly) --session s.json"], tool: "advance", arguments: #"{"arguments":["1mo"]}"#,
      line: "advance 1mo --session s.json"),
    Case(
      setup: [start, "buy \(monthly) --session s.json"], tool: "refund",
      arguments: #"{"arguments":["2000000000000001"]}"#,
      line: "refund 2000000000000001 --session s.json"),
    Case(
      setup: [start, "buy \(monthly) --session s.json"], tool: "refund",
      arguments: #"{"arguments":["request","\#(monthly)"]}"#, line: "refund request \(monthly) --session s.json"),
    Case(
      setup: [start, "settings ask-to-buy on --session s.json", "buy \(monthly) --session s.json"], tool: "approve",
      arguments: "{}", line: "approve --session s.json"),
    Case(
      setup: [start, "buy com.example.coins.100 --session s.json"], tool: "finish", arguments: #"{"all":true}"#,
      line: "finish --all --session s.json"),
    Case(
      setup: [start], tool: "settings", arguments: #"{"arguments":["billing-retry","on"]}"#,
      line: "settings billing-retry on --session s.json"),
  ]

  /// Text with each JWS's signature masked: twin sessions sign the same payloads, and an ES256
  /// signature may differ between two signings of one payload.
  static func masked(_ text: String?) -> String? {
    text?.replacingOccurrences(
      of: #"(eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+"#, with: "$1.SIGNATURE", options: .regularExpression)
  }

  /// The result of one tool call on a server whose session is `s.json` in the harness's folder.
  static func call(_ tool: String, _ arguments: String, in cli: CLIHarness) throws -> JSONNode {
    let environment = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600) })
    let server = MCPServer(
      tools: MCPTools(table: .standard, environment: environment, session: "s.json", customer: nil))
    let answer = try #require(
      server.handle(
        #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments)}}"#))
    return try #require(try JSONParser.parse(Array(answer.utf8))["result"])
  }

  @Test(arguments: cases)
  func aChangingToolAnswersTheCommandsTextAndItsJSONFromOneRun(_ c: Case) throws {
    // Three twins: one for the tool, one for the text the CLI prints, one for its --json.
    let agent = try CLIHarness(), text = try CLIHarness(), json = try CLIHarness()
    for line in c.setup {
      for cli in [agent, text, json] { #expect(cli.run(line).code == 0, "\(line)") }
    }
    let result = try Self.call(c.tool, c.arguments, in: agent)
    let printed = text.run(c.line)
    let printedJSON = json.run(c.line + " --json")
    #expect(printed.code == 0 && printedJSON.code == 0, "\(printed.stderr)\(printedJSON.stderr)")
    #expect(result["isError"]?.value == .bool(false))
    #expect(Self.masked(MCPServerTests.firstText(result)) == Self.masked(printed.stdout))
    #expect(!printed.stdout.hasPrefix("{"), "the text is for people: \(printed.stdout)")
    let structured = try #require(result["structuredContent"])
    #expect(
      Self.masked(JSONOutput(node: structured).rendered())
        == Self.masked(MCPTools.structured(printedJSON.stdout)?.rendered()))
    // The change was made once: the agent's session reads as the text twin's (the files differ
    // only by the configuration's folder and their checksum).
    for read in ["transactions", "notifications", "settings", "now", "pending"] {
      let line = read + " --session s.json --json"
      #expect(Self.masked(agent.run(line).stdout) == Self.masked(text.run(line).stdout), "\(read)")
    }
  }

  @Test func aReadingToolAnswersItsTextAndJSONFromOneRun() throws {
    let agent = try CLIHarness(), cli = try CLIHarness()
    for line in [Self.start, "buy \(Self.monthly) --session s.json"] {
      for h in [agent, cli] { #expect(h.run(line).code == 0) }
    }
    let monthly = #"{"arguments":["\#(Self.monthly)"]}"#
    for (tool, arguments, line) in [
      ("transactions", "{}", "transactions"), ("status", "{}", "status"), ("settings", "{}", "settings"),
      ("products", "{}", "products"), ("validate", #"{"arguments":["Premium.storekit"]}"#, "validate Premium.storekit"),
      ("latest", monthly, "latest \(Self.monthly)"),
      (
        "latest", #"{"arguments":["\#(Self.monthly)"],"signed":true}"#,
        "latest \(Self.monthly) --signed"
      ), ("pending", "{}", "pending"), ("receipt", "{}", "receipt"),
      ("consumption", "{}", "consumption"), ("notifications", "{}", "notifications"), ("now", "{}", "now"),
      ("timeline", "{}", "timeline"), ("entitlements", "{}", "entitlements"),
      ("status", #"{"format":"api"}"#, "status --format api"),
    ] {
      let result = try Self.call(tool, arguments, in: agent)
      #expect(
        Self.masked(MCPServerTests.firstText(result)) == Self.masked(cli.run(line + " --session s.json").stdout),
        "\(tool)")
      let structured = try #require(result["structuredContent"], "\(tool)")
      #expect(
        Self.masked(JSONOutput(node: structured).rendered())
          == Self.masked(MCPTools.structured(cli.run(line + " --session s.json --json").stdout)?.rendered()),
        "\(tool)")
      if tool == "latest", arguments.contains("signed") {
        // One run: the text and the JSON carry the same signature.
        #expect(MCPServerTests.firstText(result) == MCPServerTests.string(structured["result"]).map { $0 + "\n" })
      }
    }
  }

  @Test func aRefusedChangeAnswersTheMessageAndTheJSONErrorObject() throws {
    let agent = try CLIHarness()
    #expect(agent.run(Self.start).code == 0)
    let result = try Self.call("refund", #"{"arguments":["2000000000000009"]}"#, in: agent)
    #expect(result["isError"]?.value == .bool(true))
    let printed = agent.run("refund 2000000000000009 --session s.json --json")
    #expect(printed.code != 0)
    let structured = try #require(result["structuredContent"])
    #expect(JSONOutput(node: structured).rendered() == MCPTools.structured(printed.stdout)?.rendered())
    #expect(MCPServerTests.firstText(result).map { printed.stderr.contains($0) } == true)
  }
}
