import StoreSim

/// A command of the command line, declared as a struct: its options and arguments are
/// properties (`@Option`, `@Flag`, `@Arguments`), named after the property (`appAccountToken`
/// is `--app-account-token`). The command line is parsed into a fresh value and checked before
/// `run` is called, and help, completions and the option scanner read the same declarations,
/// so a renamed option is renamed everywhere at once and a misspelt one does not compile.
protocol CommandLineCommand: SendableMetatype {
  /// The name, help group, help text and example.
  static var configuration: CommandConfiguration { get }
  /// A value with nothing parsed yet (every property has a default).
  init()
  /// Checks what no single option can: options that exclude each other. Called once every
  /// option and argument is parsed, before `run`.
  func validate() throws
  /// Runs the parsed command.
  func run(_ inv: Invocation) throws -> ExitCode
  /// The products and groups the command line names, checked against a scenario's
  /// configuration before the scenario runs.
  var configurationReferences: [ConfigurationReference] { get }
}

extension CommandLineCommand {
  func validate() throws {}

  var configurationReferences: [ConfigurationReference] { [] }
}

/// What a command says about itself in help.
struct CommandConfiguration {
  /// The name users type.
  var name: String
  /// The help group it is listed under.
  var group: String
  /// One-line summary.
  var abstract: String
  /// The argument part of the usage line (`<file>...`).
  var arguments: String = ""
  /// Longer explanation shown by `help CMD`.
  var discussion: String = ""
  /// An example command line.
  var example: String
  /// Whether the `result` of its JSON answer is a purchase's, which a scenario's `expect result`
  /// reads (the scenario runner records it; a refusal is `failed`).
  var answersPurchaseResult = false
}

/// A name of the configuration a command line gives, checked in a scenario before it runs.
enum ConfigurationReference: Equatable {
  /// A product id.
  case product(String)
  /// A subscription group's id or name, or an auto-renewable product's id.
  case groupOrProduct(String)
  /// `buy PRODUCT --quantity N`: a quantity other than 1 only for consumables and non-renewing
  /// subscriptions.
  case quantity(Int, of: String)
}

/// What parsing a value may need: the command (for usage errors) and where warnings go.
struct ParseContext {
  var command: String
  var warning: (String) -> Void = { _ in }
}

/// A property of a command that the command line fills in.
protocol CommandParameter {
  /// The option it declares, named `name` unless it says otherwise; nil for arguments.
  func option(named name: String) -> OptionSpec?
  /// Takes its value from the scanned command line, or refuses it.
  func bind(named name: String, from line: ParsedArguments, context: ParseContext) throws
}

/// Where a parsed value is kept: the declaration holds the box, so a command value and the
/// copy reflection sees share it.
final class ParsedValue<Value> {
  var value: Value
  init(_ value: Value) { self.value = value }
}

/// `--name VALUE`: nil when not given; given twice, the last one counts.
@propertyWrapper
struct Option<Value>: CommandParameter {
  let name: String?
  let placeholder: String
  let help: String
  let parse: (String, ParseContext) throws -> Value
  /// Whether the value may be left out (`--svg` alone), which reads as `-`, standard output.
  let valueIsOptional: Bool
  private let parsed = ParsedValue<Value?>(nil)

  var wrappedValue: Value? { parsed.value }

  /// An option whose text is read by `parse` (which throws the option's own usage error).
  init(
    name: String? = nil, _ placeholder: String, help: String, valueIsOptional: Bool = false,
    parse: @escaping (String, ParseContext) throws -> Value
  ) {
    self.name = name
    self.placeholder = placeholder
    self.help = help
    self.valueIsOptional = valueIsOptional
    self.parse = parse
    CommandDeclarations.collect(self)
  }

  func option(named name: String) -> OptionSpec? {
    OptionSpec(
      name: self.name ?? name, value: valueIsOptional ? "[\(placeholder)]" : placeholder, help: help,
      valueIsOptional: valueIsOptional)
  }

  func bind(named name: String, from line: ParsedArguments, context: ParseContext) throws {
    guard let text = line.optionValues(self.name ?? name).last else { return }
    parsed.value = try parse(text, context)
  }
}

