import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 25, item 6: help folds at the terminal's width (80 when not a terminal), each wrapped
/// line continuing under its hanging indent, paragraphs reflowed.
@Suite struct HelpTextTests {
  @Test func anOptionKeepsItsIndentAndContinuesUnderItsHelp() {
    let line = "  --artifacts <dir>             " + String(repeating: "word ", count: 20)
    let wrapped = HelpText.wrapLine(line, width: 60, hangingIndent: 32).split(separator: "\n")
    #expect(wrapped[0].hasPrefix("  --artifacts <dir>             word"))
    for continuation in wrapped.dropFirst() {
      #expect(continuation.hasPrefix(String(repeating: " ", count: 32) + "word"))
    }
    #expect(wrapped.allSatisfy { $0.count <= 60 })
  }

  @Test func aParagraphIsReflowedAndALabelStartsALineOfItsOwn() {
    let text = "one two three\nfour five six\nbash: source <(x)\nzsh:  source <(y)\n\nnext paragraph"
    #expect(
      HelpText.reflow(text, width: 80)
        == "one two three four five six\nbash: source <(x)\nzsh:  source <(y)\n\nnext paragraph")
    #expect(
      HelpText.reflow("OVERVIEW: " + String(repeating: "a ", count: 40), width: 40).split(separator: "\n")[1]
        .hasPrefix("          a"))
  }

  @Test func theWidthIsTheTerminalsOrEighty() throws {
    #expect(CLIEnvironment.terminalColumns(["COLUMNS": "120"]) == 120)
    #expect(CLIEnvironment.terminalColumns(["COLUMNS": "10"]) == 40)
    let cli = try CLIHarness()
    let help = cli.run("help notifications").stdout
    #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 })
    #expect(HelpText.width == 80)
  }
}
