import Foundation
import Testing

@testable import StoreSimCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Issue 45, rows 3 and 4: every XML text storesim writes (the SVG timeline, the JUnit report,
/// the HTML page) is well-formed, whatever a name, a product id or a file name holds.
@Suite struct XMLTextTests {
  /// Whether `xml` parses as an XML document; the parser's error when it does not.
  static func parseError(_ xml: String) -> String? {
    let parser = XMLParser(data: Data(xml.utf8))
    return parser.parse() ? nil : String(describing: parser.parserError)
  }

  /// `text` as an attribute value and as element content.
  static func document(_ text: String) -> String {
    let escaped = XMLText.escaped(text)
    return #"<?xml version="1.0" encoding="UTF-8"?><r a="\#(escaped)">\#(escaped)</r>"#
  }

  /// Every scalar of U+0000–U+FFFF, in blocks of 64, alone and between ordinary text.
  @Test func everyScalarOfTheBasicPlaneGivesWellFormedXML() {
    var failures: [String] = []
    for start in stride(from: 0, to: 0x10000, by: 64) {
      let scalars = (start..<start + 64).compactMap(Unicode.Scalar.init)
      var text = "a"
      for s in scalars { text.unicodeScalars.append(s) }
      if let error = Self.parseError(Self.document(text + "z")) {
        failures.append(String(format: "U+%04X…: %@", start, error))
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(5))")
  }

  /// Lone surrogates (as UTF-16 arrives from outside), non-characters of every plane and the
  /// characters XML 1.0 forbids outright.
  @Test func surrogatesNonCharactersAndForbiddenCharactersGiveWellFormedXML() {
    var texts = (0xD800...0xDFFF).map { String(decoding: [0x61, UInt16($0), 0x7A], as: UTF16.self) }
    for plane in 0...16 {
      for low in [0xFFFE, 0xFFFF] {
        texts.append(String(Character(Unicode.Scalar(UInt32(plane << 16 | low))!)))
      }
    }
    texts += (0xFDD0...0xFDEF).map { String(Character(Unicode.Scalar(UInt32($0))!)) }
    texts += ["\u{0}", "\u{1B}]0;title\u{7}", "\u{202E}txt.exe", "]]>", "&amp;<b>\"'", "\u{85}\u{2028}"]
    for text in texts {
      #expect(Self.parseError(Self.document(text)) == nil, "\(Array(text.unicodeScalars))")
    }
    #expect(XMLText.escaped("\u{1}a\u{202E}") == "\\u{1}a\\u{202E}", "shown as the terminal shows them")
    #expect(XMLText.escaped("a\nb\tc") == "a\nb\tc", "line breaks and tabs stay")
    #expect(XMLText.escaped("\u{FFFE}") == "\u{FFFD}")
  }

  /// Row 3: `timeline --svg` with control characters in a customer's name.
  @Test func theTimelineDrawingOfANameWithControlCharactersParses() throws {
    let cli = try CLIHarness()
    let name = "bad\u{1}\u{8}\u{1B}[31m\u{202E}name"
    #expect(cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run(["buy", "com.example.premium.monthly", "--customer", name]).code == 0)
    let svg = cli.run("timeline --svg").stdout
    #expect(Self.parseError(svg) == nil)
    #expect(svg.contains("bad\\u{1}\\u{8}\\e[31m\\u{202E}name"))
    #expect(cli.run("report --html page.html").code == 0)
    let page = try String(contentsOfFile: cli.folder + "/page.html", encoding: .utf8)
    #expect(!page.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no C0 control in the page")
  }

  /// Row 4: `run --junit` with control characters in a product id and in a scenario's name.
  @Test func theJUnitReportOfControlCharactersParses() throws {
    let cli = try CLIHarness()
    let file = "odd\u{1}\u{1B}name.storesim"
    try "init Premium.storekit --start 2026-01-01T00:00:00Z\nbuy com.example.\u{2}\u{1B}[2Jx\n"
      .write(toFile: cli.folder + "/" + file, atomically: true, encoding: .utf8)
    let r = cli.run(["run", file, "--junit", "report.xml"])
    #expect(r.code == 65, "\(r.stderr)")
    let xml = try String(contentsOfFile: cli.folder + "/report.xml", encoding: .utf8)
    #expect(Self.parseError(xml) == nil, "\(xml)")
    #expect(xml.contains("odd\\u{1}\\ename.storesim"))
  }
}
