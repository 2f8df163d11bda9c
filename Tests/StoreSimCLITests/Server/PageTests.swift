import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport

/// The Transaction Manager page of `serve` (issue 48, docs/page.md): its routes, its security
/// headers, its static HTML, a hostile name never sent as markup, the control API's guard on
/// its data and actions, and its windows over a large session. Answered as `serve` answers
/// them, without a socket (`PageRoutes.answer`); one test through the built binary's port.
@Suite struct PageTests {
  static let hostile = "<img src=x onerror=alert(1)>"

  static func page(_ cli: CLIHarness) throws -> (PageRoutes, ControlAPI) {
    let control = try ControlAPITests.control(cli)
    return (PageRoutes(control: control), control)
  }

  static func get(_ page: PageRoutes, _ path: String, headers: [String: String] = [:]) -> HTTPResponse {
    page.answer(ControlAPITests.request("GET", path, headers: headers))
  }

  static func header(_ response: HTTPResponse, _ name: String) -> String? {
    response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// The addresses the page answers: its documents, files and data.
  static let addresses = [
    "/", "/sessions", "/sessions/", "/sessions/default/", "/page/app.js", "/page/render.js", "/page/rows.js",
    "/page/actions.js", "/page/style.css", "/page/icon.svg", "/sessions/default/page.json",
    "/sessions/default/notifications.json", "/sessions/default/stamp.json", "/page/nothing.js",
    "/sessions/nobody/page.json", "/sessions/default/timeline.svg",
  ]

  /// Issue 48 item 6, page-content-security-policy: every answer of the page, found or not,
  /// carries `default-src 'self'` and allows no inline script or style.
  @Test func everyPageAnswerCarriesTheContentSecurityPolicy() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let (page, _) = try Self.page(cli)
    for path in Self.addresses {
      let response = Self.get(page, path)
      let policy = Self.header(response, "Content-Security-Policy") ?? ""
      #expect(policy.hasPrefix("default-src 'self'"), "\(path): \(policy)")
      #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(path)")
      #expect(Self.header(response, "X-Content-Type-Options") == "nosniff", "\(path)")
    }
    #expect(Self.get(page, "/").status == 200 && Self.get(page, "/sessions/default/").status == 200)
    #expect(Self.get(page, "/page/app.js").contentType.hasPrefix("text/javascript"))
    #expect(Self.get(page, "/page/nothing.js").status == 404)
    #expect(Self.get(page, "/sessions/default/timeline.svg").contentType == "image/svg+xml")
  }

  /// Issue 48 item 6, page-no-inline-script: the HTML loads its script and style from files
  /// only: no `<script>` without `src`, no `<style>`, no `style=` or `on...=` attribute, no
  /// `javascript:` address, and the script never writes markup (`innerHTML`).
  @Test func thePageHasNoInlineScriptOrStyle() throws {
    let html = PageAssets.html.lowercased()
    let scripts = html.components(separatedBy: "<script").dropFirst()
    #expect(!scripts.isEmpty)
    for script in scripts { #expect(script.prefix(while: { $0 != ">" }).contains("src=")) }
    #expect(!html.contains("<style") && !html.contains(" style=") && !html.contains("javascript:"))
    #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
    for (name, file) in PageAssets.files where name.hasSuffix(".js") {
      for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
        #expect(!file.body.contains(sink), "\(name) uses \(sink)")
      }
    }
  }

