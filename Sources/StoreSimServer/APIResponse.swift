import Foundation
import StoreSim

/// An answer: HTTP status and JSON body, with the changed store when the request changed it.
package struct APIResponse: Sendable {
  package var status: Int
  package var body: String
  package var changed: Store? = nil

  package init(status: Int, body: String, changed: Store? = nil) {
    self.status = status
    self.body = body
    self.changed = changed
  }

  package static func json(_ value: JSONOutput, status: Int = 200) -> APIResponse {
    APIResponse(status: status, body: value.rendered(pretty: false))
  }

  /// Apple's error body `{"errorCode": N, "errorMessage": "..."}`.
  package static func error(_ e: APIError) -> APIResponse {
    json(.object(["errorCode": .int(Int64(e.code)), "errorMessage": .string(e.message)]), status: e.status)
  }

  /// An answer without a body that changed the session (`status` 200 or 202).
  package static func empty(_ status: Int, _ store: Store) -> APIResponse {
    APIResponse(status: status, body: "", changed: store)
  }
}
