import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The session behind the server: read under its lock for every request, kept in memory while
/// the file is unchanged (`SessionFileClient`), saved under the lock when a request changes it.
final class SessionService: @unchecked Sendable {
  private let lock = NSLock()
  private var client: SessionFileClient
  private let inv: Invocation
  private let location: SessionLocation
  private let now: @Sendable () -> Date
  private let cache = AnswerCache()

  init(_ inv: Invocation, location: SessionLocation) {
    self.inv = inv
    self.location = location
    client = SessionFileClient(location: location)
    now = inv.environment.now
  }

  /// Loads the session once, so a missing or damaged file is reported before listening.
  func check() throws {
    try lock.withLock { _ = try client.withLock(inv, forWriting: false, needsNotifications: false) { $0 } }
  }

  private let tokenLock = NSLock()
  /// The last token accepted, for its bundle id, and until when (its exp).
  private var accepted: (header: String, bundleID: String, until: Double)?

  /// The bearer-token check; a token accepted once is accepted again until its exp without
  /// decoding it again (clients send the same token for many requests).
  func authenticate(_ header: String?, bundleID: String) -> String? {
    let date = now()
    if let header, let a = tokenLock.withLock({ accepted }), a.header == header, a.bundleID == bundleID,
      date.timeIntervalSince1970 < a.until
    {
      return nil
    }
    if let failure = Authentication.check(header, bundleID: bundleID, now: date) { return failure }
    if let header, let exp = Authentication.expiry(header) {
      tokenLock.withLock { accepted = (header, bundleID, exp) }
    }
    return nil
  }

  private static func unreadable(_ reason: String) -> (status: Int, body: String) {
    let response = APIResponse.error(
      APIError(status: 500, code: 5_000_000, message: "The session could not be read: \(reason)"))
    return (response.status, response.body)
  }

  func answer(_ request: HTTPRequest) -> (status: Int, body: String) {
    do {
      if ServerAPI.isMutating(request) && VerifyReceipt.endpoint(request) == nil {
        var response = APIResponse(status: 500, body: "")
        var planned: [PlannedDelivery] = []
        try lock.withLock {
          _ = try client.withLock(inv, forWriting: true) { store in
            response = ServerAPI.handle(request, store: store, now: now())
            guard let changed = response.changed else { return store }
            planned = SessionContext.plannedDeliveries(inv, changed, since: store.notifications.count)
            return changed
          }
        }
        // Notifications the request caused go to the delivery URL with no lock held; their
        // attempts are recorded before the answer, so the next request sees them.
        if !planned.isEmpty {
          for a in try SessionContext.deliver(inv, location, planned) where !a.succeeded {
            inv.warning(
              "notification #\(a.index) was not delivered to \(a.url) (\(a.outcome)); kept for 'notifications deliver --retry'"
            )
          }
        }
        return (response.status, response.body)
      }
      // Reading: the store is a value, answered outside the lock (other requests go on).
      let needs = ServerAPI.needsNotifications(request)
      let (store, generation) = try lock.withLock {
        if let fast = client.storeIfUnchanged(needsNotifications: needs) { return fast }
        return (try client.withLock(inv, forWriting: false, needsNotifications: needs) { $0 }, client.generation)
      }
      if let endpoint = VerifyReceipt.endpoint(request) {
        let secret = inv.arguments.value("shared-secret")
        let response = VerifyReceipt.answer(request, store: store, endpoint: endpoint, sharedSecret: secret)
        return (response.status, response.body)
      }
      if let failure = authenticate(request.headers["authorization"], bundleID: store.state.bundleID) {
        return (401, ServerAPI.unauthenticated(failure).body)
      }
      // A reading answer depends only on the request and the store: the same request on the
      // same generation of the session gets the same bytes, computed once.
      let key = request.method + " " + request.target
      if let hit = cache.answer(key, generation: generation) { return hit }
      let response = ServerAPI.handle(request, store: store, now: now(), trusted: true)
      cache.keep(key, generation: generation, (response.status, response.body))
      return (response.status, response.body)
    } catch let error as CLIError {
      return Self.unreadable(error.message)
    } catch {
      return Self.unreadable("\(error)")
    }
  }
}

/// Reading answers of one generation of the session, by method and target (at most 4,096).
final class AnswerCache: @unchecked Sendable {
  private let lock = NSLock()
  private var generation = -1
  private var answers: [String: (status: Int, body: String)] = [:]

  func answer(_ key: String, generation: Int) -> (status: Int, body: String)? {
    lock.withLock { self.generation == generation ? answers[key] : nil }
  }

  func keep(_ key: String, generation: Int, _ answer: (status: Int, body: String)) {
    lock.withLock {
      if self.generation != generation {
        guard generation > self.generation else { return }
        self.generation = generation
        answers = [:]
      }
      if answers.count >= 4096 { answers = [:] }
      answers[key] = answer
    }
  }
}

/// SIGINT and SIGTERM stop the server: the handler writes to the server's wake pipe.
enum ServeSignals {
  nonisolated(unsafe) static var wakeFD: Int32 = -1

  static func install(_ server: HTTPServer) {
    wakeFD = server.wakeWrite
    signal(SIGINT, serveSignalHandler)
    signal(SIGTERM, serveSignalHandler)
  }

