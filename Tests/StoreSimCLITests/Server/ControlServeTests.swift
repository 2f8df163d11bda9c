import Foundation
import Testing

@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport

/// `storesim serve` wires the control API onto its port (issue 46, items 1 and 2): the built
/// binary, started with no session, answers `/storesim/v1/` beside Apple's API, makes a session,
/// runs a command on it, and answers its root with a 404 that says it has no session.
@Suite struct ControlServeTests {
  /// The `storesim` binary `swift build` put beside this test bundle.
  static let binary: String = {
    let folders =
      [Bundle.main.executableURL?.deletingLastPathComponent()].compactMap { $0 }
      + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
    return folders.map { $0.appendingPathComponent("storesim").path }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    } ?? CLIHarness.projectRoot.appendingPathComponent(".build/debug/storesim").path
  }()

  static func send(_ port: Int, _ method: String, _ path: String, _ body: String = "") throws -> (Int, String) {
    let client = try HTTPTestClient(port: port)
    client.send(
      "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    guard let answer = client.response() else { throw CLIError.failed("no answer to \(method) \(path)") }
    return (answer.status, answer.body)
  }

  /// Starts the built `storesim serve --port 0 --quiet` (and `extra`) in `folder`: the process
  /// and the URL it printed first.
  static func serve(_ extra: [String], in folder: String) throws -> (Process, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["serve"] + extra + ["--port", "0", "--quiet"]
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    var line = [UInt8]()
    while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
    return (process, String(decoding: line, as: UTF8.self))
  }

  @Test func serveWithNoSessionAnswersTheControlAPIOnItsPort() throws {
    let cli = try CLIHarness()
    let (process, url) = try Self.serve(["--no-session"], in: cli.folder)
    defer {
      // SIGKILL: a process started from the test runner may inherit a signal mask that holds
      // SIGTERM (serve's own stop on SIGTERM is Scripts/reliability.sh's).
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let port = try #require(Int(url.split(separator: ":").last ?? ""), "serve printed \(url)")
    let configuration = try ControlAPITests.configuration
    let (made, madeBody) = try Self.send(
      port, "POST", "/storesim/v1/sessions", #"{"configuration": \#(configuration), "session": "live"}"#)
    #expect(made == 201, "\(madeBody)")
    let (bought, boughtBody) = try Self.send(
      port, "POST", "/storesim/v1/sessions/live/buy", #"{"arguments": ["nonconsumable.car"]}"#)
    #expect(bought == 200 && boughtBody.contains(#""purchased""#), "\(boughtBody)")
    #expect(FileManager.default.fileExists(atPath: cli.folder + "/.storesim/sessions/live.json"))
    let (root, rootBody) = try Self.send(port, "GET", "/inApps/v1/transactions/2000000000000001")
    #expect(root == 404 && rootBody.contains("no session"), "\(rootBody)")
    let (document, _) = try Self.send(port, "GET", "/storesim/v1/openapi.json")
    #expect(document == 200)
  }
}
