import Foundation
import Testing

@testable import StoreSimCLI

/// The typed command declarations: options are named after their properties, parsed into a
/// fresh value before the command runs, and listed for help from the same declaration.
@Suite struct CommandDeclarationTests {
  /// A command declared only for these tests.
  private struct Sample: CommandLineCommand {
    static let configuration = CommandConfiguration(
      name: "sample", group: "Tests", abstract: "A sample", example: "storesim sample")

    @Arguments(1...2, "sample id")
    var arguments: [String]
    @Option("<n>", help: "a count", parse: Sample.count)
    var count: Int?
    @Option("<id>", help: "an id")
    var requestID: String?
    @Flag(help: "a flag")
    var noConsent: Bool
    @RepeatedOption("<code>", help: "repeatable")
    var storefront: [String]?

    static func count(_ text: String, _ context: ParseContext) throws -> Int {
      guard let n = Int(text) else { throw CLIError.usage("count must be a number, not '\(text)'") }
      return n
    }

    func run(_ inv: Invocation) throws -> ExitCode { .success }
  }

  private func parsed(_ argv: [String]) throws -> Sample {
    let table = CommandTable(commands: [CommandSpec(Sample.self)])
    let line = try ArgumentScanner.scan(argv, commands: table)
    let sample = Sample()
    try CommandDeclarations.bind(sample, from: line, context: ParseContext(command: "sample"))
    return sample
  }

  @Test func optionsAreNamedAfterTheirPropertiesInDeclarationOrder() {
    let spec = CommandSpec(Sample.self)
    #expect(spec.options.map(\.name) == ["count", "request-id", "no-consent", "storefront"])
    #expect(spec.options.map(\.value) == ["<n>", "<id>", nil, "<code>"])
    #expect(CommandDeclarations.optionName("appAccountToken") == "app-account-token")
    #expect(CommandDeclarations.optionName("bundleID") == "bundle-id")
  }

  @Test func aParsedValueHoldsEveryOptionTyped() throws {
    let sample = try parsed([
      "sample", "a", "--count", "3", "--request-id=r1", "--no-consent", "--storefront", "USA", "--storefront", "FRA",
    ])
    #expect(sample.arguments == ["a"])
    #expect(sample.count == 3)
    #expect(sample.requestID == "r1")
    #expect(sample.noConsent)
    #expect(sample.storefront == ["USA", "FRA"])
    let bare = try parsed(["sample", "a", "b"])
    #expect(bare.count == nil && bare.requestID == nil && !bare.noConsent && bare.storefront == nil)
  }

  @Test func refusalsComeInDeclarationOrderBeforeTheCommandRuns() throws {
    #expect(throws: CLIError.self) { try parsed(["sample"]) }
    do {
      _ = try parsed(["sample", "a", "b", "c", "--count", "x"])
      Issue.record("an extra argument was accepted")
    } catch let error as CLIError {
      #expect(error.message == "unexpected argument 'c'")
    }
    do {
      _ = try parsed(["sample", "a", "--count", "x"])
      Issue.record("a bad count was accepted")
    } catch let error as CLIError {
      #expect(error.message == "count must be a number, not 'x'")
    }
  }

  @Test func everyStandardCommandIsDeclaredAndItsHelpListsItsDeclaredOptions() {
    for spec in CommandTable.standard.commands {
      let help = CommandTable.standard.help(for: spec)
      for option in spec.options { #expect(help.contains("--\(option.name)"), "\(spec.name) --\(option.name)") }
    }
    #expect(globalOptions.map(\.name) == ["session", "customer", "json", "help", "version"])
  }
}
