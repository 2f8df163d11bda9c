import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimTestSupport

/// Hostile variants of every corpus file must load with warnings or fail with one clean
/// located error: never a crash, a hang or unbounded memory.
@Suite struct MutationTests {
  /// Deterministic mutations of a document.
  static func mutations(of bytes: [UInt8], seed: Int) -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = []
    for fraction in [1, 3, 5, 7, 9] {
      out.append(("truncated at \(fraction)0%", Array(bytes.prefix(bytes.count * fraction / 10))))
    }
    let text = String(decoding: bytes, as: UTF8.self)
    func replacing(_ pattern: String, with replacement: String, _ name: String) {
      if let range = text.range(of: pattern, options: .regularExpression) {
        out.append((name, Array(text.replacingCharacters(in: range, with: replacement).utf8)))
      }
    }
    replacing(#""productID"\s*:\s*"[^"]*""#, with: #""productID" : 12345"#, "productID as a number")
    replacing(#""displayPrice"\s*:\s*"[^"]*""#, with: #""displayPrice" : 1e999999"#, "huge price")
    replacing(#""groupNumber"\s*:\s*\d+"#, with: #""groupNumber" : 99999999999999999999999999"#, "huge level")
    replacing(#""subscriptionGroups"\s*:\s*\["#, with: #""subscriptionGroups" : {"x": ["#, "array as object")
    replacing(#""localizations"\s*:\s*\["#, with: #""localizations" : "oops", "_" : ["#, "wrong type")
    replacing(#""settings"\s*:\s*\{"#, with: #""settings" : {"_timeRate" : -7, "_storefront" : [], "#, "bad settings")
    replacing(#""products"\s*:"#, with: #""products" : [], "products" :"#, "duplicate key")
    var invalid = bytes
    invalid.insert(contentsOf: [0xC3, 0x28, 0xFF], at: min(invalid.count, (seed * 7919) % max(1, invalid.count)))
    out.append(("invalid UTF-8", invalid))
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    out.append(
      (
        "deep nesting",
        Array(text.replacingOccurrences(of: "\"products\"", with: "\"deep\" : \(deep), \"products\"").utf8)
      ))
    out.append(("empty", []))
    out.append(("NUL bytes", [UInt8](repeating: 0, count: 64)))
    return out
  }

  @Test(.enabled(if: StoreKitCorpus.isPresent, "shared/corpus/storekit is not beside the clone"))
  func everyMutationOfEveryCorpusFileGivesWarningsOrOneCleanError() throws {
    var loaded = 0, refused = 0
    for (n, file) in StoreKitCorpus.files.enumerated() {
      let bytes = Array(try Data(contentsOf: file))
      for (name, mutated) in Self.mutations(of: bytes, seed: n) {
        do {
          let result = try ConfigurationReader.read(mutated)
          #expect(result.warnings.allSatisfy { !$0.message.contains("\n") }, "\(file.lastPathComponent) \(name)")
          // A loaded configuration must also run.
          var store = Store(configuration: result.configuration, start: Fixtures.start)
          store.settings.timeRate = .realTime
          for p in result.configuration.products.prefix(5) { _ = try store.purchase(p.id) }
          try store.advance(by: 86_400 * 40)
          loaded += 1
        } catch let error as ConfigurationError {
          #expect(!error.issue.message.contains("\n"), "\(file.lastPathComponent) \(name)")
          #expect(error.issue.severity == .error)
          refused += 1
        }
      }
    }
    #expect(loaded > 0 && refused > 0)
  }

  @Test func validateAnswersEveryMutationWithAnExitCodeFromTheContract() throws {
    let cli = try CLIHarness()
    let sample = Array(
      try Data(contentsOf: CLIHarness.projectRoot.appendingPathComponent("Configurations/AppleSample.storekit")))
    for (i, (name, bytes)) in Self.mutations(of: sample, seed: 1).enumerated() {
      let path = cli.folder + "/m\(i).storekit"
      _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
      let r = cli.run(["validate", "m\(i).storekit"])
      #expect([0, 65].contains(r.code), "\(name): exit \(r.code)")
      if r.code == 65 {
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }.count == 1, "\(name)")
      }
    }
  }

  @Test func scenarioParserRefusesGarbageWithALocatedSyntaxErrorOrRunsIt() throws {
    let cli = try CLIHarness()
    let lines = [
      "buy \"unterminated", "expect", "expect state", "expect transactions x", "advance 1m", "init",
      "--json", "buy --quantity", "\u{0}\u{1}", String(repeating: "a ", count: 10_000), "expect result maybe",
      "settings error", "run other.storesim", "# just a comment", "",
    ]
    for (i, line) in lines.enumerated() {
      let file = "g\(i).storesim"
      try "init AppleSample.storekit\n\(line)\n".write(
        toFile: cli.folder + "/" + file, atomically: true, encoding: .utf8)
      let r = cli.run(["run", file])
      #expect([0, 1, 65].contains(r.code), "line \(line.prefix(40)): exit \(r.code)")
      if r.code == 65 { #expect(r.stderr.contains("\(file):2:"), "\(r.stderr)") }
    }
  }
}
