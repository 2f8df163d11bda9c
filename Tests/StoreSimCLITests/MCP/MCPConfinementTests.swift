import Foundation
import StoreSim
import Testing

@testable import StoreSimCLI

/// Issue 45, rows 1 and 2, and the caps: the MCP server reads and writes files only in its
/// project folder, the session's folder and the folders `--allow-path` adds; a file that is not
/// a scenario is refused without a word of it; a line past 16 MiB is refused.
@Suite struct MCPConfinementTests {
  typealias Fixture = MCPServerTests.Fixture

  /// A folder outside the harness's, holding a secret file.
  final class Outside {
    let folder = NSTemporaryDirectory() + "storesim-outside-" + UUID().uuidString
    var secret: String { folder + "/id_rsa" }
    static let content = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nsekrit-line\n"

    init() throws {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try Self.content.write(toFile: secret, atomically: true, encoding: .utf8)
    }
    deinit { try? FileManager.default.removeItem(atPath: folder) }
  }

  static func refusedAsOutside(_ result: JSONNode, _ path: String) -> Bool {
    guard MCPServerTests.isError(result), let text = MCPServerTests.firstText(result) else { return false }
    return text.contains("path '\(path)' is outside the folders this MCP server may use")
      && text.contains("widen with storesim mcp --allow-path DIR")
  }

