import Foundation
import Testing

@testable import StoreSimCLI
@testable import StoreSimSession

/// A damaged session file reaches the command line as exit 65 naming the file, and is left as it is.
@Suite struct CorruptSessionFileTests {
  /// The issue's report, end to end: `fXYZQ` for `false` and a comma removed.
  @Test(arguments: [2, 3])
  func theIssuesSessionIsRefusedWithExit65NamingTheFile(version: Int) throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy subscription.standard")
    cli.run("advance 2mo")
    let path = cli.folder + "/.storesim/session.json"
    if version == 2 {
      var document = try SessionFile.read(path, shownAs: "s")
      document.version = 2
      let header: [String: Any] = [
        "format": SessionDocument.formatName, "version": 2, "codec": StateCodec.name,
        "configurationPath": document.configurationPath, "configurationDigest": document.configurationDigest,
      ]
      var data = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
      data.append(0x0A)
      data.append(contentsOf: try StateCodec.encode(document.state))
      data.append(0x0A)
      try data.write(to: URL(fileURLWithPath: path))
      #expect(cli.run("entitlements").code == 0)
    }
    let original = try String(contentsOfFile: path, encoding: .utf8)
    let lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let state = lines[1]
    let comma = try #require(state.range(of: #"],["#))
    let damaged = [
      lines[0], state.replacingOccurrences(of: "false", with: "fXYZQ").replacingCharacters(in: comma, with: "]["), "",
    ].joined(separator: "\n")
    try damaged.write(toFile: path, atomically: true, encoding: .utf8)
    for command in ["entitlements", "transactions", "status", "buy nonconsumable.car"] {
      let r = cli.run(command)
      #expect(r.code == 65, "\(command): \(r.stdout)")
      #expect(r.stderr.hasPrefix("error: session file .storesim/session.json is corrupt"), "\(r.stderr)")
      #expect(r.stdout.isEmpty)
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == damaged)
  }
}
