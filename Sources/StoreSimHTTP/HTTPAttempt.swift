import Foundation

/// One POST: the HTTP status when the server answered, and why it failed otherwise (one short
/// line). A 3xx carries both its status and `redirect (HTTP 3xx ...) not followed`.
package struct HTTPAttempt: Sendable, Equatable {
  package var status: Int?
  package var error: String?
  /// Response body bytes read (never more than the body limit).
  package var bodyBytesRead: Int = 0
  /// The response body read (at most the body limit; de-chunked), for callers that read the
  /// answer (a Retention Messaging realtime request).
  package var body: [UInt8] = []
  /// False when the deadline passed or the connection failed after the status line: `body`
  /// is then only part of the answer.
  package var complete = true
  /// The answer's `Content-Type` (its charset decides whether the App Store can read it).
  package var contentType: String?

  package init(status: Int?, error: String?, bodyBytesRead: Int = 0) {
    self.status = status
    self.error = error
    self.bodyBytesRead = bodyBytesRead
  }
}

/// Text helpers for one-line messages about HTTP exchanges.
package enum HTTPText {
  /// `text` with control characters escaped and cut to 200 characters, for one-line messages.
  package static func printable(_ text: String, limit: Int = 200) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      if out.count >= limit { return out + "..." }
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
        out += String(format: "\\u{%X}", scalar.value)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// "timed out after 10 s", "timed out after 0.25 s".
  package static func timedOut(_ timeout: TimeInterval) -> String {
    let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(format: "%g", timeout)
    return "timed out after \(seconds) s"
  }
}