  static func restore() {
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}

/// Async-signal-safe: one write to the server's wake pipe.
private func serveSignalHandler(_ code: Int32) {
  var byte: UInt8 = 1
  _ = write(ServeSignals.wakeFD, &byte, 1)
}

let serveCommand = CommandSpec(
  name: "serve", group: "Server",
  abstract: "Serve the session as the App Store Server API on loopback",
  options: [
    OptionSpec(name: "port", value: "<n>", help: "the port (default 8080; 0 picks a free one)"),
    OptionSpec(name: "host", value: "<address>", help: "the address to listen on (default 127.0.0.1)"),
    OptionSpec(name: "quiet", value: nil, help: "no log line per request on stderr"),
    OptionSpec(
      name: "shared-secret", value: "<secret>", help: "the app's shared secret verifyReceipt requires as 'password'"),
  ],
  discussion: """
    Prints the base URL (http://127.0.0.1:PORT) on the first line of standard output and answers
    Apple's App Store Server API paths with Apple's response shapes and error codes, until
    SIGINT or SIGTERM: transactions/{id}, history/{id} (v1 and v2, every query parameter, pages
    of 20), subscriptions/{id} (status filters), lookup/{orderId}, v2 refund/lookup/{id},
    notifications/history, notifications/test (delivered to 'settings deliver-url') and
    notifications/test/{token}, subscriptions/extend/{id}, subscriptions/extend/mass and its
    status, v1 and v2 transactions/consumption/{id}, transactions/{id}/appAccountToken and
    transactions/appTransactions/{id}. The session file stays the database: every request
    checks it, answers from memory while it is unchanged and re-reads it under its lock when
    it changed, so 'storesim buy' in another terminal shows in the next answer; requests that
    change it take the lock and save it.
    Every request needs 'Authorization: Bearer JWT' shaped as Apple requires: header alg ES256
    with a kid; claims iss, aud appstoreconnect-v1, bid equal to the session's bundle id, exp in
    the future and at most an hour after iat (or from now when there is no iat, as Apple's
    libraries send none). A missing, expired or mismatched token answers 401. The signature is
    not checked: that needs the team's public key, which only the App Store has (the same
    reason storesim's own JWS are HS256). HTTP/1.1 with keep-alive; 16 KiB of header fields, 1
    MiB of body, 30 s idle, 10 s per request; 4,096 connections at once (more wait to be
    accepted until one closes), read by one event loop and answered by 16 worker threads.
    'storesim api' answers the same requests without a port.
    POST /verifyReceipt (production) and POST /sandbox/verifyReceipt (sandbox) answer Apple's
    legacy receipt validation without a bearer token: the body {"receipt-data", "password",
    "exclude-old-transactions"}, the answer 'storesim receipt --json' prints, statuses 21000,
    21002, 21003, 21004 (with --shared-secret), 21007, 21008 and 21010. receipt-data is the
    app receipt: base64 of the JSON of the receipt object ('latest_receipt' is one).
    """,
  example: "storesim serve --port 0 --session demo.json",
  run: { inv in try runServe(inv) })

/// One line of `serve`'s log: peer, request line (escaped), status, bytes and milliseconds.
func logLine(_ entry: HTTPServer.LogEntry) -> String {
  let line = entry.method.map { "\"\($0) \(entry.target ?? "")\"" } ?? "\"-\""
  return
    "\(entry.peer) \(TerminalText.field(line)) \(entry.status) \(entry.bytes) \(String(format: "%.1f", entry.milliseconds))ms\n"
}

/// What the transport answers when it refuses a request itself, in the App Store's error shape.
let appStoreRefusal: HTTPServer.RefusalBody = { status, message in
  APIResponse.error(APIError(status: status, code: status * 10_000, message: message)).body
}

func runServe(_ inv: Invocation) throws -> ExitCode {
  _ = try inv.positionals(0...0, "")
  let portText = inv.arguments.value("port") ?? "8080"
  guard let port = Int(portText), (0...65535).contains(port) else {
    throw CLIError.usage("invalid port '\(portText)'; give a number from 0 to 65535", command: "serve")
  }
  let host = inv.arguments.value("host") ?? "127.0.0.1"
  let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
  guard FileManager.default.fileExists(atPath: location.file) else {
    throw CLIError.noInput("no session at \(location.shown); start one with 'storesim init CONFIG.storekit'")
  }
  let service = SessionService(inv, location: location)
  try service.check()
  let environment = inv.environment
  let log: (@Sendable (HTTPServer.LogEntry) -> Void)? =
    inv.arguments.has("quiet") ? nil : { @Sendable entry in environment.writeErr(logLine(entry)) }
  let server: HTTPServer
  do {
    server = try HTTPServer(host: host, port: port, log: log, refusalBody: appStoreRefusal) { service.answer($0) }
  } catch let error as HTTPServer.StartError {
    if case .address = error { throw CLIError.usage(error.description, command: "serve") }
    throw CLIError.failed(error.description)
  }
  ServeSignals.install(server)
  defer { ServeSignals.restore() }
  inv.out(server.baseURL)
  inv.environment.flushOut()
  inv.err("serving \(location.shown) at \(server.baseURL); Ctrl-C stops")
  server.run()
  inv.err("stopped")
  return .success
}
