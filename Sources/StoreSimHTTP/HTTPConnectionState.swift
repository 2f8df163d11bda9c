import Foundation

/// The server side of one HTTP/1.1 connection as a value: what has arrived (its
/// `HTTPRequestDecoder`), the request waiting for its answer, the bytes still to be written,
/// and the connection's three deadlines (idle between requests, a request's arrival, a
/// write). It touches no socket and reads no clock: it is fed events with the time they
/// happened (`now`, nanoseconds on the server's `WaitClock`) and says what to do next
/// (`Action`), so every rule of the transport is tested without a socket
/// (`HTTPConnectionStateTests`). `HTTPConnection` carries out its actions on a socket.
///
/// In order, `next` says: write the output first (`write`), then close if the output was the
/// last answer (`close`), then answer the request waiting (`handle`, answered by `respond`),
/// then decode the next one off the bytes: a request waits (`handle`), a refusal is queued
/// with the connection to close after it (`log` it, then `write`), `100 Continue` is queued
/// (`write`), or more bytes are needed (`read`, or `close` once the peer has ended).
/// Pipelined requests are answered one at a time, in order.
struct HTTPConnectionState: Sendable {
  /// The limits and refusal bodies of a server's connections, made once per server.
  struct Configuration: Sendable {
    var headerBytes: Int
    var bodyBytes: Int
    var bodyBytesFor: (@Sendable (_ method: String, _ target: String) -> Int?)?
    /// The three timeouts, in nanoseconds.
    var idleTimeout: UInt64
    var requestTimeout: UInt64
    var writeTimeout: UInt64
    /// `requestTimeout` as the 408 answer says it ("10 s").
    var requestTimeoutText: String
    var refusalBody: HTTPServer.RefusalBody

    init(_ limits: HTTPServer.Limits, refusalBody: @escaping HTTPServer.RefusalBody = HTTPServer.plainRefusal) {
      headerBytes = limits.headerBytes
      bodyBytes = limits.bodyBytes
      bodyBytesFor = limits.bodyBytesFor
      idleTimeout = limits.idleTimeout.wholeNanoseconds
      requestTimeout = limits.requestTimeout.wholeNanoseconds
      writeTimeout = limits.writeTimeout.wholeNanoseconds
      requestTimeoutText = Self.seconds(limits.requestTimeout)
      self.refusalBody = refusalBody
    }

    /// "10 s", "0.25 s".
    static func seconds(_ duration: Duration) -> String {
      let (whole, attoseconds) = duration.components
      if attoseconds == 0 { return "\(whole) s" }
      return String(format: "%g s", Double(whole) + Double(attoseconds) / 1e18)
    }
  }

  /// What the connection is to do next.
  enum Action: Equatable {
    /// Write `unwritten` (as much as the socket takes), then tell `wrote`.
    case write
    /// `pending` is a complete request: answer it with `respond`.
    case handle
    /// The connection answered a request itself (a refusal, now in the output): log it.
    case log(Answer)
    /// Wait for bytes (`receive`) or the peer's end (`receiveEnd`).
    case read
    case close
  }

  /// One answered request, for the log (`HTTPServer.LogEntry` without the peer).
  struct Answer: Equatable, Sendable {
    var status: Int
    /// nil when the request line was unreadable.
    var method: String?
    var target: String?
    /// The body's size.
    var bytes: Int
    /// From the request's first byte to its answer.
    var milliseconds: Double
  }

  /// What a deadline that passed does (`expire`).
  enum Expiry: Equatable {
    case none
    /// An idle connection, or a write that took too long: close it.
    case close
    /// A request that did not arrive in time: `408` is queued (log it, then write it and close).
    case refused(Answer)
  }

  let configuration: Configuration
  private(set) var decoder: HTTPRequestDecoder
  /// The answer (or refusal, or `100 Continue`) being written, from `written` on.
  private(set) var output: [UInt8] = []
  private(set) var written = 0
  /// Close once `output` is written (a refusal, `Connection: close`, the server stopping).
  private(set) var closeAfterWrite = false
  /// The peer ended its side of the connection.
  private(set) var ended = false
  /// A complete request waiting for its answer.
  private(set) var pending: (request: HTTPRequest, head: RequestHead)?
  /// When the current request's first byte arrived (nil between requests), when the
  /// connection last became idle, when the output being written must be written by.
  private(set) var requestStart: UInt64?
  private(set) var idleSince: UInt64
  private(set) var writeDeadline: UInt64 = 0
  /// When bytes were last received: every byte received had arrived by then (a request's
  /// `received`).
  private(set) var lastRead: UInt64 = 0

