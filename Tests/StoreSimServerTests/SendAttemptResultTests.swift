import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport
@testable import StoreSimServer

/// Rule every-send-attempt-result-is-reachable: each `sendAttemptResult` Apple lists comes from
/// a receiver on 127.0.0.1 that behaves so (TLS_ISSUE from a TLS URL whose server speaks none).
@Suite struct SendAttemptResultTests {
  static let body = #"{"signedPayload":"a.b.c"}"#

  static func result(
    _ behavior: TestHTTPServer.Behavior, scheme: String = "http", timeout: TimeInterval = 10
  )
    throws -> (String, Delivery.Attempt)
  {
    let server = try TestHTTPServer(.ipv4, [behavior])
    defer { server.stop() }
    let url = try HTTPURL("\(scheme)://127.0.0.1:\(server.port)/notifications")
    let attempt = Delivery.post(body, to: url, timeout: timeout)
    return (Delivery.sendAttemptResult(attempt), attempt)
  }

  @Test(arguments: [200, 201, 206])
  func everySendAttemptResultIsReachableSuccess(_ status: Int) throws {
    #expect(try Self.result(.respond(status: status)).0 == "SUCCESS")
  }

  @Test(arguments: [207, 400, 404, 500, 503])
  func everySendAttemptResultIsReachableUnsuccessfulHTTPResponseCode(_ status: Int) throws {
    #expect(try Self.result(.respond(status: status)).0 == "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
  }

  @Test func everySendAttemptResultIsReachableTimedOut() throws {
    // The timeout is the post's one deadline (10 s by default; here a quarter second).
    let (result, attempt) = try Self.result(.silent, timeout: 0.25)
    #expect(result == "TIMED_OUT")
    #expect(attempt.error?.hasPrefix("timed out after 0.25 s") == true)
  }

  @Test func everySendAttemptResultIsReachableNoResponse() throws {
    #expect(try Self.result(.raw("")).0 == "NO_RESPONSE")
  }

  @Test func everySendAttemptResultIsReachablePrematureClose() throws {
    #expect(try Self.result(.raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part")).0 == "PREMATURE_CLOSE")
    #expect(try Self.result(.raw("HTTP/1.1 200 OK\r\nContent-Le")).0 == "PREMATURE_CLOSE")
  }

  @Test func everySendAttemptResultIsReachableCircularRedirect() throws {
    let (result, attempt) = try Self.result(.respond(status: 307, headers: ["Location": "/notifications"]))
    #expect(result == "CIRCULAR_REDIRECT")
    #expect(attempt.error?.contains("not followed") == true)
  }

  @Test func everySendAttemptResultIsReachableInvalidResponse() throws {
    #expect(try Self.result(.raw("SMTP ready\r\n\r\n")).0 == "INVALID_RESPONSE")
  }

  @Test func everySendAttemptResultIsReachableUnsupportedCharset() throws {
    let (result, attempt) = try Self.result(
      .respond(status: 200, headers: ["Content-Type": "text/plain; charset=EBCDIC-US"], body: "ok"))
    #expect(result == "UNSUPPORTED_CHARSET")
    #expect(!attempt.succeeded)
    #expect(
      try Self.result(.respond(status: 200, headers: ["Content-Type": "text/plain; charset=UTF-8"])).0 == "SUCCESS")
  }

  @Test func everySendAttemptResultIsReachableSocketIssue() throws {
    let attempt = Delivery.post(Self.body, to: try HTTPURL("http://127.0.0.1:\(unusedLoopbackPort())/"), timeout: 10)
    #expect(Delivery.sendAttemptResult(attempt) == "SOCKET_ISSUE")
  }

  @Test func everySendAttemptResultIsReachableTLSIssue() throws {
    // An https URL whose server answers in plain HTTP: the TLS handshake fails.
    let (result, attempt) = try Self.result(.greet("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), scheme: "https")
    #expect(result == "TLS_ISSUE", "\(attempt)")
  }

  @Test func everySendAttemptResultIsReachableOther() throws {
    let attempts = Delivery.post(bodies: [(index: 0, body: Self.body)], to: "ftp://example.com/", timeout: 1)
    #expect(attempts.map(Delivery.sendAttemptResult) == ["OTHER"])
  }

  @Test func theKindsCoverEveryAppleValue() {
    let apple: Set<String> = [
      "SUCCESS", "TIMED_OUT", "TLS_ISSUE", "CIRCULAR_REDIRECT", "NO_RESPONSE", "SOCKET_ISSUE", "UNSUPPORTED_CHARSET",
      "INVALID_RESPONSE", "PREMATURE_CLOSE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "OTHER",
    ]
    var reached: Set<String> = ["SUCCESS", "UNSUCCESSFUL_HTTP_RESPONSE_CODE"]
    for kind in HTTPAttemptKind.allCases where kind != .answered {
      var attempt = HTTPAttempt(status: nil, error: nil)
      switch kind {
      case .redirect: attempt.status = 302
      case .unsupportedCharset:
        attempt.status = 200
        attempt.contentType = "text/plain; charset=koi8-r"
      case .closedInResponse:
        attempt.status = 200
        attempt.complete = false
      default:
        attempt.error =
          [
            .timedOut: "timed out after 1 s", .closedWithoutResponse: "connection closed without a response",
            .invalidResponse: "not an HTTP response (starts with 'x')", .tls: "an SSL error has occurred",
            .socket: "connection refused", .other: "invalid URL: nope",
          ][kind]
      }
      #expect(attempt.kind == kind)
      reached.insert(Delivery.sendAttemptResult(attempt))
    }
    #expect(reached == apple)
  }

  /// The charset an answer declares, read as a media type's parameter (its name in any case,
  /// spaces and quotes around the value dropped); none when no parameter names one.
  @Test(
    arguments: [
      ("text/plain; charset=UTF-8", "utf-8"), (#"application/json;charset="ISO-8859-1""#, "iso-8859-1"),
      ("text/plain; format=flowed; Charset = koi8-r ", "koi8-r"), ("text/plain", nil), ("text/plain; charset=", nil),
      ("text/plain; charsets=utf-8", nil), ("charset=ebcdic", nil), ("text/plain;;charset=utf8", "utf8"),
    ] as [(String, String?)])
  func theCharsetIsTheMediaTypesParameter(contentType: String, charset: String?) {
    #expect(HTTPAttempt.charset(contentType) == charset)
  }
}
