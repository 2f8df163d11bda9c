import Foundation
import StoreSim

/// `storesim version`.
struct VersionCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "version", group: "Scripts and exploration",
    abstract: "Print storesim's version (also --version)",
    example: "storesim version")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    inv.emit(json: .object(["version": .string(storesimVersion)]), line: "storesim \(storesimVersion)")
    return .success
  }
}

/// Help for the lines that exist only in scenarios and the shell.
enum ScenarioOnlyHelp {
  static let names = ["expect", "echo", "respond"]

  static func text(_ name: String, width: Int = HelpText.width) -> String? {
    switch name {
    case "expect": return expectHelp(width: width)
    case "echo": return HelpText.reflow(echoHelp, width: width)
    case "respond": return HelpText.reflow(respondHelp, width: width)
    default: return nil
    }
  }

  /// `help expect`.
  static func expectHelp(width: Int) -> String {
    var text = HelpText.reflow(
      """
      OVERVIEW: Check the store in a scenario (.storesim files, 'storesim run' and the shell)

      USAGE: expect <form> [arguments] [--customer NAME]

      A failed expectation prints file:line: expected ..., got ...; the run goes on and the exit
      code is 1. Every expectation is checked before anything runs: forms, counts, dates and field
      names (against Apple's JWSTransactionDecodedPayload and JWSRenewalInfoDecodedPayload).
      Prices are milliunits, as in Apple's payloads: $9.99 is 'price 9990' ('price 9.99' is an
      error). --customer NAME checks that customer's store (a family member's, say) instead of the
      default customer's.

      FORMS:

      """, width: width)
    for kind in Expectation.Kind.allCases {
      text += HelpText.wrapLine("  \(kind.form)", width: width, hangingIndent: 6) + "\n"
      text += HelpText.wrapLine("      \(kind.help)", width: width) + "\n"
    }
    text += "\nEXAMPLE:\n"
    for example in [
      "  expect latest com.example.premium.monthly expiresDate 2026-02-07T00:00:00Z",
      "  expect latest com.example.premium.monthly price 9990",
      "  expect entitled com.example.premium.lifetime --customer kid",
    ] {
      text += HelpText.wrapLine(example, width: width, hangingIndent: 6) + "\n"
    }
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

  static let respondHelp = """
    OVERVIEW: Start a developer server that answers Retention Messaging realtime requests or notifications (scenarios and the shell only)

    USAGE: respond BODY [--delay DURATION] [--status N] [--notifications]

    Listens on 127.0.0.1 (a free port) and answers every request with BODY (JSON; quote it) and
    HTTP status N (default 200) after DURATION (default none, e.g. 900ms), then sets the session's
    realtime URL to it, as PUT /inApps/v1/messaging/realtime/url does; with --notifications, the
    session's notification URL instead (settings deliver-url), so notifications are posted to it
    and a failing status is retried as the App Store retries. A later respond of the same kind
    replaces it; it stops when the scenario or shell ends. 'retention PRODUCT' then POSTs to it.

    EXAMPLE:
      respond '{"message":{"messageIdentifier":"0c2a5b1e-58c4-4d6e-9d3e-3f6b1a2c4d5e"}}' --delay 900ms

    """
}

/// Help text folded to a width (the terminal's, 80 when not a terminal): paragraphs are
/// reflowed, and a line that wraps continues under its hanging indent.
enum HelpText {
  /// The width when output is not a terminal.
  static let width = 80

  /// Reflows `text` to `width`: the lines of a paragraph are joined (a blank line, an indented
  /// line or a line that starts with a label such as `request:` or `bash:` starts a new one),
  /// then every line is wrapped, continuing under its own indent.
  static func reflow(_ text: String, width: Int) -> String {
    var lines: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if let last = lines.last, !last.isEmpty, !line.isEmpty, !line.hasPrefix(" "), !startsWithLabel(line) {
        lines[lines.count - 1] = last + " " + line
      } else {
        lines.append(line)
      }
    }
    return lines.map { line in
      // `OVERVIEW: ...` continues under its text.
      let heading = line.range(of: #"^[A-Z]+: "#, options: .regularExpression).map {
        line.distance(from: line.startIndex, to: $0.upperBound)
      }
      return wrapLine(line, width: width, hangingIndent: heading)
    }.joined(separator: "\n")
  }

  /// `word:` or `word WORD:` at the start of a line: an entry of its own.
  private static func startsWithLabel(_ line: String) -> Bool {
    line.range(of: #"^[A-Za-z][A-Za-z0-9_-]*( [A-Z<][A-Za-z0-9<>|_-]*)?: "#, options: .regularExpression) != nil
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
