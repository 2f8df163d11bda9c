import Foundation
import StoreSim
import StoreSimSession

/// `storesim mcp`: a Model Context Protocol server on standard input and output.
struct MCPCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "mcp", group: "Scripts and exploration",
    abstract: "A Model Context Protocol server for coding agents, on stdin and stdout",
    discussion: """
      Speaks MCP (JSON-RPC 2.0, one message a line) on standard input and output, for an agent
      client that starts it (Claude Code: claude mcp add storesim -- storesim mcp --session
      PATH). Every command but shell, manage, serve and completions is a tool of the same name,
      plus expect; a tool's input is its options by name and its positional words as
      'arguments', its result the command's --json output (and the text a person reads, for
      a command that only reads). A refusal is a tool error with the command's one-line message. Resources: storesim://session/transactions,
      storesim://session/status, storesim://session/notifications and
      storesim://configuration/products, as JSON. Each call takes the session's lock and saves
      as the command line does, so the CLI, serve, manage and the agent can share a session.
      Tools read and write files only in the folder the server was started in and the session's
      folder (and each --allow-path DIR); a path outside is a tool error. A line longer than
      16 MiB is refused. Ends with exit code 0 when standard input closes. See docs/mcp.md.
      """,
    example: "storesim mcp --session .storesim/session.json")

  @RepeatedOption("<dir>", help: "let tools read and write files in this folder too (repeatable)")
  var allowPath: [String]?
  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    for folder in allowPath ?? [] {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: inv.environment.absolutePath(folder), isDirectory: &isDirectory),
        isDirectory.boolValue
      else { throw CLIError.noInput("--allow-path \(folder): no such folder") }
    }
    var environment = inv.environment
    environment.pathPolicy = Self.pathPolicy(environment, session: SessionContext.path(inv), allowed: allowPath ?? [])
    let server = MCPServer(
      tools: MCPTools(
        table: inv.table, environment: environment, session: inv.globals.session,
        customer: inv.globals.customer))
    let readLine = inv.environment.readLine
    let next = inv.environment.readLimitedLine ?? { limit in readLine().map { InputLine($0, limit: limit) } }
    while let line = next(InputLine.limit) {
      guard let answer = server.handle(line) else { continue }
      inv.environment.writeOut(answer + "\n")
      inv.environment.flushOut()
      if StandardStream.output.failure != nil { return .ioError }
    }
    return .success
  }

  /// The folders the tools may use: the one the server was started in, the session's, and
  /// each `--allow-path`.
  static func pathPolicy(_ environment: CLIEnvironment, session: String, allowed: [String]) -> PathPolicy {
    let session = environment.absolutePath(session)
    return PathPolicy(
      project: environment.currentDirectory, sessionFolder: (session as NSString).deletingLastPathComponent,
      allowed: allowed.map(environment.absolutePath), owner: "this MCP server",
      widening: "storesim mcp --allow-path DIR")
  }
}
