import Foundation

/// One command of the command line: its name, help and action.
struct CommandSpec: Sendable {
  /// The name users type.
  var name: String
  /// The help group it is listed under.
  var group: String
  /// One-line summary.
  var abstract: String
  /// The argument part of the usage line (`<file>...`).
  var arguments: String = ""
  /// Command options.
  var options: [OptionSpec] = []
  /// Longer explanation shown by `help CMD`.
  var discussion: String = ""
  /// An example command line.
  var example: String
  /// Whether its JSON answer's `result` is a purchase's (`CommandConfiguration`).
  var answersPurchaseResult = false
  /// How many positional arguments the declaration takes (nil: none declared).
  var positionals: ClosedRange<Int>? = nil
  /// The action.
  var run: @Sendable (inout Invocation) throws -> ExitCode

  var usage: String {
    var line = "storesim \(name)"
    if !arguments.isEmpty { line += " \(arguments)" }
    if !options.isEmpty { line += " [options]" }
    return line
  }
}

/// The single list of commands that dispatch, help, scenarios and the shell all read.
struct CommandTable: Sendable {
  var commands: [CommandSpec]
  static let groupOrder = [
    "Session and catalogue", "Purchases", "Subscriptions and time", "Inspection", "Scripts and exploration", "Server",
  ]

  /// Commands whose first argument is a product id (unless `--transaction` names it): completed
  /// from the session's products and checked against a scenario's configuration.
  static let productCommands = ["buy", "resolve", "cancel", "resume", "expire", "renew", "price-increase", "latest"]

  func spec(named name: String) -> CommandSpec? {
    commands.first { $0.name == name }
  }

  var names: [String] { commands.map(\.name) }

  /// `storesim --help`.
  func overview(width: Int = HelpText.width) -> String {
    let width = HelpText.fitted(width)
    let title = "storesim \(storesimVersion): "
    var text =
      HelpText.wrapLine(
        title + "a command-line App Store simulator for .storekit configurations", width: width,
        hangingIndent: title.count) + "\n\n"
      + HelpText.wrapLine("USAGE: storesim <command> [arguments] [options]", width: width, hangingIndent: 16)
      + "\n\n"
    for group in Self.groupOrder {
      let members = commands.filter { $0.group == group }
      guard !members.isEmpty else { continue }
      text += "\(group.uppercased()):\n"
      for spec in members {
        text += HelpText.row(spec.name, text: spec.abstract, column: 18, width: width) + "\n"
      }
      if group == "Scripts and exploration" {
        text +=
          HelpText.row(
            ScenarioOnlyHelp.names.joined(separator: ", "),
            text: "scenario and shell lines: checks and notes (see 'storesim help expect')", column: 18, width: width)
          + "\n"
      }
      text += "\n"
    }
    text += "GLOBAL OPTIONS:\n"
    for option in globalOptions {
      text += HelpText.row(optionLabel(option), text: option.help, column: 24, width: width) + "\n"
    }
    text += "\nEXIT CODES:\n"
    for (code, meaning) in ExitCode.table {
      text += HelpText.row(String(code.rawValue), text: meaning, column: 6, width: width) + "\n"
    }
    text +=
      "\n" + HelpText.wrapLine("See 'storesim help <command>' for a command's options and an example.", width: width)
      + "\n"
    return text
  }

  /// `storesim help CMD`.
  func help(for spec: CommandSpec, width: Int = HelpText.width) -> String {
    let width = HelpText.fitted(width)
    var text =
      HelpText.wrapLine("OVERVIEW: \(spec.abstract)", width: width, hangingIndent: 10) + "\n\n"
      + HelpText.wrapLine("USAGE: " + spec.usage, width: width, hangingIndent: 7 + spec.name.count + 10) + "\n"
    if !spec.discussion.isEmpty { text += "\n" + HelpText.reflow(spec.discussion, width: width) + "\n" }
    if !spec.options.isEmpty {
      text += "\nOPTIONS:\n"
      for option in spec.options {
        text += HelpText.row(optionLabel(option), text: option.help, column: 32, width: width) + "\n"
      }
    }
    text +=
      "\n"
      + HelpText.wrapLine(
        "GLOBAL OPTIONS: --session <path>, --customer <name>, --json, -h/--help", width: width, hangingIndent: 16)
      + "\n"
    text += "\nEXAMPLE:\n"
    for example in spec.example.split(separator: "\n") {
      text += HelpText.command(example.trimmingCharacters(in: .whitespaces), width: width) + "\n"
    }
    return text
  }

  private func optionLabel(_ option: OptionSpec) -> String {
    option.value.map { "--\(option.name) \($0)" } ?? "--\(option.name)"
  }
}

/// The version printed by `--version`.
public let storesimVersion = "0.1.0"