extension Option where Value == String {
  /// An option taking any text.
  init(name: String? = nil, _ placeholder: String, help: String, valueIsOptional: Bool = false) {
    self.init(name: name, placeholder, help: help, valueIsOptional: valueIsOptional) { text, _ in text }
  }
}

/// `--name VALUE`, repeatable: every value in order; nil when not given.
@propertyWrapper
struct RepeatedOption: CommandParameter {
  let placeholder: String
  let help: String
  private let parsed = ParsedValue<[String]?>(nil)

  var wrappedValue: [String]? { parsed.value }

  init(_ placeholder: String, help: String) {
    self.placeholder = placeholder
    self.help = help
    CommandDeclarations.collect(self)
  }

  func option(named name: String) -> OptionSpec? {
    OptionSpec(name: name, value: placeholder, help: help)
  }

  func bind(named name: String, from line: ParsedArguments, context: ParseContext) throws {
    let values = line.optionValues(name)
    parsed.value = values.isEmpty ? nil : values
  }
}

/// `--name`: true when given.
@propertyWrapper
struct Flag: CommandParameter {
  let name: String?
  let help: String
  private let parsed = ParsedValue(false)

  var wrappedValue: Bool { parsed.value }

  init(name: String? = nil, help: String) {
    self.name = name
    self.help = help
    CommandDeclarations.collect(self)
  }

  func option(named name: String) -> OptionSpec? {
    OptionSpec(name: self.name ?? name, value: nil, help: help)
  }

  func bind(named name: String, from line: ParsedArguments, context: ParseContext) throws {
    parsed.value = line.isFlagSet(self.name ?? name)
  }
}

/// The positional arguments: between `count.lowerBound` and `count.upperBound` of them, else
/// "missing WHAT" or "unexpected argument 'X'".
@propertyWrapper
struct Arguments: CommandParameter {
  let count: ClosedRange<Int>
  let what: String
  private let parsed = ParsedValue<[String]>([])

  var wrappedValue: [String] { parsed.value }

  init(_ count: ClosedRange<Int>, _ what: String) {
    self.count = count
    self.what = what
    CommandDeclarations.collect(self)
  }

  func option(named name: String) -> OptionSpec? { nil }

  func bind(named name: String, from line: ParsedArguments, context: ParseContext) throws {
    parsed.value = try Self.check(line.positionals, count, what, command: context.command)
  }

  /// `given`, when it has between `count.lowerBound` and `count.upperBound` words (for a
  /// command whose count depends on an option).
  @discardableResult
  static func check(_ given: [String], _ count: ClosedRange<Int>, _ what: String, command: String) throws -> [String] {
    guard count.contains(given.count) else {
      if given.count < count.lowerBound { throw CLIError.usage("missing \(what)", command: command) }
      throw CLIError.usage("unexpected argument '\(given[count.upperBound])'", command: command)
    }
    return given
  }
}

/// Options several commands share, declared once as a struct of `@Option`s (and `@Flag`s,
/// `@Arguments`) and used in each command as `@OptionGroup var name: Group`: the command line,
/// help, completions and the MCP tools see the group's options in the command's, in
/// declaration order.
protocol OptionGroupDeclaration {
  /// A value with nothing parsed yet.
  init()
}

/// A property that is a group of options (`OptionGroup`).
protocol DeclaredOptionGroup {
  /// The group's value, whose properties are its options.
  var declarations: Any { get }
}

/// `@OptionGroup var apiKey: APIKeyOptions`: the group's options, parsed with the command's.
@propertyWrapper
struct OptionGroup<Group: OptionGroupDeclaration>: DeclaredOptionGroup {
  let wrappedValue: Group

  /// Made while the command is made, so the group's options are collected in their place.
  init() { wrappedValue = Group() }

  var declarations: Any { wrappedValue }
}

/// Reading the declarations of a command value.
///
/// The names of a type's parameters come from reflection, once per type (`Names`); a value's
/// parameters are collected as its property wrappers are created (`Parsed.make`), in
/// declaration order, so parsing a command line reflects nothing.
enum CommandDeclarations {
  /// The parameters being created, while `collecting` runs.
  @TaskLocal static var collector: Collector?

