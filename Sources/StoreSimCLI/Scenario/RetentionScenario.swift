import Foundation
import StoreSim
import StoreSimHTTP

/// What `expect retention FIELD VALUE` checks of the customer's last realtime request.
enum RetentionField: String, CaseIterable {
  case outcome, shown, fallback, action, message, product, offer, requests

  var help: String {
    switch self {
    case .outcome: return "outcome ok|timeout|failed|invalid|no realtime URL (the text before ':' is enough)"
    case .shown: return "shown message|alternateProduct|promotionalOffer|none"
    case .fallback: return "fallback default|none (none also when the answer was used)"
    case .action: return "action accepted|declined|none"
    case .message: return "message UUID (the message shown)"
    case .product: return "product PRODUCT (the alternate product)"
    case .offer: return "offer OFFER-ID (the promotional offer)"
    case .requests: return "requests N (how many the customer made)"
    }
  }

  /// The field of a call (nil: absent, written `none`).
  func value(_ call: RetentionCall) -> String? {
    switch self {
    case .outcome: return call.outcome
    case .shown: return call.shown
    case .fallback: return call.fallback
    case .action: return call.action
    case .message: return call.messageIdentifier
    case .product: return call.alternateProductID
    case .offer: return call.offerIdentifier
    case .requests: return nil
    }
  }

  /// Whether `written` names `got`: equal (case-insensitive for identifiers), `none` for
  /// absent, and for the outcome its text before ':' (`invalid` for `invalid: 2 keys ...`).
  func matches(_ written: String, _ got: String?) -> Bool {
    guard let got else { return written == "none" }
    if got.lowercased() == written.lowercased() { return true }
    return self == .outcome && got.hasPrefix(written + ":")
  }
}

/// `respond BODY [--delay DURATION] [--status N] [--notifications]`, a scenario and shell line:
/// a developer server built into the run. It listens on 127.0.0.1 (a free port), answers every
/// request with BODY (JSON, quoted) and status N (200) after DURATION (none), and becomes the
/// session's realtime URL, as PUT /inApps/v1/messaging/realtime/url would make it, or with
/// `--notifications` its notification URL (`settings deliver-url`). A later `respond` of the
/// same kind replaces it; it stops when the scenario ends.
struct RespondLine: Equatable {
  var body: String
  var delay: TimeInterval = 0
  var status = 200
  var notifications = false

  static let form = "respond BODY [--delay DURATION] [--status N] [--notifications]"

  static func parse(_ words: [String]) throws(ScenarioProblem) -> RespondLine {
    var args = Array(words.dropFirst())
    var line = RespondLine(body: "")
    if let i = args.firstIndex(of: "--notifications") {
      line.notifications = true
      args.remove(at: i)
    }
    while let i = args.firstIndex(where: { $0.hasPrefix("--") }) {
      guard i + 1 < args.count else { throw ScenarioProblem("\(args[i]) needs a value; write '\(form)'") }
      let value = args[i + 1]
      switch args[i] {
      case "--delay":
        do {
          line.delay = try RetentionCommand.timeout(value, ParseContext(command: "respond"))
        } catch {
          throw ScenarioProblem("--delay must be a duration like 900ms or 2s, not '\(value)'")
        }
      case "--status":
        guard let n = Int(value), (100...599).contains(n) else {
          throw ScenarioProblem("--status must be an HTTP status from 100 to 599, not '\(value)'")
        }
        line.status = n
      default: throw ScenarioProblem("unknown option '\(args[i])'; write '\(form)'")
      }
      args.removeSubrange(i...(i + 1))
    }
    guard args.count == 1 else {
      throw ScenarioProblem(
        args.isEmpty
          ? "'respond' is missing its BODY; write '\(form)'" : "unexpected word '\(args[1])'; write '\(form)'")
    }
    line.body = args[0]
    return line
  }

  /// Starts the responder and points the session's realtime URL at it.
  func start(in memory: MemorySession) throws -> String {
    guard memory.store != nil else {
      throw ScenarioProblem("no session yet; start the scenario with 'init CONFIG.storekit'")
    }
    let body = self.body
    let delay = self.delay
    let status = self.status
    let server = try HTTPServer(host: "127.0.0.1", port: 0, log: nil) { _ in
      if delay > 0 { Thread.sleep(forTimeInterval: delay) }
      return HTTPResponse(status: status, body: body)
    }
    Thread.detachNewThread { server.run() }
    if notifications {
      memory.receiver?.stop()
      memory.receiver = server
      let url = server.baseURL + "/notifications"
      memory.store?.setDeliveryURL(url)
      return url
    }
    memory.responder?.stop()
    memory.responder = server
    let url = server.baseURL + "/retention"
    memory.store?.updateRetentionMessaging { $0.realtimeURL = url }
    return url
  }
}
