import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 25, item 6: every help text fits the terminal's width at any width from 40 on, rows
/// continuing under their hanging indent, shell examples continuing with ` \`.
@Suite struct HelpWidthTests {
  /// `--help`, `help`, `help CMD` for every command and the scenario-only lines, `CMD --help`.
  static func helpTexts(_ cli: CLIHarness) -> [(String, String)] {
    var lines = ["--help", "help", "help expect", "help echo"]
    for spec in CommandTable.standard.commands { lines += ["help \(spec.name)", "\(spec.name) --help"] }
    return lines.map { ($0, cli.run($0).stdout) }
  }

  @Test(arguments: [40, 50, 60, 100])
  func noHelpLineIsWiderThanTheTerminal(width: Int) throws {
    let cli = try CLIHarness()
    cli.columns = width
    for (line, text) in Self.helpTexts(cli) {
      #expect(!text.isEmpty, "\(line)")
      for row in text.split(separator: "\n") where row.count > width {
        Issue.record("storesim \(line) at \(width) columns: a line of \(row.count): \(row)")
      }
    }
  }

  @Test func belowTheMinimumTheMinimumIsUsed() throws {
    let cli = try CLIHarness()
    cli.columns = HelpText.minimumWidth
    let atMinimum = cli.run("--help").stdout
    cli.columns = 20
    #expect(cli.run("--help").stdout == atMinimum)
  }

  @Test func theOverviewAtFiftyColumnsMatchesItsGolden() throws {
    let cli = try CLIHarness()
    cli.columns = 50
    assertGolden(cli.run("--help").stdout, "help-50.txt")
  }

  @Test func aNarrowRowPutsItsTextUnderItsLabel() {
    let row = HelpText.row(
      "--session <path>", text: "session file (default .storesim/session.json)", column: 24, width: 40)
    #expect(row == "  --session <path>\n      session file (default\n      .storesim/session.json)")
    // Wide enough: the label's column as at 80.
    #expect(HelpText.row("buy", text: "Buy a product", column: 18, width: 80) == "  buy             Buy a product")
  }

  @Test func aWordTooLongForItsIndentMovesLeftAndOneWiderThanTheLineIsCut() {
    let long = String(repeating: "x", count: 30)
    let wrapped = HelpText.wrapLine("OVERVIEW: one two " + long, width: 40, hangingIndent: 10)
    #expect(wrapped == "OVERVIEW: one two\n          " + long)
    let moved = HelpText.wrapLine("OVERVIEW: one " + long + "yyyy", width: 40, hangingIndent: 10)
    #expect(moved == "OVERVIEW: one\n      " + long + "yyyy")
    let cut = HelpText.wrapLine("a " + String(repeating: "z", count: 50), width: 40, hangingIndent: 2)
    #expect(cut.split(separator: "\n").allSatisfy { $0.count <= 40 })
    #expect(cut.filter { $0 == "z" }.count == 50)
  }

  @Test func aLongExampleContinuesAsTheShellReadsIt() {
    let folded = HelpText.command(
      "storesim refund request consumable.fuel.octane87 --reason unintended-purchase", width: 40)
    #expect(
      folded == """
          storesim refund request \\
              consumable.fuel.octane87 \\
              --reason unintended-purchase
        """)
    // A quoted word longer than a line is cut outside its quotes: the pieces join to the word.
    let quoted = HelpText.command("storesim api GET '/inApps/v1/history/2000000000000001?sort=DESCENDING'", width: 40)
    let lines = quoted.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count <= 40 })
    // The shell drops each backslash-newline and the empty '' a cut leaves.
    let joined = quoted.replacingOccurrences(of: "\\\n", with: "").replacingOccurrences(of: "''", with: "")
    #expect(
      joined.split(separator: " ").joined(separator: " ")
        == "storesim api GET '/inApps/v1/history/2000000000000001?sort=DESCENDING'")
    // At 80 columns an example that fits is left as it is.
    #expect(HelpText.command("storesim now", width: 80) == "  storesim now")
  }
}

/// Issue 44, item 6: `storesim help COMMAND` says what the command does and how to use it in at
/// most 25 lines before OPTIONS (at 80 columns); the long reference lives in docs/, which the
/// help names.
@Suite struct HelpFitsAScreenTests {
  static let linesBeforeOptions = 25

  @Test func everyCommandsHelpFitsAScreenBeforeItsOptions() throws {
    let cli = try CLIHarness()
    cli.columns = 80
    for spec in CommandTable.standard.commands {
      let text = cli.run("help \(spec.name)").stdout
      let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
      let before = rows.firstIndex { $0.hasPrefix("OPTIONS:") } ?? rows.count
      #expect(
        before <= Self.linesBeforeOptions,
        "storesim help \(spec.name): \(before) lines before OPTIONS (at most \(Self.linesBeforeOptions))")
    }
  }
}