  /// Where the property wrappers of a value being made put themselves. A task local must be
  /// `Sendable`; this one is vouched for by hand (`@unchecked Sendable`): it is made, filled and
  /// read by one task, inside `make`, and never outlives it (the parameters are not `Sendable`,
  /// so they sit in no lock).
  final class Collector: @unchecked Sendable {
    var parameters: [any CommandParameter] = []
  }

  /// Called by every property wrapper as it is created.
  static func collect(_ parameter: any CommandParameter) {
    collector?.parameters.append(parameter)
  }

  /// A fresh value and its parameters in declaration order.
  static func make<Value>(_ make: () -> Value) -> (value: Value, parameters: [any CommandParameter]) {
    let collector = Collector()
    let value = $collector.withValue(collector) { make() }
    return (value, collector.parameters)
  }

  /// A type's parameters in declaration order with their option names (from their property
  /// names), those of its option groups in the group's place; `group` names the group that
  /// declared one (nil: the command itself).
  static func declared(in value: Any) -> [(name: String, parameter: any CommandParameter, group: String?)] {
    Mirror(reflecting: value).children.flatMap { child -> [(String, any CommandParameter, String?)] in
      if let group = child.value as? any DeclaredOptionGroup {
        let name = String(describing: type(of: group.declarations))
        return declared(in: group.declarations).map { ($0.name, $0.parameter, $0.group ?? name) }
      }
      guard let parameter = child.value as? any CommandParameter, var label = child.label else { return [] }
      if label.hasPrefix("_") { label.removeFirst() }
      return [(optionName(label), parameter, nil)]
    }
  }

  /// The option names of a type's parameters in declaration order.
  static func names(of value: Any) -> [String] { declared(in: value).map(\.name) }

  /// The options a value declares, in declaration order.
  static func options(of value: Any) -> [OptionSpec] {
    declared(in: value).compactMap { declared in
      var option = declared.parameter.option(named: declared.name)
      option?.group = declared.group
      return option
    }
  }

  /// Fills parameters from the scanned command line, in declaration order; the first refusal
  /// is thrown.
  static func bind(
    _ parameters: [any CommandParameter], names: [String], from line: ParsedArguments, context: ParseContext
  ) throws {
    for (name, parameter) in zip(names, parameters) {
      try parameter.bind(named: name, from: line, context: context)
    }
  }

  /// Fills a value's parameters, found by reflection (for a value made outside `make`).
  static func bind(_ value: Any, from line: ParsedArguments, context: ParseContext) throws {
    let declared = declared(in: value)
    try bind(declared.map(\.parameter), names: declared.map(\.name), from: line, context: context)
  }

  /// `appAccountToken` → `app-account-token`, `requestID` → `request-id`.
  static func optionName(_ label: String) -> String {
    var name = ""
    var previous: Character?
    for ch in label {
      if ch.isUppercase, let p = previous, p.isLowercase || p.isNumber { name.append("-") }
      name.append(Character(ch.lowercased()))
      previous = ch
    }
    return name
  }
}

extension CommandSpec {
  /// The table entry of a declared command: its help from the configuration and declarations,
  /// and a run that parses a fresh value before running it.
  init<C: CommandLineCommand>(_ type: C.Type) {
    let configuration = C.configuration
    let names = CommandDeclarations.names(of: C())
    self.init(
      name: configuration.name, group: configuration.group, abstract: configuration.abstract,
      arguments: configuration.arguments, options: CommandDeclarations.options(of: C()),
      discussion: configuration.discussion, example: configuration.example,
      answersPurchaseResult: configuration.answersPurchaseResult,
      positionals: CommandDeclarations.declared(in: C()).lazy.compactMap { ($0.parameter as? Arguments)?.count }.first,
      run: { inv in
        let (command, parameters) = CommandDeclarations.make { C() }
        let current = inv
        let context = ParseContext(command: configuration.name, warning: { current.warning($0) })
        try CommandDeclarations.bind(parameters, names: names, from: inv.arguments, context: context)
        try command.validate()
        inv.references = command.configurationReferences
        return try command.run(inv)
      })
  }
}
