import Foundation
import StoreSim
import StoreSimHTTP

/// The Transaction Manager in the browser that `serve` answers beside its APIs (docs/page.md):
/// `/` (the session serve was started with, or the session list), `/sessions/` (the list),
/// `/sessions/{id}/` (one session of the control API), the page's script and style under
/// `/page/`, and what the script reads under `/sessions/{id}/`: `page.json`,
/// `notifications.json`, `stamp.json` and `timeline.svg`. The HTML, script and style are in the
/// binary and hold no data: the script fetches the data and shows every name as text. Every
/// answer carries a Content-Security-Policy without inline script or style, and the data and
/// every action (the control API's commands) pass the control API's Host and Origin checks.
struct PageRoutes: Sendable {
  let control: ControlAPI
  let data: PageData

  init(control: ControlAPI) {
    self.control = control
    self.data = PageData(sessions: control.sessions)
  }

  /// The policy every answer of the page carries: its own script and style only, no inline
  /// script or style, no framing by another page.
  static let contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  /// Whether a request is the page's: `/`, `/sessions...` or `/page/...`.
  static func isPage(_ path: String) -> Bool {
    path == "/" || path == "/sessions" || path.hasPrefix("/sessions/") || path.hasPrefix("/page/")
  }

  /// The answer to a page request (`isPage`).
  func answer(_ request: HTTPRequest) -> HTTPResponse {
    let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    guard request.method == "GET" || request.method == "HEAD" else {
      return Self.secured(
        ControlError(405, "methodNotAllowed", "\(request.method) is not allowed here; use GET").response)
    }
    // The page holds no data, but it is refused as the data are: a page at another host name
    // (DNS rebinding) or another origin gets nothing from this server.
    if let refusal = control.admit(request, serverAPI: true) { return Self.secured(refusal.response) }
    switch (parts.count, parts.first) {
    case (1, ""), (1, "sessions"), (2, "sessions"):
      return Self.document
    case (3, "sessions") where parts[2].isEmpty:
      return Self.document
    case (2, "page"):
      guard let asset = PageAssets.files[parts[1]] else { return Self.notFound }
      return Self.secured(HTTPResponse(status: 200, body: asset.body, contentType: asset.type))
    case (3, "sessions"):
      return Self.secured(read(session: parts[1], parts[2], request))
    default:
      return Self.notFound
    }
  }

  /// `page.json`, `notifications.json`, `stamp.json` or `timeline.svg` of a session, behind the
  /// control token when serve has one.
  private func read(session id: String, _ name: String, _ request: HTTPRequest) -> HTTPResponse {
    if let refusal = control.admit(request, serverAPI: false) { return refusal.response }
    do {
      switch name {
      case "page.json": return Self.json(try data.overview(id, query: request.query))
      case "notifications.json": return Self.json(try data.notifications(id, query: request.query))
      case "stamp.json": return Self.json(try data.stamp(id))
      case "timeline.svg":
        return HTTPResponse(status: 200, body: try data.timeline(id), contentType: "image/svg+xml")
      default: return Self.notFound
      }
    } catch let error as ControlError {
      return error.response
    } catch {
      return ControlError(409, "refused", CLIError(reporting: error).message).response
    }
  }

  private static func json(_ value: JSONOutput) -> HTTPResponse {
    HTTPResponse(status: 200, body: value.rendered(pretty: false) + "\n")
  }

  private static let document = secured(
    HTTPResponse(status: 200, body: PageAssets.html, contentType: "text/html; charset=utf-8"))

  private static let notFound = secured(
    ControlError.notFound("no such page (the page is at /, /sessions/ and /sessions/{session}/)").response)

  /// The response with the page's security headers: the policy, no sniffing of types, no
  /// caching, no referrer.
  static func secured(_ response: HTTPResponse) -> HTTPResponse {
    var secured = response
    secured.headers += [
      .init("Content-Security-Policy", contentSecurityPolicy), .init("X-Content-Type-Options", "nosniff"),
      .init("Cache-Control", "no-store"), .init("Referrer-Policy", "no-referrer"),
    ]
    return secured
  }
}
