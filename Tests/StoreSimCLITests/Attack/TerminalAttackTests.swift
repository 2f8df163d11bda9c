import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// Attack rows 3 and 4 of the hostile pass: names holding terminal controls, bidirectional
/// overrides or zero-width characters reach the terminal only through `TerminalText`, shown as
/// visible escapes.
@Suite struct TerminalAttackTests {
  /// OSC 2 (retitle), OSC 52 (write the clipboard), CSI, C1, a right-to-left override, an
  /// isolate, zero-width characters and a byte-order mark.
  static let hostile =
    "e\u{1B}]2;owned\u{07}v\u{1B}]52;c;SGVsbG8=\u{1B}\\i\u{1B}[2Jl\u{9B}31m\u{202E}rac\u{2067}x\u{200B}y\u{200D}z\u{FEFF}!\u{061C}"

  static let forbidden: [UInt32] =
    [0x1B, 0x07, 0x9B, 0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x2060, 0xFEFF]
    + Array(0x202A...0x202E) + Array(0x2066...0x2069)

  static func raw(_ text: String) -> [UInt32] {
    text.unicodeScalars.map(\.value).filter { forbidden.contains($0) }
  }

  @Test func controlsBidiOverridesAndZeroWidthCharactersAreShownEscaped() {
    for value in Self.forbidden {
      let scalar = Unicode.Scalar(value)!
      let text = "a" + String(Character(scalar)) + "b"
      #expect(Self.raw(TerminalText.field(text)).isEmpty, "U+\(String(value, radix: 16))")
      #expect(Self.raw(TerminalText.block(text)).isEmpty, "U+\(String(value, radix: 16))")
      #expect(TerminalText.field(text).count > 2, "neutralised visibly, not dropped")
    }
    #expect(TerminalText.field("a\u{202E}b") == "a\\u{202E}b")
    #expect(TerminalText.field("a\u{200B}b") == "a\\u{200B}b")
  }

  @Test func jsonWritesTheSameCharactersAsJSONEscapes() throws {
    let rendered = JSONOutput.string("a\u{202E}b\u{200B}c\u{1B}d\u{9B}").rendered(pretty: false)
    #expect(rendered == #""a\u202eb\u200bc\u001bd\u009b""#)
    guard case .string(let back) = try JSONParser.parse(Array(rendered.utf8)).value else {
      Issue.record("not a JSON string: \(rendered)")
      return
    }
    #expect(back == "a\u{202E}b\u{200B}c\u{1B}d\u{9B}")
    #expect(JSONOutput.string("Zoë 日本").rendered(pretty: false) == "\"Zoë 日本\"")
  }

  @Test func ordinaryNamesAreUnchanged() {
    for name in ["bob", "Zoë Ångström", "日本語の名前", "محمد", "שלום", "emoji 🎉", "a-b_c.d", "tab\tand\nline"] {
      #expect(TerminalText.block(name) == name)
    }
  }

  @Test func manageShowsAHostileActingCustomerEscapedInTheTitlePickerAndMessage() throws {
    let m = try ManageFixture()
    m.driver.model.acting = .init(Self.hostile)
    #expect(Self.raw(m.screen).isEmpty, "title bar")
    m.press("b")  // the "Buy as" picker
    #expect(m.screen.contains("Buy as "))
    #expect(Self.raw(m.screen).isEmpty, "Buy as picker")
    m.press("Esc", "C")
    for c in Self.hostile { _ = m.driver.press(.character(c)) }
    m.press("Enter")
    #expect(m.model.message.hasPrefix("acting customer: "))
    #expect(Self.raw(m.screen).isEmpty, "acting customer message")
    for line in ManageScreen.render(m.model) { #expect(Self.raw(line.text).isEmpty) }
  }

  @Test func theCLIsTablesAndErrorsShowHostileNamesEscaped() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z").code == 0)
    let name = "mallory\u{202E}\u{200B}\u{1B}]52;c;SGVsbG8=\u{07}"
    let bought = cli.run(["buy", "nonconsumable.car", "--customer", name])
    #expect(bought.code == 0, "\(bought.stderr)")
    for command in [
      ["transactions", "--customer", name], ["status", "--customer", name], ["receipt", "--customer", name],
    ] {
      let r = cli.run(command)
      #expect(Self.raw(r.stdout + r.stderr).isEmpty, "\(command[0])")
    }
    // JSON printed to a terminal is as safe, and stays JSON: \u202e, not a visible escape.
    for command in [["transactions", "--customer", name, "--json"], ["receipt", "--customer", name, "--json"]] {
      let r = cli.run(command)
      #expect(Self.raw(r.stdout).isEmpty, "\(command[0]) --json")
      #expect((try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) != nil, "\(command[0]) --json is JSON")
    }
    let refused = cli.run(["buy", "no.such\u{202E}product\u{200B}"])
    #expect(refused.code != 0)
    #expect(Self.raw(refused.stderr).isEmpty)
    #expect(refused.stderr.contains("\\u{202E}"))
  }
}
