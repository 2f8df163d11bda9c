import Foundation
import Testing

/// `docs/rules.md` states every StoreKit rule the engine implements: each `## ` heading is a
/// unique kebab-case rule name, each rule rests on at least one Apple page and carries exactly one
/// confidence tag, and every rule the code cites by name exists.
@Suite struct RulesDocumentTests {
  static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// One `## ` section: its heading and the lines up to the next heading of any level.
  struct Section {
    var name: String
    var line: Int
    var body: String
  }

  static func sections(of document: String) -> [Section] {
    var result: [Section] = []
    var current: Section?
    for (index, line) in document.components(separatedBy: "\n").enumerated() {
      if line.hasPrefix("#") {
        if let current { result.append(current) }
        current =
          line.hasPrefix("## ")
          ? Section(name: String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), line: index + 1, body: "")
          : nil
      } else {
        current?.body += line + "\n"
      }
    }
    if let current { result.append(current) }
    return result
  }

  static func matches(_ pattern: String, in text: String, group: Int = 0) -> [String] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
      Range(match.range(at: group), in: text).map { String(text[$0]) }
    }
  }

  /// What is wrong with a rules document, one line per problem (empty when it is right).
  static func problems(in document: String) -> [String] {
    var problems: [String] = []
    var seen: Set<String> = []
    for section in sections(of: document) {
      let at = "line \(section.line) '\(section.name)'"
      if matches("^[a-z0-9]+(-[a-z0-9]+)+$", in: section.name).isEmpty {
        problems.append("\(at): heading is not a kebab-case name")
      }
      if !seen.insert(section.name).inserted { problems.append("\(at): heading used twice") }
      if !section.body.contains("https://developer.apple.com/") {
        problems.append("\(at): no https://developer.apple.com/ page")
      }
      let tags = matches(#"\[(doc|inf)\]"#, in: section.body).count
      if tags != 1 { problems.append("\(at): \(tags) confidence tags, expected exactly one of [doc] or [inf]") }
    }
    return problems
  }

  /// Rule names cited as `rule name` in Swift source, also when a comment wraps between the word
  /// and the name.
  static func citedRules(in source: String) -> [String] {
    let joined = source.replacingOccurrences(of: #"\n[ \t]*(//+[ \t]*)?"#, with: " ", options: .regularExpression)
    return matches(#"\b[Rr]ule ([a-z0-9]+(?:-[a-z0-9]+)+)\b"#, in: joined, group: 1)
  }

  static func swiftFiles(under folder: String) -> [URL] {
    let url = projectRoot.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { return [] }
    return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
  }

  static func document() throws -> String {
    try String(contentsOf: projectRoot.appendingPathComponent("docs/rules.md"), encoding: .utf8)
  }

  @Test func everyRuleHasAUniqueKebabCaseNameAnApplePageAndOneConfidenceTag() throws {
    let document = try Self.document()
    #expect(Self.sections(of: document).count >= 40)
    #expect(Self.problems(in: document) == [])
  }

  @Test func everyRuleCitedInSourcesAndTestsExists() throws {
    let headings = Set(Self.sections(of: try Self.document()).map(\.name))
    var cited = 0
    var missing: [String] = []
    for file in Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Tests") {
      let source = try String(contentsOf: file, encoding: .utf8)
      for name in Self.citedRules(in: source) {
        cited += 1
        if !headings.contains(name) { missing.append("\(file.lastPathComponent): \(name)") }
      }
    }
    #expect(cited >= 40)
    #expect(missing == [])
  }

  /// The checks find what they are meant to find.
  @Test func checksReportBrokenDocumentsAndFindWrappedCitations() {
    let broken = """
      # Rules

      ## Not-Kebab
      No page. `[doc]`

      ## twice-named
      https://developer.apple.com/documentation/storekit `[doc]` `[inf]`

      ## twice-named
      https://developer.apple.com/documentation/storekit

      # Not implemented

      - ignored, no tag
      """
    #expect(
      Self.problems(in: broken) == [
        "line 3 'Not-Kebab': heading is not a kebab-case name",
        "line 3 'Not-Kebab': no https://developer.apple.com/ page",
        "line 6 'twice-named': 2 confidence tags, expected exactly one of [doc] or [inf]",
        "line 9 'twice-named': heading used twice",
        "line 9 'twice-named': 0 confidence tags, expected exactly one of [doc] or [inf]",
      ])
    let word = "ru" + "le"
    let source =
      "  /// renews (\(word)\n  /// renewals-keep-the-anniversary); \(word.capitalized) some-other-rule: x; \(word) 23, \(word)s"
    #expect(Self.citedRules(in: source) == ["renewals-keep-the-anniversary", "some-other-rule"])
  }
}
