import Foundation
import Testing

@testable import StoreSimCLI
@testable import StoreSimTestSupport

/// Runs the CLI in-process in a fresh temporary folder holding the sample configurations.
final class CLIHarness: @unchecked Sendable {
  let folder: String
  /// The width help is folded to (a terminal's width in the live CLI).
  var columns = HelpText.width
  private let lock = NSLock()
  private var out = ""
  private var err = ""

  static let projectRoot = Fixtures.projectRoot

  init() throws {
    folder = NSTemporaryDirectory() + "storesim-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for name in ["AppleSample.storekit", "Premium.storekit"] {
      try FileManager.default.copyItem(
        atPath: Self.projectRoot.appendingPathComponent("Configurations/\(name)").path,
        toPath: folder + "/" + name)
    }
  }

  deinit { try? FileManager.default.removeItem(atPath: folder) }

  struct Result {
    var stdout: String
    var stderr: String
    var code: Int32
  }

  /// Runs one command line (split on spaces, quotes not needed in tests).
  @discardableResult
  func run(_ line: String) -> Result {
    run(line.split(separator: " ").map(String.init))
  }

  @discardableResult
  func run(_ argv: [String]) -> Result {
    lock.withLock {
      out = ""; err = ""
    }
    var env = CLIEnvironment(
      writeOut: { [self] s in lock.withLock { out += s } },
      writeErr: { [self] s in lock.withLock { err += s } },
      variables: [:], currentDirectory: folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600) }, isTerminal: false)
    env.columns = columns
    // A fixed signing key, so signed output is the same on every run.
    env.randomBytes = { count in [UInt8](repeating: 7, count: count) }
    let code = CLI.run(argv, environment: env)
    return lock.withLock { Result(stdout: out, stderr: err, code: code) }
  }

  /// A transcript of several commands: command line, stdout, stderr and exit code of each.
  func transcript(_ lines: [String]) -> String {
    var text = ""
    for line in lines {
      let r = run(line)
      text += "$ storesim \(line)\n\(r.stdout)"
      if !r.stderr.isEmpty { text += "[stderr]\n\(r.stderr)" }
      text += "[exit \(r.code)]\n\n"
    }
    return text
  }
}

/// Compares text with a golden file under Tests/StoreSimCLITests/Golden; RECORD_GOLDEN=1 (or a
/// missing file) writes it and fails, so a baseline is never accepted silently.
func assertGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
  let url = CLIHarness.projectRoot.appendingPathComponent("Tests/StoreSimCLITests/Golden/\(name)")
  let expected = try? String(contentsOf: url, encoding: .utf8)
  if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" || expected == nil {
    try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? actual.write(to: url, atomically: true, encoding: .utf8)
    Issue.record("recorded new golden \(name); review the diff and rerun", sourceLocation: sourceLocation)
    return
  }
  guard let expected, expected != actual else { return }
  let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
  var diff = ""
  for i in 0..<max(a.count, b.count) where (i < a.count ? a[i] : nil) != (i < b.count ? b[i] : nil) {
    if i < a.count { diff += "-\(a[i])\n" }
    if i < b.count { diff += "+\(b[i])\n" }
    if diff.count > 3000 { break }
  }
  Issue.record("golden \(name) differs:\n\(diff)", sourceLocation: sourceLocation)
}
