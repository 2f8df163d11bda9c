import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 15, first contact: help, version, README and samples agree with the command table.
@Suite struct FirstContactTests {
  static let readme =
    (try? String(contentsOf: CLIHarness.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

  @Test func readmeCommandTableIsGeneratedFromTheCommandTable() {
    let table = CommandTable.standard.markdownTable()
    let inREADME = Self.readme.contains(table)
    #expect(inREADME, "README.md must hold the command table generated from CommandTable.standard:\n\(table)")
    for spec in CommandTable.standard.commands {
      #expect(table.contains("`\(spec.name)`"))
    }
  }

  @Test func readmeAndHelpListEveryExpectation() throws {
    let cli = try CLIHarness()
    let help = cli.run("help expect")
    #expect(help.code == 0)
    let run = cli.run("help run").stdout
    for form in ExpectForm.all {
      #expect(help.stdout.contains("expect \(form.name) "), "help expect lacks \(form.name)")
      #expect(run.contains(form.name), "help run lacks \(form.name)")
      let listed = Self.readme.contains("`\(form.name) ") || Self.readme.contains("`expect \(form.name)")
      #expect(listed, "README lacks expect \(form.name)")
    }
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

  @Test func helpLinesFitAHundredColumns() throws {
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
    #expect(Self.readme.contains("swift run storesim run --verbose Scripts/tour.storesim"))
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
