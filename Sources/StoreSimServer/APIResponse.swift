import Foundation
import StoreSim
import StoreSimHTTP

/// An answer: HTTP status and body, with the changed store when the request changed it.
package struct APIResponse: Sendable {
  package var status: Int
  package var body: String
  package var changed: Store? = nil
  /// `application/json`, or `text/plain` for a 401 (Apple's 401 carries no JSON).
  package var contentType = "application/json"
  /// Further header fields (`Retry-After` on a 503).
  package var headers: [HTTPResponse.Header] = []
  /// The JSON the body renders, for front doors that print it themselves (`--format api`).
  package var value: JSONOutput?

  package init(status: Int, body: String, changed: Store? = nil) {
    self.status = status
    self.body = body
    self.changed = changed
  }

  package static func json(_ value: JSONOutput, status: Int = 200) -> APIResponse {
    var response = APIResponse(status: status, body: value.rendered(pretty: false))
    response.value = value
    return response
  }

  /// Apple's error body `{"errorCode": N, "errorMessage": "..."}` (no `errorCode` when the
  /// error has none).
  package static func error(_ e: APIError) -> APIResponse {
    json(
      .object(["errorCode": e.code.map { .int(Int64($0)) }, "errorMessage": .string(e.message)]), status: e.status)
  }

  /// An answer without a body that changed the session (`status` 200 or 202).
  package static func empty(_ status: Int, _ store: Store) -> APIResponse {
    APIResponse(status: status, body: "", changed: store)
  }

  /// The 401 answer: plain text, no JSON and so no `errorCode` (as Apple's: "Unauthenticated"
  /// and a line saying why), then the way forward for a person trying `curl`.
  package static func unauthenticated(_ reason: String) -> APIResponse {
    var response = APIResponse(status: 401, body: "Unauthenticated\n\n\(reason)\n\n\(tokenHint)\n")
    response.contentType = "text/plain; charset=utf-8"
    return response
  }

  /// The last line of a 401: where a token comes from.
  package static let tokenHint =
    "A token this server accepts: storesim token (with --api-key AuthKey.p8 when serve checks signatures); "
    + "send it as 'Authorization: Bearer TOKEN'."

  /// The session is busy: 503 with `Retry-After`.
  package static func busy(retryAfter seconds: Int, _ message: String) -> APIResponse {
    var response = error(APIError(status: 503, code: nil, message: message))
    response.headers = [HTTPResponse.Header("Retry-After", String(seconds))]
    return response
  }

  /// The answer as the HTTP server writes it.
  package var http: HTTPResponse {
    HTTPResponse(status: status, body: body, contentType: contentType, headers: headers)
  }
}
