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

/// `storesim serve`.
struct ServeCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "serve", group: "Server",
    abstract: "Serve the session as the App Store Server API on loopback",
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
      MiB of body, 30 s idle, 10 s per request, 64 connections at once. 'storesim api' answers
      the same requests without a port.
      """,
    example: "storesim serve --port 0 --session demo.json")

  @Arguments(0...0, "")
  var arguments: [String]
  @Option("<n>", help: "the port (default 8080; 0 picks a free one)", parse: ServeCommand.port)
  var port: Int?
  @Option("<address>", help: "the address to listen on (default 127.0.0.1)")
  var host: String?
  @Flag(help: "no log line per request on stderr")
  var quiet: Bool

  static func port(_ portText: String, _ context: ParseContext) throws -> Int {
    guard let port = Int(portText), (0...65535).contains(port) else {
      throw CLIError.usage("invalid port '\(portText)'; give a number from 0 to 65535", command: "serve")
    }
    return port
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    try runServe(inv, port: port ?? 8080, host: host ?? "127.0.0.1", quiet: quiet)
  }
}

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

func runServe(_ inv: Invocation, port: Int, host: String, quiet: Bool) throws -> ExitCode {
  let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
  guard FileManager.default.fileExists(atPath: location.file) else {
    throw CLIError.noInput("no session at \(location.shown); start one with 'storesim init CONFIG.storekit'")
  }
  let service = SessionService(inv, location: location)
  try service.check()
  let environment = inv.environment
  let log: (@Sendable (HTTPServer.LogEntry) -> Void)? =
    quiet ? nil : { @Sendable entry in environment.writeErr(logLine(entry)) }
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

extension SessionService {
  /// The service over a session, loading it as commands do (a changed configuration is
  /// reloaded, with a warning) and warning on the invocation's standard error.
  convenience init(_ inv: Invocation, location: SessionLocation) {
    let environment = inv.environment
    self.init(
      location: location, now: environment.now, load: { try SessionContext.load(inv, $0, partial: $1) },
      warning: { environment.writeErr(TerminalText.block("warning: \($0)") + "\n") })
  }
}
