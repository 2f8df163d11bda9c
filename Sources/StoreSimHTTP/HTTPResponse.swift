/// What a handler answers: status, body, its content type and any further header fields.
package struct HTTPResponse: Sendable, Equatable {
  package var status: Int
  package var body: String
  /// `Content-Type`, sent as it is (Apple's clients read error codes only from exactly
  /// `application/json`).
  package var contentType: String
  /// Further header fields (such as `Retry-After`), written after `Content-Type`.
  package var headers: [Header]

  package struct Header: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(_ name: String, _ value: String) {
      self.name = name
      self.value = value
    }
  }

  package init(status: Int, body: String, contentType: String = "application/json", headers: [Header] = []) {
    self.status = status
    self.body = body
    self.contentType = contentType
    self.headers = headers
  }
}