  /// A connection accepted at `now`.
  init(_ configuration: Configuration, now: UInt64) {
    self.configuration = configuration
    decoder = HTTPRequestDecoder(
      headerBytes: configuration.headerBytes, bodyBytes: configuration.bodyBytes,
      bodyBytesFor: configuration.bodyBytesFor)
    idleSince = now
  }

  // MARK: Events

  /// Bytes arrived by `now` (none: a read found nothing, which still says nothing more had
  /// arrived by then).
  mutating func receive(_ bytes: ArraySlice<UInt8>, now: UInt64) {
    if !bytes.isEmpty {
      if requestStart == nil && decoder.isBetweenRequests { requestStart = now }
      decoder.append(bytes)
    }
    lastRead = now
  }

  /// The peer ended its side: a request not whole by now never will be.
  mutating func receiveEnd() { ended = true }

  /// What to do next (see the type's description).
  mutating func next(now: UInt64) -> Action {
    if isWriting { return .write }
    if closeAfterWrite { return .close }
    if pending != nil { return .handle }
    let decoded = decoder.next()
    if case .needMore = decoded, decoder.isBetweenRequests {
      requestStart = nil
    } else if requestStart == nil {
      requestStart = now
    }
    switch decoded {
    case .request(var request, let head):
      request.received = lastRead
      pending = (request, head)
      return .handle
    case .needMore:
      return ended ? .close : .read
    case .sendContinue:
      queue(Self.continueBytes, now: now)
      return .write
    case .refuse(let status, let message, let head):
      return .log(refuse(status, message, head, now: now))
    }
  }

  static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

  /// Answers the pending request at `now`, keeping the connection open when the request asks
  /// it and `closing` is false (the server stopping closes it after the answer).
  mutating func respond(_ response: HTTPResponse, now: UInt64, closing: Bool = false) -> Answer {
    let head = pending?.head
    pending = nil
    return answer(response, head: head, keepAlive: !closing && head?.keepAlive == true, now: now)
  }

  /// Output is waiting to be written.
  var isWriting: Bool { written < output.count }

  /// The output not yet written.
  func withUnwritten<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    output.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[written...])) }
  }

  /// `count` bytes of `unwritten` were written by `now`.
  mutating func wrote(_ count: Int, now: UInt64) {
    written += count
    guard written >= output.count else { return }
    output = []
    written = 0
    if decoder.isBetweenRequests { idleSince = now }
  }

  /// When `expire` next has something to do: the write's deadline while output is being
  /// written, else the request's while one is arriving, else the idle connection's.
  var deadline: UInt64 {
    if isWriting { return writeDeadline }
    if let requestStart { return requestStart &+ configuration.requestTimeout }
    return idleSince &+ configuration.idleTimeout
  }

  /// What the deadline does once `now` is past it: a write too slow or an idle connection is
  /// closed, a request too slow to arrive is answered 408.
  mutating func expire(now: UInt64) -> Expiry {
    guard now > deadline else { return .none }
    if isWriting || requestStart == nil { return .close }
    let what = decoder.head == nil ? "The request did not arrive" : "The request body did not arrive"
    return .refused(refuse(408, "\(what) within \(configuration.requestTimeoutText).", decoder.head, now: now))
  }

  // MARK: Answers

  /// Answers with an error and closes the connection after it; nothing received after is read.
  private mutating func refuse(_ status: Int, _ message: String, _ head: RequestHead?, now: UInt64) -> Answer {
    decoder.discard()
    pending = nil
    let response = HTTPResponse(status: status, body: configuration.refusalBody(status, message))
    return answer(response, head: head, keepAlive: false, now: now)
  }

  private mutating func answer(_ response: HTTPResponse, head: RequestHead?, keepAlive: Bool, now: UInt64) -> Answer {
    if !keepAlive { closeAfterWrite = true }
    queue(response.serialized(keepAlive: keepAlive), now: now)
    let start = requestStart ?? now
    requestStart = nil
    return Answer(
      status: response.status, method: head?.method, target: head?.target, bytes: response.body.utf8.count,
      milliseconds: now > start ? Double(now - start) / 1_000_000 : 0)
  }

  /// Puts bytes in the output, after what is still to be written, to be written by `now` plus
  /// the write timeout.
  private mutating func queue(_ bytes: [UInt8], now: UInt64) {
    if written >= output.count {
      output = bytes
      written = 0
    } else {
      output += bytes
    }
    writeDeadline = now &+ configuration.writeTimeout
  }
}

extension Duration {
  /// Whole nanoseconds (0 for a negative span; at most `UInt64.max`).
  var wholeNanoseconds: UInt64 {
    let (seconds, attoseconds) = components
    guard seconds >= 0, attoseconds >= 0 else { return 0 }
    let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
  }
}
