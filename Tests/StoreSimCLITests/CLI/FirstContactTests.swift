import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 15, first contact: help, version, README and samples agree with the command table.
@Suite struct FirstContactTests {
  static let readme =
    (try? String(contentsOf: CLIHarness.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

  /// The README's lines from the one starting with `start` to the first that does not match
  /// `continues` (or the first blank line).
  static func readmeBlock(
    from start: String, in text: String = readme, while continues: (Substring) -> Bool
  ) -> [Substring] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
    return Array(lines[first...].prefix { !$0.isEmpty && ($0.hasPrefix(start) || continues($0)) })
  }

  @Test func readmeCommandTableIsGeneratedFromTheCommandTable() {
    let table = CommandTable.standard.markdownTable()
    let block = Self.readmeBlock(from: "| group | commands |") { $0.hasPrefix("|") }
    #expect(
      block.joined(separator: "\n") + "\n" == table,
      "README.md must hold the command table generated from CommandTable.standard:\n\(table)")
    // No second, hand-kept copy of a group's row anywhere else.
    let rows = table.split(separator: "\n").dropFirst(2)
    for row in rows {
      let group = row.split(separator: "|")[0]
      let copies = Self.readme.split(separator: "\n").filter { $0.hasPrefix("|\(group)|") }
      #expect(copies.count == 1, "README.md has \(copies.count) rows for\(group)")
    }
    for spec in CommandTable.standard.commands {
      #expect(table.contains("`\(spec.name)`"))
    }
  }

  /// The scenario language's page (the README links it).
  static let scenarios =
    (try? String(contentsOf: CLIHarness.projectRoot.appendingPathComponent("docs/scenarios.md"), encoding: .utf8)) ?? ""

  @Test func theScenarioPageListsExactlyTheExpectationsInOrder() {
    let paragraph = Self.readmeBlock(from: "Expectations (`storesim help expect`):", in: Self.scenarios) { _ in true }
      .joined(separator: " ")
    // Each form is a code span with its arguments (`entitled P`); the first one says `expect`.
    let spans = paragraph.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    let forms = spans.filter { $0.contains(" ") && !$0.hasPrefix("storesim ") }.map {
      String($0.split(separator: " ")[$0.hasPrefix("expect ") ? 1 : 0])
    }
    #expect(forms == Expectation.Kind.allCases.map(\.name) + ["echo"], "docs/scenarios.md lists: \(forms)")
  }

  @Test func helpListsExactlyTheExpectationsInOrder() throws {
    let cli = try CLIHarness()
    let help = cli.run("help expect")
    #expect(help.code == 0)
    let section = help.stdout.components(separatedBy: "FORMS:")[1].components(separatedBy: "EXAMPLE:")[0]
    let forms = section.split(separator: "\n").filter { $0.hasPrefix("  expect ") }.map(String.init)
    #expect(forms == Expectation.Kind.allCases.map { "  \($0.form)" })
    // `help run` names the forms in one parenthesis.
    let run = cli.run("help run").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    let named = run.components(separatedBy: "'storesim help expect' (").dropFirst().first?
      .prefix { $0 != ")" }
    #expect(named.map(String.init) == Expectation.Kind.allCases.map(\.name).joined(separator: ", "))
    #expect(cli.run("help echo").stdout.contains("USAGE: echo"))
    #expect(cli.run("--help").stdout.contains("expect, echo"))
    let outside = cli.run("expect pending 0")
    #expect(outside.code == 64)
    #expect(outside.stderr.contains("works in scenarios and the shell"))
  }

  @Test func versionIsACommandAndAnOption() throws {
    let cli = try CLIHarness()
    #expect(cli.run("version").stdout == "storesim \(storesimVersion)\n")
    #expect(cli.run("--version").stdout == "storesim \(storesimVersion)\n")
    #expect(cli.run("version --json").stdout.contains("\"version\""))
  }

  @Test func helpLinesFitEightyColumnsWhenNotATerminal() throws {
    let cli = try CLIHarness()
    var texts = [cli.run("--help").stdout, cli.run("help expect").stdout, cli.run("help echo").stdout]
    for spec in CommandTable.standard.commands { texts.append(cli.run("help \(spec.name)").stdout) }
    for text in texts {
      for line in text.split(separator: "\n") where line.count > HelpText.width {
        Issue.record("help line of \(line.count) columns: \(line)")
      }
    }
  }

  @Test func samplesValidateWithoutWarningsAndWarningsCarryLineAndColumn() throws {
    let cli = try CLIHarness()
    let r = cli.run("validate AppleSample.storekit Premium.storekit")
    #expect(r.code == 0)
    #expect(r.stderr.isEmpty, "\(r.stderr)")
    #expect(cli.run("init Premium.storekit").stderr.isEmpty)
    // A shared level is reported at the product that shares it, with line and column.
    let path = cli.folder + "/Premium.storekit"
    let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
      of: "\"groupNumber\" : 3", with: "\"groupNumber\" : 2")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let warned = cli.run("validate Premium.storekit")
    #expect(
      warned.stderr.range(of: #"^Premium\.storekit:\d+:\d+: warning: in group 'Premium'"#, options: .regularExpression)
        != nil, "\(warned.stderr)")
  }

  @Test func theTourShowsEachCommandAndTheStoresAnswer() throws {
    let cli = try CLIHarness()
    #expect(Self.readme.contains("storesim run --verbose Scripts/tour.storesim"))
    let r = cli.run(["run", "--verbose", CLIHarness.projectRoot.appendingPathComponent("Scripts/tour.storesim").path])
    #expect(r.code == 0)
    #expect(r.stdout.contains("> buy subscription.pro\npurchased  subscription.pro"))
    #expect(r.stdout.contains("> status\n"))
    #expect(r.stdout.contains("notification DID_RENEW"))
  }

  @Test func theCIRecipeRunsWhatCIRuns() throws {
    let recipe = try String(contentsOf: CLIHarness.projectRoot.appendingPathComponent("docs/ci.md"), encoding: .utf8)
    let ci = try String(contentsOf: CLIHarness.projectRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
    let ciLines = Set(ci.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
    let commands = recipe.split(separator: "\n").compactMap { line -> String? in
      let t = line.trimmingCharacters(in: .whitespaces)
      return t.hasPrefix("- run: ") ? String(t.dropFirst(7)) : nil
    }
    #expect(commands.count >= 3)
    for command in commands {
      #expect(ciLines.contains(command), ".ci/run does not run '\(command)'")
    }
    #expect(recipe.contains("--junit"))
    #expect(Self.readme.contains("docs/ci.md"))
  }
}
