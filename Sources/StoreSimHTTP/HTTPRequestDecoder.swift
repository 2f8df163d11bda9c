import Foundation

/// Reads HTTP/1.1 requests off the bytes of one connection, as they arrive: the head (at most
/// `headerBytes`, empty lines before it ignored), then a body of `Content-Length` bytes (at
/// most `bodyBytes`, or what `bodyBytesFor` says for the request's method and target). A value
/// with no socket and no clock: `HTTPConnectionState` feeds it and asks it for the next request.
///
/// Requests are parsed where they lie: taking one only moves `start`. The bytes before it are
/// dropped when all are taken, or before an append once they are at least half of the buffer,
/// so each byte is moved at most once on average, whatever the pipelining.
struct HTTPRequestDecoder: Sendable {
  /// Request line and header fields together, in bytes.
  let headerBytes: Int
  /// The body limit of a request `bodyBytesFor` says nothing of.
  let bodyBytes: Int
  /// The body limit of one request by method and target (nil: `bodyBytes`).
  let bodyBytesFor: (@Sendable (_ method: String, _ target: String) -> Int?)?

  /// Bytes received; those from `start` on are not yet taken by a request.
  private(set) var buffer: [UInt8] = []
  private(set) var start = 0
  /// The head of the request whose body is being read (nil between heads).
  private(set) var head: RequestHead?
  /// The body length `head` announced.
  private(set) var bodyLength = 0
  /// Whether `100 Continue` was asked for the body being read.
  private var sentContinue = false

  init(
    headerBytes: Int, bodyBytes: Int, bodyBytesFor: (@Sendable (_ method: String, _ target: String) -> Int?)? = nil
  ) {
    self.headerBytes = headerBytes
    self.bodyBytes = bodyBytes
    self.bodyBytesFor = bodyBytesFor
  }

  /// Bytes received and not yet taken by a request.
  var backlog: Int { buffer.count - start }

  /// Nothing of a request has arrived: no head being read, no byte waiting.
  var isBetweenRequests: Bool { backlog == 0 && head == nil }

  /// What the bytes received so far hold next.
  enum Decoded {
    /// A whole request (head and body), taken off the bytes.
    case request(HTTPRequest, RequestHead)
    /// The request is not all here yet.
    case needMore
    /// The head asked for `100 Continue` (`Expect: 100-continue`) and its body has not all
    /// arrived: the client waits for it before sending the body. Said once per request; the
    /// next call says `needMore`.
    case sendContinue
    /// The request is refused (its status and why); the connection is to be closed after the
    /// answer, as nothing after it can be framed.
    case refuse(status: Int, message: String, head: RequestHead?)
  }

  /// Appends bytes that arrived.
  mutating func append(_ bytes: ArraySlice<UInt8>) {
    if start > 0 && start >= buffer.count / 2 {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// Drops everything received (after a refusal: nothing after it is read).
  mutating func discard() {
    buffer = []
    start = 0
    head = nil
    sentContinue = false
  }

  /// The next request off the bytes, once it has all arrived.
  mutating func next() -> Decoded {
    if head == nil {
      let blank = HTTPHead.leadingEmptyLines(buffer, from: start)
      if blank > 0 { take(blank) }
      guard backlog > 0 else { return .needMore }
      let tooLarge = "Request header fields too large (limit \(headerBytes) bytes)."
      guard let (end, body) = HTTPHead.end(in: buffer, from: start) else {
        return backlog > headerBytes ? .refuse(status: 431, message: tooLarge, head: nil) : .needMore
      }
      if end - start > headerBytes { return .refuse(status: 431, message: tooLarge, head: nil) }
      guard let parsed = HTTPHead(buffer[start..<end]), let request = RequestHead(parsed) else {
        return .refuse(status: 400, message: "Malformed HTTP request.", head: nil)
      }
      take(body - start)
      if let refusal = readBodyLength(request) { return refusal }
      head = request
    }
    guard let head else { return .needMore }
    if backlog < bodyLength {
      if !sentContinue, head.fields["expect"]?.lowercased() == "100-continue" {
        sentContinue = true
        return .sendContinue
      }
      return .needMore
    }
    let body = Array(buffer[start..<start + bodyLength])
    take(bodyLength)
    self.head = nil
    sentContinue = false
    return .request(HTTPRequest(method: head.method, target: head.target, headers: head.fields, body: body), head)
  }

  /// Takes `count` bytes off the front of the backlog.
  private mutating func take(_ count: Int) {
    start += count
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
      start = 0
    }
  }

  /// Sets `bodyLength` from `Content-Length` (0 without it); a refusal when it is refused.
  private mutating func readBodyLength(_ head: RequestHead) -> Decoded? {
    if head.fields["transfer-encoding"] != nil {
      return .refuse(status: 501, message: "Transfer-Encoding is not supported; send Content-Length.", head: head)
    }
    bodyLength = 0
    if let text = head.fields["content-length"] {
      guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
        return .refuse(status: 400, message: "Invalid Content-Length.", head: head)
      }
      bodyLength = n
    }
    let limit = bodyBytesFor?(head.method, head.target) ?? bodyBytes
    if bodyLength > limit {
      return .refuse(status: 413, message: "Request body too large (limit \(limit) bytes).", head: head)
    }
    return nil
  }
}

/// A request line and header fields.
struct RequestHead: Sendable, Equatable {
  var method: String
  var target: String
  var version: String
  var fields: [String: String]

  init?(_ head: HTTPHead) {
    guard let line = head.requestLine else { return nil }
    (method, target, version) = line
    fields = head.fields
  }

  var keepAlive: Bool {
    let connection = fields["connection"]
    if version == "HTTP/1.0" { return HTTPHead.lists(connection, "keep-alive") }
    return !HTTPHead.lists(connection, "close")
  }
}