  @Test func runReadsNoFileOutsideItsFolders() throws {
    let fixture = try Fixture()
    let outside = try Outside()
    let result = try fixture.call("run", #"{"arguments":["\#(outside.secret)"]}"#)
    #expect(Self.refusedAsOutside(result, outside.secret), "\(MCPServerTests.firstText(result) ?? "")")
    let relative = "../" + (outside.folder as NSString).lastPathComponent + "/id_rsa"
    let climbed = try fixture.call("run", #"{"arguments":["\#(relative)"]}"#)
    #expect(MCPServerTests.isError(climbed))
    #expect(MCPServerTests.firstText(climbed)?.contains("is outside the folders") == true)
    try FileManager.default.createSymbolicLink(
      atPath: fixture.cli.folder + "/link", withDestinationPath: outside.folder)
    let linked = try fixture.call("run", #"{"arguments":["link/id_rsa"]}"#)
    #expect(MCPServerTests.firstText(linked)?.contains("is outside the folders") == true)
    for answer in [result, climbed, linked] {
      #expect(!(MCPServerTests.firstText(answer) ?? "").contains("sekrit"))
    }
  }

  @Test func noToolWritesOutsideItsFolders() throws {
    let fixture = try Fixture()
    let outside = try Outside()
    try "buy com.example.premium.monthly\n".write(
      toFile: fixture.cli.folder + "/s.storesim", atomically: true, encoding: .utf8)
    let target = outside.folder + "/bashrc"
    let calls = [
      ("report", #"{"html":"\#(target)"}"#),
      ("run", #"{"arguments":["s.storesim"],"junit":"\#(target)"}"#),
      ("run", #"{"arguments":["s.storesim"],"report":"\#(target)"}"#),
      ("run", #"{"arguments":["s.storesim"],"timeline":"\#(target)"}"#),
      ("run", #"{"arguments":["s.storesim"],"artifacts":"\#(outside.folder)/made"}"#),
      ("init", #"{"arguments":["\#(outside.secret)"],"force":true}"#),
    ]
    for (tool, arguments) in calls {
      let result = try fixture.call(tool, arguments)
      #expect(MCPServerTests.isError(result), "\(tool) \(arguments)")
      #expect(MCPServerTests.firstText(result)?.contains("is outside the folders") == true, "\(tool) \(arguments)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.folder) == ["id_rsa"])
    // Inside the folders the same calls write.
    #expect(!MCPServerTests.isError(try fixture.call("report", #"{"html":"page.html"}"#)))
    #expect(FileManager.default.fileExists(atPath: fixture.cli.folder + "/page.html"))
  }

  @Test func allowPathWidensTheFolders() throws {
    let outside = try Outside()
    let fixture = try Fixture(allowed: [outside.folder])
    let result = try fixture.call("report", #"{"html":"\#(outside.folder)/page.html"}"#)
    #expect(!MCPServerTests.isError(result), "\(MCPServerTests.firstText(result) ?? "")")
    #expect(FileManager.default.fileExists(atPath: outside.folder + "/page.html"))
  }

  /// A file that is not a scenario: no line of it reaches an answer, through MCP or the CLI.
  @Test func aFileThatIsNotAScenarioIsRefusedWithoutAWordOfIt() throws {
    let fixture = try Fixture()
    try "# settings\nAPI_KEY=sekrit-value\nbuy sekrit-two\n".write(
      toFile: fixture.cli.folder + "/.env", atomically: true, encoding: .utf8)
    try Outside.content.write(toFile: fixture.cli.folder + "/id_rsa", atomically: true, encoding: .utf8)
    for file in [".env", "id_rsa"] {
      let result = try fixture.call("run", #"{"arguments":["\#(file)"]}"#)
      let text = (MCPServerTests.firstText(result) ?? "") + (result["structuredContent"].map { "\($0)" } ?? "")
      #expect(MCPServerTests.isError(result))
      #expect(!text.contains("sekrit") && !text.contains("API_KEY") && !text.contains("BEGIN"), "\(text)")
      let cli = fixture.cli.run(["run", file, "--verbose"])
      #expect(cli.code == 65)
      #expect(cli.stderr.contains("is not a scenario command"), "\(cli.stderr)")
      #expect(!(cli.stdout + cli.stderr).contains("sekrit") && !cli.stderr.contains("BEGIN"), "\(cli.stderr)")
    }
  }

  @Test func theToolsSayWhetherTheyReachURLs() throws {
    let fixture = try Fixture()
    let tools = try #require(try fixture.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)?["result"]?["tools"])
    guard case .array(let list) = tools.value else { Issue.record("no list"); return }
    var openWorld: [String: Bool] = [:]
    var readOnly: [String: Bool] = [:]
    for tool in list {
      guard let name = MCPServerTests.string(tool["name"]) else { continue }
      openWorld[name] = tool["annotations"]?["openWorldHint"]?.value == .bool(true)
      readOnly[name] = tool["annotations"]?["readOnlyHint"]?.value == .bool(true)
    }
    #expect(openWorld["settings"] == true && openWorld["retention"] == true && openWorld["buy"] == true)
    #expect(openWorld["status"] == false && openWorld["validate"] == false)
    #expect(readOnly["validate"] == true && readOnly["report"] == false && readOnly["run"] == false)
    // `timeline --svg FILE` writes a file: not read-only, and it posts nothing.
    #expect(readOnly["timeline"] == false && openWorld["timeline"] == false && openWorld["report"] == false)
  }

  @Test func aLineLongerThan16MiBIsRefusedAndTheNextIsAnswered() throws {
    let cli = try CLIHarness()
    let long =
      #"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""# + String(repeating: "a", count: 16 << 20) + #""}}"#
    let input = [long, #"{"jsonrpc":"2.0","id":2,"method":"ping"}"#]
    let lines = LockedLines(input)
    let box = LockedLines([])
    let environment = CLIEnvironment(
      writeOut: { box.append($0) }, writeErr: { _ in }, currentDirectory: cli.folder, readLine: { lines.next() })
    #expect(CLI.run(["mcp"], environment: environment) == 0)
    let out = box.joined
    let answers = out.split(separator: "\n")
    #expect(answers.count == 2, "\(out.prefix(300))")
    #expect(answers.first?.contains("-32700") == true && answers.first?.contains("16 MiB") == true)
    #expect(answers.last?.contains(#""id":2"#) == true)
  }

  /// The live reader holds no more than the cap of a line.
  @Test func theStandardInputReaderDropsWhatIsPastTheCap() throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let writeEnd = fds[1]
    let writer = Thread {
      let bytes = Array((String(repeating: "x", count: 100) + "\nshort\n" + String(repeating: "y", count: 5)).utf8)
      _ = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
      close(writeEnd)
    }
    writer.start()
    let reader = LimitedLineReader(descriptor: fds[0])
    #expect(reader.next(limit: 10) == .tooLong)
    #expect(reader.next(limit: 10) == .text("short"))
    #expect(reader.next(limit: 10) == .text("yyyyy"))
    #expect(reader.next(limit: 10) == nil)
    close(fds[0])
  }
}

/// Lines handed out, or gathered, under a lock.
final class LockedLines: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String]
  init(_ lines: [String]) { self.lines = lines }
  func next() -> String? { lock.withLock { lines.isEmpty ? nil : lines.removeFirst() } }
  func append(_ text: String) { lock.withLock { lines.append(text) } }
  var joined: String { lock.withLock { lines.joined() } }
}
