import StoreSim

/// An option a command accepts.
struct OptionSpec: Sendable {
  /// Long name without dashes.
  var name: String
  /// Placeholder for its value; nil for a flag.
  var value: String?
  /// One-line help.
  var help: String
  /// Whether the value may be left out: `--svg` at the end of the line or before another
  /// option reads as `--svg -` (standard output).
  var valueIsOptional = false
  /// The option group that declares it (`OptionGroup`); nil when its command does.
  var group: String? = nil
}

/// The global options, accepted before or after the command.
struct GlobalOptions {
  @Option("<path>", help: "session file (default .storesim/session.json, or $STORESIM_SESSION)")
  var session: String?
  @Option("<name>", help: "act as this customer (default 'default')")
  var customer: String?
  @Flag(help: "print the result as JSON")
  var json: Bool
  @Flag(help: "show help")
  var help: Bool
  @Flag(help: "print the version")
  var version: Bool

  init() {}

  /// The option names, in declaration order.
  private static let names = CommandDeclarations.names(of: GlobalOptions())

  /// The global options of a scanned command line (they take any text, so nothing is refused).
  static func parse(_ line: ParsedArguments) -> GlobalOptions {
    let (options, parameters) = CommandDeclarations.make { GlobalOptions() }
    try? CommandDeclarations.bind(
      parameters, names: names, from: line, context: ParseContext(command: line.command ?? ""))
    return options
  }
}

/// The global options as help, completions and the scanner list them.
let globalOptions: [OptionSpec] = CommandDeclarations.options(of: GlobalOptions())

/// A command line split into global options, command name, positionals and options.
struct ParsedArguments: Sendable {
  var command: String?
  var positionals: [String] = []
  var options: [String: [String]] = [:]
  var flags: Set<String> = []

  /// The values given to an option, in order (read by the declarations that bind them).
  func optionValues(_ name: String) -> [String] { options[name] ?? [] }
  /// Whether a flag was given.
  func isFlagSet(_ name: String) -> Bool { flags.contains(name) }
  var wantsJSON: Bool { flags.contains("json") }
  var wantsHelp: Bool { flags.contains("help") }
}

enum ArgumentScanner {
  /// Splits argv (without the program name). Options are looked up in the global table and in
  /// the command's table once the command is known.
  static func scan(_ argv: [String], commands: CommandTable) throws(CLIError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var i = 0
    var optionsEnded = false
    while i < argv.count {
      let token = argv[i]
      i += 1
      if !optionsEnded && token == "--" {
        optionsEnded = true
        continue
      }
      if !optionsEnded && (token == "-h" || token == "--help") {
        parsed.flags.insert("help")
        continue
      }
      if !optionsEnded && token.hasPrefix("--") && token.count > 2 {
        try scanOption(token, argv, &i, into: &parsed, commands: commands)
        continue
      }
      // A negative number or duration (`-3`, `-1d`) is a value, refused by whoever reads it.
      let negativeValue = token.count > 1 && token.dropFirst().first.map { $0.isASCII && $0.isNumber } == true
      if !optionsEnded && token.hasPrefix("-") && token.count > 1 && !negativeValue {
        throw .usage("unknown option '\(token)'", command: parsed.command)
      }
      if parsed.command == nil {
        parsed.command = token
      } else {
        parsed.positionals.append(token)
      }
    }
    return parsed
  }

  /// `--name`, `--name=value` or `--name value` (taking `argv[i]` and moving past it).
  private static func scanOption(
    _ token: String, _ argv: [String], _ i: inout Int, into parsed: inout ParsedArguments, commands: CommandTable
  ) throws(CLIError) {
    var name = String(token.dropFirst(2))
    var inline: String?
    if let eq = name.firstIndex(of: "=") {
      inline = String(name[name.index(after: eq)...])
      name = String(name[..<eq])
    }
    let commandSpec = parsed.command.flatMap { commands.spec(named: $0) }
    let spec = globalOptions.first { $0.name == name } ?? commandSpec?.options.first { $0.name == name }
    guard let spec else {
      let candidates = globalOptions.map(\.name) + (commandSpec?.options.map(\.name) ?? [])
      var message = "unknown option '--\(name)'"
      if let near = Suggest.closest(to: name, in: candidates) { message += "; did you mean '--\(near)'?" }
      throw .usage(message, command: parsed.command)
    }
    guard let placeholder = spec.value else {
      if inline != nil { throw .usage("option '--\(name)' takes no value", command: parsed.command) }
      parsed.flags.insert(name)
      return
    }
    let value: String
    if let inline {
      value = inline
    } else if spec.valueIsOptional, i == argv.count || (argv[i].hasPrefix("-") && argv[i] != "-") {
      value = "-"
    } else {
      guard i < argv.count else {
        throw .usage("option '--\(name)' needs a value \(placeholder)", command: parsed.command)
      }
      value = argv[i]
      i += 1
    }
    parsed.options[name, default: []].append(value)
  }
}

/// "Did you mean" suggestions: the core's one policy.
enum Suggest {
  static func closest(to input: String, in candidates: [String]) -> String? {
    Suggestion.closest(to: input, in: candidates)
  }

  /// `message; did you mean 'NAME'?` when a candidate is close to `input`, else `otherwise`
  /// (`message` itself when not given).
  static func appending(
    to message: String, for input: String, in candidates: [String], otherwise: String? = nil
  ) -> String {
    closest(to: input, in: candidates).map { "\(message); did you mean '\($0)'?" } ?? otherwise ?? message
  }
}
