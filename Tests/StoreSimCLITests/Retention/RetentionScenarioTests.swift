import Foundation
import Testing

@testable import StoreSimCLI

/// The scenario lines of Retention Messaging: `respond` and `expect retention`.
@Suite struct RetentionScenarioTests {
  static func run(_ text: String) throws -> CLIHarness.Result {
    let cli = try CLIHarness()
    try text.write(toFile: cli.folder + "/s.storesim", atomically: true, encoding: .utf8)
    return cli.run("run s.storesim")
  }

  static let start = "init Premium.storekit --start 2026-01-01T00:00:00Z\nbuy com.example.premium.monthly\n"

  @Test(arguments: [
    ("respond", "'respond' is missing its BODY"),
    ("respond '{}' --delay soon", "--delay must be a duration"),
    ("respond '{}' --status 42", "--status must be an HTTP status"),
    ("respond '{}' --loud yes", "unknown option '--loud'"),
    ("respond '{}' extra", "unexpected word 'extra'"),
    ("expect retention outcom ok", "unknown retention field 'outcom'"),
    ("expect retention requests many", "expect retention requests takes a count"),
    ("expect retention outcome", "'expect retention' is missing VALUE"),
  ])
  func badScenarioLinesAreReportedBeforeAnythingRuns(line: String, message: String) throws {
    let r = try Self.run(Self.start + line + "\n")
    #expect(r.code == 65, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("s.storesim:3: error: ") && r.stderr.contains(message), "\(r.stderr)")
  }

  @Test func aFailedRetentionExpectationSaysWhatWasFound() throws {
    let r = try Self.run(Self.start + "retention com.example.premium.monthly\nexpect retention outcome ok\n")
    #expect(r.code == 1)
    #expect(r.stderr.contains("s.storesim:4: expected retention outcome ok, got no realtime URL"), "\(r.stderr)")
    let none = try Self.run(Self.start + "expect retention shown message\n")
    #expect(none.stderr.contains("expected retention shown message, got no retention request"), "\(none.stderr)")
  }

  @Test func respondNeedsASession() throws {
    let r = try Self.run("respond '{}'\n")
    #expect(r.code == 1)
    #expect(r.stderr.contains("no session yet"), "\(r.stderr)")
  }

  @Test func respondAnswersWithItsStatusAndIsTheRealtimeURL() throws {
    let r = try Self.run(
      Self.start + """
        respond '{"message":{"messageIdentifier":"6f1c2b9e-0d4a-4c1e-9b1f-3a2d5e7c8b01"}}' --status 503
        retention com.example.premium.monthly
        expect retention outcome "invalid: HTTP 503, not 200"
        expect retention fallback none
        expect retention requests 1

        """)
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
  }
}
