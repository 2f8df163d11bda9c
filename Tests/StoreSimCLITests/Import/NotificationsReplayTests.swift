import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTPTestSupport

/// `notifications replay [FILE] --to URL` and the originals `import` keeps (issue 49, item 3):
/// the bodies posted are the input's bytes, in order.
@Suite struct NotificationsReplayTests {
  typealias T = ImportCommandTests

  /// "Apple's" webhook log: a Sandbox subscriber's notifications, one body a line.
  static func webhookLog(_ cli: CLIHarness) -> [String] {
    T.subscriber(cli)
    let r = cli.run("notifications --signed --session a.json")
    #expect(r.code == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count >= 3)
    return lines
  }

  static func receiver() throws -> TestHTTPServer { try TestHTTPServer(.ipv4, [.respond(status: 200)]) }

  /// Rule replay posts the webhook log's bodies verbatim (storesim's own, docs/import.md): each
  /// line's bytes as they are (spacing, key order, a `\r\n` end left off), in the file's order.
  @Test func replayPostsTheWebhookLogVerbatim() throws {
    let cli = try CLIHarness()
    var lines = Self.webhookLog(cli)
    // As another receiver may have logged them: spaces, a second key, a CRLF end.
    lines[0] = lines[0].replacingOccurrences(of: #"{"signedPayload":"#, with: #"{ "signedPayload" :  "#)
    lines[1] = String(lines[1].dropLast()) + #", "receivedAt": "2026-03-01T00:00:00Z"}"#
    try T.write(cli, "webhook.log", lines[0] + "\r\n\n" + lines.dropFirst().joined(separator: "\n") + "\n")
    let server = try Self.receiver()
    defer { server.stop() }
    let r = cli.run(["notifications", "replay", "webhook.log", "--to", server.base + "/hook"])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("#0 line 1 -> \(server.base)/hook: HTTP 200\n"))
    #expect(r.stdout.hasSuffix("replayed \(lines.count), failed 0\n"))
    #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == lines)
    #expect(server.requests.allSatisfy { $0.method == "POST" && $0.target == "/hook" })
  }

  /// Rule replay posts Get Notification History's payloads as Apple posted them: each
  /// `signedPayload` in `{"signedPayload":"..."}`, in the response's order.
  @Test func replayPostsNotificationHistoryAsApplePostedIt() throws {
    let cli = try CLIHarness()
    for line in [
      "init Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox",
      "settings deliver-url http://127.0.0.1:9/", "buy \(T.premium)", "advance 1w", "cancel \(T.premium)",
    ] {
      #expect(cli.run(line + " --session a.json").code == 0, "\(line)")
    }
    let body = #"{"startDate": 1767225600000, "endDate": 1767916800000}"#
    let r = cli.run(["api", "POST", "/inApps/v1/notifications/history", "--data", body, "--session", "a.json"])
    let answer = String(r.stdout.drop { $0 != "\n" }.dropFirst())
    try T.write(cli, "history.json", answer)
    let node = try JSONParser.parse(Array(answer.utf8))
    guard case .array(let entries)? = node["notificationHistory"]?.value else { throw CLIError.failed("no history") }
    let expected = entries.compactMap { e -> String? in
      guard case .string(let jws)? = e["signedPayload"]?.value else { return nil }
      return #"{"signedPayload":"\#(jws)"}"#
    }
    #expect(expected.count >= 2)
    let server = try Self.receiver()
    defer { server.stop() }
    let replay = cli.run(["notifications", "replay", "history.json", "--to", server.base + "/hook", "--json"])
    #expect(replay.code == 0, "\(replay.stderr)")
    #expect(replay.stdout.contains(#""item": "notificationHistory[0]""#))
    #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == expected)
  }

  /// Rule import keeps each notification's original: without FILE, replay posts the bodies the
  /// imported webhook log held, and the notifications answer with Apple's notificationUUIDs.
  @Test func importKeepsEachNotificationsOriginal() throws {
    let cli = try CLIHarness()
    let lines = Self.webhookLog(cli)
    try T.write(cli, "webhook.log", lines.joined(separator: "\n") + "\n")
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let imported = cli.run("import webhook.log --session b.json")
    #expect(imported.code == 0, "\(imported.stderr)")
    let server = try Self.receiver()
    defer { server.stop() }
    let r = cli.run(["notifications", "replay", "--to", server.base + "/hook", "--session", "b.json"])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("#0 notification 0 -> "))
    #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == lines)
    func uuids(_ session: String) -> [String] {
      let json = cli.run("notifications --json --session \(session)").stdout
      guard let node = try? JSONParser.parse(Array(json.utf8)), case .array(let list) = node.value else { return [] }
      return list.compactMap { if case .string(let u)? = $0["notificationUUID"]?.value { u } else { nil } }
    }
    #expect(uuids("b.json") == uuids("a.json") && uuids("a.json").count == lines.count)
    // --redact keeps no original (it would hold the real ids): nothing to replay.
    #expect(cli.run("init Premium.storekit --environment Sandbox --session c.json").code == 0)
    #expect(cli.run("import --redact webhook.log --session c.json").code == 0)
    let none = cli.run(["notifications", "replay", "--to", server.base + "/hook", "--session", "c.json"])
    #expect(none.code == 64 && none.stderr.contains("no notification of this session keeps an original"))
    #expect(server.requests.count == lines.count)
  }

  /// Bad input: a missing or bad file, a bad URL, no --to, --to without replay; one line
  /// each, nothing posted.
  @Test func replayRefusesBadInputWithOneLineAndPostsNothing() throws {
    let cli = try CLIHarness()
    let server = try Self.receiver()
    defer { server.stop() }
    let url = server.base + "/hook"
    try T.write(cli, "bad.log", #"{"signedPayload":"a.b.c"}"# + "\nnot json\n")
    try T.write(cli, "other.json", #"{"signedTransactions":[]}"#)
    let cases: [([String], Int32, String)] = [
      (["notifications", "replay", "missing.log", "--to", url], 66, "cannot read missing.log: no such file"),
      (["notifications", "replay", "bad.log", "--to", url], 65, "bad.log: line 2: is not JSON"),
      (["notifications", "replay", "other.json", "--to", url], 65, "other.json: is not a notification body"),
      (["notifications", "replay", "bad.log", "--to", "ftp://x"], 64, "is not a usable http or https URL"),
      (["notifications", "replay", "bad.log"], 64, "replay needs --to <url>"),
      (["notifications", "--to", url], 64, "--to goes with 'notifications replay'"),
    ]
    for (words, code, message) in cases {
      let r = cli.run(words)
      #expect(r.code == code, "\(words): \(r.stderr)")
      #expect(r.stderr.hasPrefix("error: ") && r.stderr.contains(message), "\(words): \(r.stderr)")
    }
    #expect(server.requests.isEmpty)
  }

  /// The control API refuses replay (it would post to any URL on the caller's behalf, as
  /// `populate --deliver-url` is refused), and nothing is posted.
  @Test func replayIsRefusedByTheControlAPI() throws {
    let cli = try CLIHarness()
    let server = try Self.receiver()
    defer { server.stop() }
    let control = try ControlAPITests.control(cli)
    let id = try ControlAPITests.make(control)
    let body = #"{"arguments": ["replay"], "to": "\#(server.base)/hook"}"#
    let response = control.answer(ControlAPITests.request("POST", "/storesim/v1/sessions/\(id)/notifications", body))
    #expect(response.status == 400, "\(response.body)")
    #expect(response.body.contains("notifications replay is for the command line"))
    #expect(server.requests.isEmpty)
  }
}
