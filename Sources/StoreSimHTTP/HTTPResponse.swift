/// What a handler answers: status, body, its content type and any further header fields.
package struct HTTPResponse: Sendable, Equatable {
  package var status: Int
  package var body: String
  /// `Content-Type`, sent as it is (Apple's clients read error codes only from exactly
  /// `application/json`).
  package var contentType: String
  /// Further header fields (such as `Retry-After`), written after `Content-Type`.
  package var headers: [Header]
  /// The bytes written for this response on a kept-alive connection, made once by `prepared()`
  /// for an answer given many times (nil: made for each write). Not part of equality.
  private var keepAliveBytes: Bytes?

  package struct Header: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(_ name: String, _ value: String) {
      self.name = name
      self.value = value
    }
  }

  /// Bytes shared by the copies of a prepared response.
  private final class Bytes: Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
  }

  package init(status: Int, body: String, contentType: String = "application/json", headers: [Header] = []) {
    self.status = status
    self.body = body
    self.contentType = contentType
    self.headers = headers
  }

  package static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
    a.status == b.status && a.body == b.body && a.contentType == b.contentType && a.headers == b.headers
  }

  /// The same response with its kept-alive bytes made now, so that writing it again and again
  /// copies nothing.
  package func prepared() -> HTTPResponse {
    var copy = self
    copy.keepAliveBytes = Bytes(serialized(keepAlive: true))
    return copy
  }

  /// Status line, header fields (`Content-Type`, `Content-Length`, the further fields,
  /// `Connection`) and body, as written.
  package func serialized(keepAlive: Bool) -> [UInt8] {
    if keepAlive, let keepAliveBytes { return keepAliveBytes.bytes }
    var bytes = Array("HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n".utf8)
    let length = body.utf8.count
    bytes.reserveCapacity(bytes.count + 100 + length)
    bytes += "Content-Type: \(contentType)\r\nContent-Length: \(length)\r\n".utf8
    for field in headers { bytes += "\(field.name): \(field.value)\r\n".utf8 }
    bytes += (keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n").utf8
    bytes += body.utf8
    return bytes
  }
}
