import Foundation
import Testing

@testable import StoreSimTestSupport

/// The rule of one unit of work (issue 32): outside `SessionWork`, nothing in the sources
/// locks, reads or saves a session file, so every front end gets the same lock, the same
/// reload of an edited configuration and the same save.
@Suite struct SessionWorkOnlyTests {
  static let sources = Fixtures.projectRoot.appendingPathComponent("Sources")

  /// The calls that lock, read or save a session file.
  static let calls = [
    "SessionLock(", "SessionFile.read(", "SessionFile.write(", "AtomicFile.write(", "SessionFileFormat.decode(",
    "Data(contentsOf:",
  ]

  /// Where they may be: `SessionWork` itself, and `SessionFile`'s save, which `SessionWork`
  /// calls and which hands the bytes to `AtomicFile`.
  static let allowed: Set<String> = ["StoreSimSession/SessionWork.swift", "StoreSimSession/SessionFile.swift"]

  /// Every `.swift` file under `Sources`, by its path under it.
  static func files() throws -> [(path: String, text: String)] {
    let root = sources.path
    let enumerator = try #require(FileManager.default.enumerator(atPath: root))
    return try enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
      ($0, try String(contentsOfFile: root + "/" + $0, encoding: .utf8))
    }
  }

  @Test func onlySessionWorkLocksLoadsAndSavesASessionFile() throws {
    let files = try Self.files()
    // The scan reads the real sources (a wrong folder would find nothing and prove nothing).
    #expect(files.count > 100)
    #expect(files.contains { $0.path == "StoreSimSession/SessionWork.swift" && $0.text.contains("SessionLock(") })
    var found: [String] = []
    for (path, text) in files where !Self.allowed.contains(path) {
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let code = line.trimmingCharacters(in: .whitespaces)
        guard !code.hasPrefix("//") else { continue }
        for call in Self.calls where code.contains(call) { found.append("\(path):\(number + 1): \(call)") }
      }
    }
    #expect(found == [], "lock, load and save a session only through SessionWork")
  }

  /// One JSON string writer (`JSONString`, in the core): no other file writes a JSON `\u`
  /// escape. StoreSimHTTP, which knows no core, writes its own one-field refusal body.
  @Test func onlyJSONStringWritesJSONStrings() throws {
    let files = try Self.files()
    #expect(
      files.contains { $0.path == "StoreSim/Support/JSONString.swift" && $0.text.contains(#"UInt8(ascii: "u")"#) })
    let writers = files.filter { file in
      !file.path.hasPrefix("StoreSimHTTP/") && file.path != "StoreSim/Support/JSONString.swift"
        && (file.text.contains(#"\\u%04x"#) || file.text.contains(#"\\u" + "#))
    }
    #expect(writers.map(\.path) == [], "write JSON strings with JSONString")
  }

  /// Performance work no target needs is fenced (issue 44, item 5): every file of
  /// docs/performance.md's "kept" table exists, and the speed-only machinery (the two-halves
  /// reader, the engine's read-ahead) lives only in the files that table names.
  @Test func performanceWorkLivesOnlyInFilesNamedForItsFigure() throws {
    let table = try String(
      contentsOf: Fixtures.projectRoot.appendingPathComponent("docs/performance.md"), encoding: .utf8)
    let kept = table.split(separator: "\n").filter { $0.hasPrefix("| `Sources/") }.compactMap {
      $0.split(separator: "`").dropFirst().first.map { String($0.dropFirst("Sources/".count)) }
    }
    #expect(kept.count == 2)
    let files = try Self.files()
    for path in kept { #expect(files.contains { $0.path == path }, "\(path) is in docs/performance.md") }
    let machinery = ["final class SecondHalf", "struct SecondHalf", "func warm(", "func blackHole("]
    let outside = files.filter { file in
      !kept.contains(file.path) && machinery.contains { file.text.contains($0) }
    }
    #expect(outside.map(\.path) == [], "speed-only code outside the files named for its figure")
  }
}
