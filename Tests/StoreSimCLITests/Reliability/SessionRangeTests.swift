import Foundation
import StoreSim
import Testing

@testable import StoreSimCLI

/// Issue 45, row 5: a crafted session (version 2, so no checksum stops it) holding a date, a
/// price or a count out of range is a corrupt session (65) for every command and a tool error
/// for the MCP server, which goes on answering; it never traps.
@Suite struct SessionRangeTests {
  /// The version 2 header: no checksums.
  static let header =
    #"{"codec":"compact-1","configurationDigest":"0","configurationPath":"p","format":"storesim-session","version":2}"#

  /// Each place a value is read from, with a value out of range: the text to find (after the
  /// marker) and what replaces it.
  static let crafted: [(what: String, marker: String, old: String, new: String)] = [
    ("the clock", #""now":"#, "1767225600000", "9223372036854775000"),
    ("a purchase date", #","customers":[["#, "1767225600000", "9223372036854775807"),
    ("an expiration date", #","customers":[["#, "1767830400000", "-9223372036854775807"),
    ("a quantity", #","customers":[["#, #",1,null,"PURCHASED""#, #",9223372036854775807,null,"PURCHASED""#),
    ("a price", #","customers":[["#, #""0","USD""#, #""1000000000000000000000","USD""#),
    ("a product's price", #""products":["#, #""price":99.99"#, #""price":1e20"#),
    ("the next transaction id", #""nextTransactionID":"#, "2000000000000002", "18446744073709551615"),
  ]

  /// A session with a subscription, written again as version 2 with one value replaced.
  static func craft(_ cli: CLIHarness, marker: String, old: String, new: String) throws {
    #expect(cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy com.example.premium.monthly").code == 0)
    let path = cli.folder + "/.storesim/session.json"
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    var state = String(lines[1])
    let from = try #require(state.range(of: marker), "no \(marker)")
    let found = try #require(state.range(of: old, range: from.upperBound..<state.endIndex), "no \(old)")
    state.replaceSubrange(found, with: new)
    try (header + "\n" + state + "\n").write(toFile: path, atomically: true, encoding: .utf8)
  }

  @Test(arguments: crafted.indices)
  func aValueOutOfRangeIsACorruptSessionForEveryCommand(_ index: Int) throws {
    let c = Self.crafted[index]
    let cli = try CLIHarness()
    try Self.craft(cli, marker: c.marker, old: c.old, new: c.new)
    for line in ["transactions", "buy com.example.coins.100", "advance 1d", "status", "timeline --svg"] {
      let r = cli.run(line)
      #expect(r.code == 65, "\(c.what): \(line): \(r.code) \(r.stderr)")
      #expect(r.stderr.contains("corrupt"), "\(c.what): \(line): \(r.stderr)")
    }
  }

  @Test func theMCPServerAnswersACorruptSessionAndGoesOn() throws {
    let fixture = try MCPServerTests.Fixture(initialized: false)
    #expect(fixture.cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z --session s.json").code == 0)
    let lines = try String(contentsOfFile: fixture.session, encoding: .utf8).split(separator: "\n")
    let state = String(lines[1]).replacingOccurrences(of: #""now":1767225600000"#, with: #""now":9223372036854775000"#)
    try (Self.header + "\n" + state + "\n").write(toFile: fixture.session, atomically: true, encoding: .utf8)
    for tool in ["transactions", "advance", "status"] {
      let arguments = tool == "advance" ? #"{"arguments":["1d"]}"# : "{}"
      let result = try fixture.call(tool, arguments)
      #expect(MCPServerTests.isError(result), "\(tool)")
      #expect(MCPServerTests.firstText(result)?.contains("corrupt") == true, "\(tool)")
    }
    #expect(try fixture.send(#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)?["result"] != nil, "still answering")
  }
}
