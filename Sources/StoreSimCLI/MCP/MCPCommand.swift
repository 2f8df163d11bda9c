import Foundation
import StoreSim

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
      Ends with exit code 0 when standard input closes. See docs/mcp.md.
      """,
    example: "storesim mcp --session .storesim/session.json")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    let server = MCPServer(
      tools: MCPTools(
        table: inv.table, environment: inv.environment, session: inv.globals.session,
        customer: inv.globals.customer))
    while let line = inv.environment.readLine() {
      guard let answer = server.handle(line) else { continue }
      inv.environment.writeOut(answer + "\n")
      inv.environment.flushOut()
      if StandardStream.output.failure != nil { return .ioError }
    }
    return .success
  }
}
