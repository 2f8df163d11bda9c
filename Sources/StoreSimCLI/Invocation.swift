import Foundation
import StoreSim

/// One run of a command: the scanned command line, the global options and the environment,
/// with output helpers.
struct Invocation {
  /// The command line as scanned; a command reads its own options from its declarations.
  var arguments: ParsedArguments
  /// `--session`, `--customer`, `--json`.
  var globals: GlobalOptions
  var environment: CLIEnvironment
  var table: CommandTable
  /// The in-memory session of a scenario run; nil for ordinary commands on a session file.
  var memory: MemorySession?
  /// The names of the configuration the command line gives (checked by a scenario's check).
  var references: [ConfigurationReference] = []

  init(arguments: ParsedArguments, environment: CLIEnvironment, table: CommandTable, memory: MemorySession? = nil) {
    self.arguments = arguments
    globals = GlobalOptions.parse(arguments)
    self.environment = environment
    self.table = table
    self.memory = memory
  }

  /// The running command's name.
  var command: String { arguments.command ?? "" }

  /// Prints text for people; control characters other than line breaks are shown escaped.
  func out(_ text: String) {
    let safe = TerminalText.block(text)
    environment.writeOut(safe.hasSuffix("\n") ? safe : safe + "\n")
  }
  /// Prints to stderr; control characters other than line breaks are shown escaped.
  func err(_ text: String) {
    let safe = TerminalText.block(text)
    environment.writeErr(safe.hasSuffix("\n") ? safe : safe + "\n")
  }
  func warning(_ text: String) { err("warning: \(text)") }
  var json: Bool { globals.json }
  func printJSON(_ value: JSONOutput) { out(value.rendered(pretty: true)) }

  /// Whether the text for people is printed: always but under --json.
  var printsText: Bool { !globals.json }
  /// Whether JSON is written: under --json (to standard output), and in the MCP server's dual
  /// mode (to its JSON sink, next to the text).
  var printsJSON: Bool { globals.json || environment.writeJSON != nil }

  /// One result in both renderings, made from the same values after the change: the JSON under
  /// --json, else the text; in dual mode the text on standard output and the JSON in the sink.
  func emit(json: @autoclosure () -> JSONOutput, text: () -> Void) {
    if printsJSON { writeJSON(json().rendered(pretty: true)) }
    if printsText { text() }
  }
  /// `emit` of a text that is one line.
  func emit(json: @autoclosure () -> JSONOutput, line: @autoclosure () -> String) {
    emit(json: json()) { out(line()) }
  }
  /// Writes rendered JSON where JSON goes (see `printsJSON`), as `out` would print it; a
  /// streamed document is written in pieces with `terminated: false`.
  func writeJSON(_ text: String, terminated: Bool = true) {
    let safe = terminated ? TerminalText.block(text) : text
    let line = !terminated || safe.hasSuffix("\n") ? safe : safe + "\n"
    if globals.json {
      environment.writeOut(line)
    } else if let sink = environment.writeJSON {
      sink(line)
    }
  }
}
