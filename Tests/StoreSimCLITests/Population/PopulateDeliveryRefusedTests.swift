import Foundation
import StoreSim
import Testing

@testable import StoreSimCLI
@testable import StoreSimHTTPTestSupport

/// `populate --deliver-url` is the command line's alone (issue 50): over the control API and
/// through `storesim mcp` it would have the server post to the network for whoever called it,
/// and hold that caller for minutes, so both refuse it before anything is made or posted.
@Suite struct PopulateDeliveryRefusedTests {
  static func arguments(_ url: String) -> String {
    #"{"customers": "3", "months": "1", "deliver-url": "\#(url)/hook", "rate": "10"}"#
  }

  /// Issue 50, populate-deliver-url-command-line-only (control API): a 400 `usage` naming why,
  /// the session unchanged and nothing posted.
  @Test func theControlAPIRefusesPopulatesDeliverURL() throws {
    let receiver = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { receiver.stop() }
    let cli = try CLIHarness()
    cli.run(PopulateTests.initLine)
    let file = cli.folder + "/.storesim/session.json"
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    let control = try ControlAPITests.control(cli)
    let refused = control.answer(
      ControlAPITests.request(
        "POST", "/storesim/v1/sessions/default/populate", Self.arguments(receiver.base)))
    let error = ControlAPITests.json(refused)?["error"]
    #expect(refused.status == 400 && error?["code"]?.value == .string("usage"), "\(refused.body)")
    guard case .string(let message)? = error?["message"]?.value else { throw CLIError.failed(refused.body) }
    #expect(message.contains("--deliver-url") && message.contains("network"), "\(message)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    #expect(receiver.requests.isEmpty)
  }

  /// Issue 50, populate-deliver-url-command-line-only (`storesim mcp`): a tool error naming why,
  /// the session unchanged and nothing posted.
  @Test func theMCPToolRefusesPopulatesDeliverURL() throws {
    let receiver = try TestHTTPServer(.ipv4, [.respond(status: 200)])
    defer { receiver.stop() }
    let f = try MCPServerTests.Fixture()
    let before = f.sessionBytes
    let result = try f.call("populate", Self.arguments(receiver.base))
    #expect(MCPServerTests.isError(result))
    let text = MCPServerTests.firstText(result) ?? ""
    #expect(text.contains("--deliver-url") && text.contains("network"), "\(text)")
    #expect(f.sessionBytes == before)
    #expect(receiver.requests.isEmpty)
  }
}
