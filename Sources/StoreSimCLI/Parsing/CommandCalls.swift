import Foundation
import StoreSim

/// A command called with a JSON object instead of words: `arguments` for its positional words,
/// one property per option (a flag is a boolean, a repeatable option an array), and `customer`.
/// The MCP tools (`storesim mcp`) and the control API's operations (`serve`,
/// `/storesim/v1/sessions/{session}/{command}`) are both made here from the one command table,
/// so a new command is a command line, a tool and an operation at once.
enum CommandCalls {
  /// Commands that are neither a tool nor an operation: they take over the terminal or
  /// standard input, or run forever.
  static let interactive: Set<String> = ["shell", "manage", "serve", "completions", "mcp"]

  /// Commands that are tools but no operation of the control API, and why.
  static let notOperations: [String: String] = [
    "init": "POST /storesim/v1/sessions makes a session from the configuration in its body",
    "validate": "it reads configuration files on the server's disk",
    "run": "it runs scenario files on the server's disk, in memory",
    "version": "it says nothing of a session (GET /storesim/v1/openapi.json carries the version)",
    "api": "a session's App Store Server API answers under its base URL, /storesim/v1/sessions/{session}",
  ]

  /// The placeholders of options that name a file or folder on the machine: the control API
  /// takes none (an option with an optional value, `timeline --svg`, is taken as `true` only).
  static let pathPlaceholders: Set<String> = ["<path>", "<file>", "<dir>"]

  /// The MCP tools.
  static func tools(_ table: CommandTable) -> [CommandSpec] {
    table.commands.filter { !interactive.contains($0.name) }
  }

  /// The control API's session operations.
  static func operations(_ table: CommandTable) -> [CommandSpec] {
    tools(table).filter { notOperations[$0.name] == nil }
  }

  /// Whether an option names a file or folder.
  static func takesPath(_ option: OptionSpec) -> Bool {
    option.value.map { pathPlaceholders.contains($0.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) }
      ?? false
  }

  /// The JSON Schema of a command's input: `arguments` for its positional words, one property
  /// per option (a flag is a boolean, a repeatable option an array), and the global `customer`.
  /// `paths: false` (the control API) leaves out the options that name a file, and takes an
  /// optional value only as `true`.
  static func inputSchema(_ spec: CommandSpec, paths: Bool = true) -> JSONOutput {
    var properties: [String: JSONOutput] = [:]
    var required: [JSONOutput] = []
    if let count = spec.positionals {
      var words: [String: JSONOutput] = [
        "type": .string("array"), "items": .object(["type": .string("string")]),
        "description": .string("the positional words: \(spec.arguments.isEmpty ? "none" : spec.arguments)"),
      ]
      if count.lowerBound > 0 {
        words["minItems"] = .int(Int64(count.lowerBound))
        required.append(.string("arguments"))
      }
      if count.upperBound < Int.max { words["maxItems"] = .int(Int64(count.upperBound)) }
      properties["arguments"] = .object(words)
    }
    for option in spec.options {
      if !paths && takesPath(option) {
        guard option.valueIsOptional else { continue }
        properties[option.name] = .object([
          "type": .string("boolean"), "description": .string("\(option.help) (true: in the answer)"),
        ])
        continue
      }
      properties[option.name] = optionSchema(option)
    }
    properties["customer"] = .object([
      "type": .string("string"), "description": .string("act as this customer (default 'default')"),
    ])
    return .object([
      "type": .string("object"), "properties": .object(properties),
      "required": required.isEmpty ? nil : .array(required), "additionalProperties": .bool(false),
    ])
  }

  static func optionSchema(_ option: OptionSpec) -> JSONOutput {
    guard let placeholder = option.value else {
      return .object(["type": .string("boolean"), "description": .string(option.help)])
    }
    // An optional value (`timeline --svg`): true is the option alone (standard output).
    let type: JSONOutput =
      option.valueIsOptional ? .array([.string("string"), .string("boolean")]) : .string("string")
    return .object(["type": type, "description": .string("\(placeholder): \(option.help)")])
  }

  /// The command line of a call, or the refusal of its arguments (naming the property).
  /// `paths: false` refuses a file name in any option that takes one.
  static func commandLine(
    _ spec: CommandSpec, _ arguments: [JSONMember], paths: Bool = true
  ) -> Result<(words: [String], options: [String]), ToolRefusal> {
    var words: [String] = []
    var options: [String] = []
    for member in arguments {
      let key = member.key
      if key == "arguments", spec.positionals != nil {
        guard let texts = texts(member.value) else {
          return .failure(ToolRefusal("'arguments' is an array of strings", field: key))
        }
        words = texts
      } else if key == "customer" {
        guard let text = text(member.value) else { return .failure(ToolRefusal("'customer' is a string", field: key)) }
        options.append("--customer=\(text)")
      } else if let option = spec.options.first(where: { $0.name == key }) {
        if !paths && takesPath(option) {
          guard option.valueIsOptional, case .bool = member.value.value else {
            return .failure(
              ToolRefusal(
                "'\(key)' names a file on the server's disk, which the control API never reads or writes"
                  + (option.valueIsOptional ? "; give true to have it in the answer" : ""), field: key))
          }
        }
        guard let given = optionWords(option, member.value) else {
          return .failure(
            ToolRefusal(
              "'\(key)' is \(option.value == nil ? "a boolean" : "a string (or an array of strings)")", field: key))
        }
        options += given
      } else {
        let known = (spec.positionals == nil ? [] : ["arguments"]) + spec.options.map(\.name) + ["customer"]
        return .failure(
          ToolRefusal(
            Suggest.appending(to: "\(spec.name) takes no argument '\(key)'", for: key, in: known)
              + "; it takes \(known.joined(separator: ", "))", field: key))
      }
    }
    return .success((words, options))
  }

  /// `--name=value` words of one option's JSON value (nil when the type is wrong).
  static func optionWords(_ option: OptionSpec, _ node: JSONNode) -> [String]? {
    guard option.value != nil else {
      guard case .bool(let on) = node.value else { return nil }
      return on ? ["--\(option.name)"] : []
    }
    if option.valueIsOptional, case .bool(let on) = node.value { return on ? ["--\(option.name)=-"] : [] }
    if case .array = node.value { return texts(node)?.map { "--\(option.name)=\($0)" } }
    return text(node).map { ["--\(option.name)=\($0)"] }
  }

  /// The strings (or numbers) of an array; nil when it is no array or holds anything else.
  static func texts(_ node: JSONNode) -> [String]? {
    guard case .array(let items) = node.value else { return nil }
    let texts = items.compactMap(text)
    return texts.count == items.count ? texts : nil
  }

  /// A string, or a number as written (`"quantity": 2`).
  static func text(_ node: JSONNode) -> String? {
    switch node.value {
    case .string(let s): return s
    case .number(let n): return n
    default: return nil
    }
  }
}

/// Why a call's arguments are refused (a tool error, so the agent can correct them; a 400 of
/// the control API naming `field`).
struct ToolRefusal: Error {
  var message: String
  /// The property of the call that was wrong.
  var field: String?
  init(_ message: String, field: String? = nil) {
    self.message = message
    self.field = field
  }
}
