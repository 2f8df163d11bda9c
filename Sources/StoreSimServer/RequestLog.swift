import Foundation
import StoreSimHTTP
import StoreSimSync

/// The logging layer `storesim serve` and `storesim api` share: one line per answered request,
/// `PEER "METHOD TARGET" STATUS BYTES MILLISECONDSms`, e.g.
/// `127.0.0.1:50412 "GET /inApps/v1/transactions/2000000000000001" 200 1183 0.4ms`.
/// `serve` hands it to the transport (`HTTPServer`'s `log`, whose peer is the client's address
/// and whose time runs from the request's first byte to its answer); `api` has no socket, so its
/// peer is `-` and its time runs from the request to its answer (session read included). A
/// request the transport refused before its head was read has `"-"` for its request line. The
/// request line is escaped by the front end (no control character reaches a terminal), and
/// the line is written where the front end says (standard error in both).
package struct RequestLog: Sendable {
  /// The peer of a request that came through no socket (`api`).
  package static let noPeer = "-"

  private let escape: @Sendable (String) -> String
  private let write: @Sendable (String) -> Void

  /// - Parameters:
  ///   - escape: makes the request line safe to print (the client chose its bytes).
  ///   - write: writes one line (with its newline).
  package init(escape: @escaping @Sendable (String) -> String, write: @escaping @Sendable (String) -> Void) {
    self.escape = escape
    self.write = write
  }

  /// The line of one answered request (with its newline).
  package func line(
    peer: String, method: String?, target: String?, status: Int, bytes: Int, milliseconds: Double
  ) -> String {
    let requestLine = method.map { "\"\($0) \(target ?? "")\"" } ?? "\"-\""
    return "\(peer) \(escape(requestLine)) \(status) \(bytes) \(String(format: "%.1f", milliseconds))ms\n"
  }

  /// Logs what the transport answered (`serve`: the `HTTPServer`'s `log`).
  package func record(_ entry: HTTPServer.LogEntry) {
    write(
      line(
        peer: entry.peer, method: entry.method, target: entry.target, status: entry.status, bytes: entry.bytes,
        milliseconds: entry.milliseconds))
  }

  /// Logs an answer given without a socket (`api`), timed from `started`
  /// (`WaitClock.system` when the request was made).
  package func record(_ request: HTTPRequest, _ response: APIResponse, started: UInt64) {
    let elapsed = Double(WaitClock.system.nanoseconds() &- started) / 1_000_000
    write(
      line(
        peer: Self.noPeer, method: request.method, target: request.target, status: response.status,
        bytes: response.body.utf8.count, milliseconds: max(0, elapsed)))
  }
}
