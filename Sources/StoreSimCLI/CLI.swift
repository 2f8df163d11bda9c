import Foundation
import StoreSim

/// The command-line front end: argv in, text and an exit code out.
public enum CLI {
  /// Runs one command line (without the program name) and returns its exit code.
  ///
  /// Standard output is held until the command is over (after its save), so a closed output
  /// can never stop a command between its change and its save.
  public static func run(_ argv: [String], environment: CLIEnvironment) -> Int32 {
    let spool = OutputSpool(sink: environment.writeOut)
    // Dual mode: the JSON is held and dropped with the text.
    let jsonSpool = environment.writeJSON.map { OutputSpool(sink: $0) }
    var held = environment
    held.writeOut = { spool.append($0) }
    held.flushOut = {
      spool.flush()
      jsonSpool?.flush()
    }
    held.discardOut = {
      spool.discard()
      jsonSpool?.discard()
    }
    if let jsonSpool { held.writeJSON = { jsonSpool.append($0) } }
    let code = run(argv, environment: held, memory: nil)
    spool.flush()
    jsonSpool?.flush()
    return code
  }

  /// The exit code of the process after a command: when standard output could not be written
  /// (a closed pipe, a full device), the command's changes are saved, the write error is
  /// reported once on stderr, and the code is 74.
  public static func processExitCode(_ code: Int32) -> Int32 {
    guard let reason = StandardStream.output.failure else { return code }
    StandardStream.error.write("error: cannot write to standard output: \(reason)\n")
    return ExitCode.ioError.rawValue
  }

  static func run(_ argv: [String], environment: CLIEnvironment, memory: MemorySession?) -> Int32 {
    let table = CommandTable.standard
    do {
      let parsed = try ArgumentScanner.scan(argv, commands: table)
      return try dispatch(parsed, environment: environment, table: table, memory: memory).rawValue
    } catch {
      // The one funnel: whatever the command threw, mapped once onto the exit-code contract.
      let failure = CLIError(reporting: error)
      // The command's held output is dropped first: under --json the error object is then the
      // only thing on stdout.
      environment.discardOut()
      report(failure, environment: environment, table: table)
      if wantsJSON(argv) {
        environment.writeOut(errorJSON(failure))
      } else if let sink = environment.writeJSON {
        sink(errorJSON(failure))
      }
      return failure.code.rawValue
    }
  }

  /// Whether the command line asks for JSON (`--json` before any `--`).
  static func wantsJSON(_ argv: [String]) -> Bool {
    for token in argv {
      if token == "--" { return false }
      if token == "--json" { return true }
    }
    return false
  }

  /// `{"error": "...", "code": "usage", "exitCode": 64}`: an error under --json, on stdout.
  static func errorJSON(_ error: CLIError) -> String {
    JSONOutput.object([
      "error": .string(error.message), "code": .string(error.code.name), "exitCode": .int(Int64(error.code.rawValue)),
    ]).rendered(pretty: true) + "\n"
  }

  static func dispatch(
    _ parsed: ParsedArguments, environment: CLIEnvironment, table: CommandTable, memory: MemorySession? = nil
  ) throws -> ExitCode {
    guard let name = parsed.command else {
      if parsed.flags.contains("version") {
        environment.writeOut("storesim \(storesimVersion)\n")
        return .success
      }
      if parsed.wantsHelp || parsed.options.isEmpty {
        environment.writeOut(table.overview(width: environment.columns))
        return parsed.wantsHelp ? .success : .usage
      }
      throw CLIError.usage("missing command")
    }
    if name == "help" {
      if let target = parsed.positionals.first {
        if let text = ScenarioOnlyHelp.text(target, width: environment.columns) {
          environment.writeOut(text)
          return .success
        }
        guard let spec = table.spec(named: target) else { throw unknownCommand(target, table: table) }
        environment.writeOut(table.help(for: spec, width: environment.columns))
      } else {
        environment.writeOut(table.overview(width: environment.columns))
      }
      return .success
    }
    guard let spec = table.spec(named: name) else { throw unknownCommand(name, table: table) }
    if parsed.wantsHelp {
      environment.writeOut(table.help(for: spec, width: environment.columns))
      return .success
    }
    var invocation = Invocation(arguments: parsed, environment: environment, table: table, memory: memory)
    do {
      return try spec.run(&invocation)
    } catch var error as CLIError where error.usageOf == "" {
      // A value parser does not know its command: the usage shown is the running command's.
      error.usageOf = name
      throw error
    }
  }

  static func unknownCommand(_ name: String, table: CommandTable) -> CLIError {
    // A name is shown whole up to 60 characters: a binary file run as a scenario stays readable.
    let shown = name.count > 60 ? String(name.prefix(60)) + "…" : name
    let message = "unknown command '\(shown)'"
    let scenarioOnly = "\(message); '\(name)' works in scenarios and the shell (see 'storesim help \(name)')"
    return CLIError(
      code: .usage,
      message: Suggest.appending(
        to: message, for: name, in: table.names + ["help"],
        otherwise: ScenarioOnlyHelp.names.contains(name) ? scenarioOnly : nil),
      usageOf: "")
  }

  /// One line on stderr: `error: MESSAGE`, and for a usage error that names no fix where to read
  /// more.
  static func report(_ error: CLIError, environment: CLIEnvironment, table: CommandTable) {
    var line = "error: \(TerminalText.field(error.message))"
    if let command = error.usageOf, !ErrorHint.namesAFix(error.message) {
      if let spec = table.spec(named: command) {
        line += " (see 'storesim help \(spec.name)')"
      } else {
        line += " (see 'storesim --help')"
      }
    }
    environment.writeErr(line + "\n")
  }
}