  /// Issue 48 item 6, page-names-are-text: a customer named as markup is never in an HTML
  /// answer or the SVG drawing as markup; it leaves raw only as a JSON string, in a JSON answer
  /// the browser may not sniff.
  @Test func aHostileNameIsNeverMarkupInWhatTheServerSends() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    #expect(cli.run(["--customer", Self.hostile, "buy", "consumable.fuel.octane87"]).code == 0)
    let (page, _) = try Self.page(cli)
    let escaped = Self.hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    var seen = false
    for path in Self.addresses + ["/sessions/\(escaped)/", "/sessions/default/page.json?customer=\(escaped)"] {
      let response = Self.get(page, path)
      if !response.contentType.hasPrefix("application/json") {
        #expect(!response.body.contains(Self.hostile), "\(path) sends the name as markup")
      } else if response.body.contains(Self.hostile) {
        seen = true
        #expect(Self.header(response, "X-Content-Type-Options") == "nosniff")
      }
    }
    #expect(seen, "the name is in the page's data, as a JSON string")
  }

  /// Issue 48 item 6, page-actions-same-origin: the page's data and the actions it posts pass
  /// the control API's checks: its own origin is answered, a page elsewhere (another Origin,
  /// another Host) is refused and nothing changes.
  @Test func aPageElsewhereCannotReadOrAct() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let (page, control) = try Self.page(cli)
    let own = ["origin": "http://127.0.0.1:8080"]
    let evil = ["origin": "http://evil.example"]
    #expect(Self.get(page, "/sessions/default/page.json", headers: own).status == 200)
    #expect(Self.get(page, "/sessions/default/page.json", headers: evil).status == 403)
    #expect(Self.get(page, "/", headers: ["host": "evil.example"]).status == 403)
    let buy = #"{"arguments": ["nonconsumable.car"]}"#
    let refused = control.answer(
      ControlAPITests.request("POST", "/storesim/v1/sessions/default/buy", buy, headers: evil))
    #expect(refused.status == 403)
    #expect(!cli.run("transactions").stdout.contains("nonconsumable.car"))
    let bought = control.answer(ControlAPITests.request("POST", "/storesim/v1/sessions/default/buy", buy, headers: own))
    #expect(bought.status == 200, "\(bought.body)")
    // With a control token, the page itself (no data) is answered, its data only with the token.
    let token = "0123456789abcdef0123"
    let guarded = PageRoutes(control: try ControlAPITests.control(cli, token: token))
    #expect(Self.get(guarded, "/").status == 200)
    #expect(Self.get(guarded, "/sessions/default/stamp.json").status == 401)
    #expect(
      Self.get(guarded, "/sessions/default/stamp.json", headers: ["authorization": "Bearer \(token)"]).status == 200)
  }

  /// Issue 48 item 5, page-windows: the page reads a window of each list (50 customers, 50
  /// transactions, 20 notifications), with the total, whatever the session's size.
  @Test func thePageReadsAWindowOfEachList() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    #expect(cli.run("populate --customers 120 --months 3 --seed 3").code == 0)
    let (page, _) = try Self.page(cli)
    let first = try #require(ControlAPITests.json(Self.get(page, "/sessions/default/page.json")))
    #expect(first["customers"]?["items"]?.elements?.count == 50)
    #expect(first["customers"]?["total"]?.intValue ?? 0 > 120)
    let later = try #require(ControlAPITests.json(Self.get(page, "/sessions/default/page.json?customers=100")))
    #expect(later["customers"]?["from"]?.intValue == 100)
    #expect((later["customers"]?["items"]?.elements?.count ?? 0) < 50)
    let notes = try #require(ControlAPITests.json(Self.get(page, "/sessions/default/notifications.json")))
    #expect(notes["notifications"]?["items"]?.elements?.count == 20)
  }

  /// Issue 48 item 3, page-live: the stamp the page polls changes when another process saves
  /// the session, and only then.
  @Test func theStampChangesWhenTheSessionChanges() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let (page, _) = try Self.page(cli)
    let before = Self.get(page, "/sessions/default/stamp.json").body
    #expect(Self.get(page, "/sessions/default/stamp.json").body == before)
    cli.run("buy nonconsumable.car")
    #expect(Self.get(page, "/sessions/default/stamp.json").body != before)
  }

  /// Issue 48 item 1, page-served: the built binary answers the page at `/` beside Apple's API,
  /// with its policy.
  @Test func serveAnswersThePageAtItsRoot() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    let (process, url) = try ControlServeTests.serve([], in: cli.folder)
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let port = try #require(Int(url.split(separator: ":").last ?? ""))
    let client = try HTTPTestClient(port: port)
    client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    let answer = try #require(client.response())
    #expect(answer.status == 200 && answer.body.contains("/page/app.js"))
    #expect(answer.headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true)
  }
}

extension JSONNode {
  /// The elements when the value is an array.
  fileprivate var elements: [JSONNode]? {
    if case .array(let items) = value { return items }
    return nil
  }

  /// The value when it is a whole number.
  fileprivate var intValue: Int? {
    if case .number(let text) = value { return Int(text) }
    return nil
  }
}
