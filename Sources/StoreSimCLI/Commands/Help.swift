import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

/// `storesim version`.
struct VersionCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "version", group: "Scripts and exploration",
    abstract: "Print storesim's version (also --version)",
    example: "storesim version")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    if inv.json {
      inv.printJSON(.object(["version": .string(storesimVersion)]))
    } else {
      inv.out("storesim \(storesimVersion)")
    }
    return .success
  }
}

/// Help for the lines that exist only in scenarios and the shell.
enum ScenarioOnlyHelp {
  static let names = ["expect", "echo"]

  static func text(_ name: String) -> String? {
    switch name {
    case "expect": return expectHelp
    case "echo": return echoHelp
    default: return nil
    }
  }

  /// `help expect`.
  static var expectHelp: String {
    var text = """
      OVERVIEW: Check the store in a scenario (.storesim files, 'storesim run' and the shell)

      USAGE: expect <form> [arguments]

      A failed expectation prints file:line: expected ..., got ...; the run goes on and the exit
      code is 1. Every expectation is checked before anything runs: forms, counts, dates and field
      names (against Apple's JWSTransactionDecodedPayload and JWSRenewalInfoDecodedPayload).

      FORMS:

      """
    for kind in Expectation.Kind.allCases {
      text += "  \(kind.form)\n" + HelpText.wrapLine("      \(kind.help)") + "\n"
    }
    text += "\nEXAMPLE:\n  expect latest com.example.premium.monthly expiresDate 2026-02-07T00:00:00Z\n"
    return text
  }

  /// `help echo`.
  static let echoHelp = """
    OVERVIEW: Print a line of text (scenarios and the shell only)

    USAGE: echo [text...]

    The words are printed as they are, one space apart, on stdout. Handy to explain a scenario
    as it runs.

    EXAMPLE:
      echo Billing fails from here on

    """
}

/// Help text folded to a width: long lines break at spaces, continuing under their indent.
enum HelpText {
  static let width = 100

  static func wrap(_ text: String, hangingIndent: Int? = nil) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map {
      wrapLine(String($0), hangingIndent: hangingIndent)
    }.joined(separator: "\n")
  }

  static func wrapLine(_ line: String, hangingIndent: Int? = nil) -> String {
    guard line.count > width else { return line }
    let leading = line.prefix { $0 == " " }.count
    let indent = String(repeating: " ", count: hangingIndent ?? leading)
    var lines: [String] = []
    var current = ""
    for word in line.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
      if current.isEmpty && lines.isEmpty {
        current = word
        continue
      }
      if current.count + 1 + word.count > width, current.trimmingCharacters(in: .whitespaces).count > 0, !word.isEmpty {
        lines.append(current)
        current = indent + word
      } else {
        current += " " + word
      }
    }
    lines.append(current)
    return lines.joined(separator: "\n")
  }
}

extension CommandTable {
  /// The README's command table, generated from the table so the two cannot drift (a test
  /// compares them).
  func markdownTable() -> String {
    var text = "| group | commands |\n|---|---|\n"
    for group in Self.groupOrder + commands.map(\.group).filter({ !Self.groupOrder.contains($0) }).uniqued() {
      let members = commands.filter { $0.group == group }
      guard !members.isEmpty else { continue }
      text += "| \(group.lowercased()) | " + members.map { "`\($0.name)`" }.joined(separator: ", ") + " |\n"
    }
    text += "| scenario and shell lines | " + ScenarioOnlyHelp.names.map { "`\($0)`" }.joined(separator: ", ") + " |\n"
    return text
  }
}

extension Array where Element: Hashable {
  func uniqued() -> [Element] {
    var seen: Set<Element> = []
    return filter { seen.insert($0).inserted }
  }
}
