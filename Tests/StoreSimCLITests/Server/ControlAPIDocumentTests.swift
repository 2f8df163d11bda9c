import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer
@testable import StoreSimSession
@testable import StoreSimSync

/// The control API's OpenAPI document (checked in, generated from the table) and the control
/// API under load: 8 clients and the command line on one session lose nothing.
@Suite struct ControlAPIDocumentTests {
  static let documentPath = "docs/control-api.openapi.json"

  /// Issue 46, control-api-openapi-checked-in: docs/control-api.openapi.json is the document serve
  /// answers (`RECORD_GOLDEN=1` rewrites it).
  @Test func theOpenAPIDocumentIsCheckedIn() throws {
    let document = ControlOpenAPI.document(CommandTable.standard).rendered(pretty: true) + "\n"
    let url = CLIHarness.projectRoot.appendingPathComponent(Self.documentPath)
    if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] != nil {
      try document.write(to: url, atomically: true, encoding: .utf8)
    }
    let checkedIn = try String(contentsOf: url, encoding: .utf8)
    #expect(
      checkedIn == document,
      "\(Self.documentPath) is stale: RECORD_GOLDEN=1 swift test --filter ControlAPIDocumentTests")
    let cli = try CLIHarness()
    let control = try ControlAPITests.control(cli)
    let served = control.answer(ControlAPITests.request("GET", "/storesim/v1/openapi.json"))
    #expect(served.status == 200 && served.body == document)
  }

  /// Issue 46, control-api-response-schemas-are-docs-schema: the document's components are
  /// docs/schema's schemas (`Scripts/generate-control-schemas.py` writes them into the binary).
  @Test func theResponseSchemasAreDocsSchema() throws {
    let folder = CLIHarness.projectRoot.appendingPathComponent("docs/schema").path
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".schema.json") }
    #expect(Set(files.map { String($0.dropLast(".schema.json".count)) }) == Set(ResponseSchemas.all.map(\.name)))
    for (name, json) in ResponseSchemas.all {
      let file = try JSONParser.parse(
        Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).schema.json"))))
      let embedded = try JSONParser.parse(Array(json.utf8))
      #expect(
        Self.component(name, JSONOutput(node: file)) == JSONOutput(node: embedded),
        "\(name): run python3 Scripts/generate-control-schemas.py")
    }
  }

  /// docs/schema's form of a component: `$schema` and `$id` dropped, references into the
  /// document's components.
  static func component(_ name: String, _ value: JSONOutput) -> JSONOutput {
    switch value {
    case .object(let fields):
      var out: [String: JSONOutput] = [:]
      for (key, item) in fields where key != "$schema" && key != "$id" {
        if key == "$ref", case .string(let ref) = item {
          let parts = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
          let base = parts[0].isEmpty ? name : String(parts[0].dropLast(".schema.json".count))
          out[key] = .string("#/components/schemas/" + base + (parts.count > 1 ? String(parts[1]) : ""))
        } else {
          out[key] = component(name, item)
        }
      }
      return .object(out)
    case .array(let items): return .array(items.map { component(name, $0) })
    default: return value
    }
  }

  /// Issue 46, control-api-nothing-lost: 8 clients buying on one session over kept-alive
  /// connections while the command line buys on the same file: every acknowledged purchase is
  /// in the session.
  @Test func eightClientsAndTheCommandLineLoseNothing() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let control = try ControlAPITests.control(cli)
    let server = try RunningHTTPServer { request in control.answer(request) }
    defer { server.stop() }
    let port = server.server.port
    let acknowledged = Mutex(0)
    let rounds = 12
    let body = #"{"arguments": ["consumable.fuel.octane87"]}"#
    DispatchQueue.concurrentPerform(iterations: 9) { client in
      if client == 8 {
        for _ in 0..<rounds where cli.run("buy consumable.fuel.octane87").code == 0 {
          acknowledged.withLock { $0 += 1 }
        }
        return
      }
      guard let http = try? HTTPTestClient(port: port) else { return }
      for _ in 0..<rounds {
        http.send(
          "POST /storesim/v1/sessions/default/buy HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        if http.response()?.status == 200 { acknowledged.withLock { $0 += 1 } }
      }
    }
    let list = cli.run("transactions --json")
    let count = (try? JSONParser.parse(Array(list.stdout.utf8)))?.value
    guard case .array(let items)? = count else { throw CLIError.failed("no transactions: \(list.stderr)") }
    #expect(acknowledged.current == 9 * rounds)
    #expect(items.count == acknowledged.current, "acknowledged purchases lost")
  }
}
