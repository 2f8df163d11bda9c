import Foundation
import Testing

@testable import StoreSimHTTP

/// The transport's rules on one connection, without a socket or a clock: the connection's
/// state is fed bytes and times (nanoseconds on a clock the test keeps) and says what to do.
@Suite struct HTTPConnectionStateTests {
  typealias State = HTTPConnectionState
  typealias Action = HTTPConnectionState.Action

  static let second: UInt64 = 1_000_000_000

  /// One connection as a socket that takes every byte at once would run it: writes are
  /// collected in `sent`, refusals the state logs in `logged`.
  struct Peer {
    var state: State
    var sent: [UInt8] = []
    var logged: [State.Answer] = []

    init(now: UInt64 = 0, _ change: (inout HTTPServer.Limits) -> Void = { _ in }) {
      var limits = HTTPServer.Limits()
      change(&limits)
      state = State(State.Configuration(limits), now: now)
    }

    mutating func receive(_ text: String, at now: UInt64) { state.receive(Array(text.utf8)[...], now: now) }

    /// Carries out writes and logs until the state needs something else.
    mutating func run(at now: UInt64) -> Action {
      while true {
        let action = state.next(now: now)
        switch action {
        case .write:
          let count = state.withUnwritten { bytes in
            sent += bytes
            return bytes.count
          }
          state.wrote(count, now: now)
        case .log(let answer): logged.append(answer)
        default: return action
        }
      }
    }

    /// The bytes written since the last call, as text.
    mutating func takeSent() -> String {
      defer { sent = [] }
      return String(decoding: sent, as: UTF8.self)
    }

    /// The status line of what was written since the last call.
    mutating func sentStatus() -> String { String(takeSent().split(separator: "\r\n").first ?? "") }

    mutating func answer(_ status: Int = 200, at now: UInt64, closing: Bool = false) -> State.Answer {
      state.respond(HTTPResponse(status: status, body: "{}"), now: now, closing: closing)
    }
  }

  // MARK: Framing

  @Test func aRequestSplitAcrossReadsIsHandedOverOnceItsBodyIsWhole() throws {
    var peer = Peer()
    peer.receive("POST /a?x=1 HTTP/1.1\r\nContent-", at: 1)
    #expect(peer.run(at: 1) == .read)
    peer.receive("Length: 10\r\n\r\nhello", at: 2)
    #expect(peer.run(at: 2) == .read)
    #expect(peer.state.pending == nil)
    peer.receive("world", at: 3)
    #expect(peer.run(at: 3) == .handle)
    let request = try #require(peer.state.pending?.request)
    #expect(request.method == "POST" && request.path == "/a" && request.value("x") == "1")
    #expect(String(decoding: request.body, as: UTF8.self) == "helloworld")
    // Every byte of it had arrived by the last read.
    #expect(request.received == 3)
  }

  @Test func pipelinedRequestsAreHandedOverOneAtATimeInOrder() throws {
    var peer = Peer()
    peer.receive(
      "GET /1 HTTP/1.1\r\n\r\nPOST /2 HTTP/1.1\r\nContent-Length: 2\r\n\r\nhiGET /3 HTTP/1.1\r\n\r\n", at: 1)
    for path in ["/1", "/2", "/3"] {
      #expect(peer.run(at: 2) == .handle)
      #expect(peer.run(at: 2) == .handle, "the same request until it is answered")
      #expect(peer.state.pending?.request.path == path)
      _ = peer.answer(at: 3)
      #expect(peer.state.pending == nil)
    }
    #expect(peer.run(at: 4) == .read)
    #expect(peer.takeSent().components(separatedBy: "HTTP/1.1 200 OK").count == 4)
  }

  @Test func emptyLinesBeforeARequestAreIgnoredAndStartNoRequest() {
    var peer = Peer()
    peer.receive("\r\n\n", at: 5 * Self.second)
    #expect(peer.run(at: 5 * Self.second) == .read)
    #expect(peer.state.requestStart == nil)
    #expect(peer.state.deadline == 30 * Self.second, "still idle since the connection opened")
    peer.receive("GET / HTTP/1.1\r\n\r\n", at: 6 * Self.second)
    #expect(peer.run(at: 6 * Self.second) == .handle)
  }

  @Test func theRequestsBeforeThePeersEndAreAnsweredThenTheConnectionCloses() {
    var peer = Peer()
    peer.receive("GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\nGET /3 HTT", at: 1)
    peer.state.receiveEnd()
    #expect(peer.run(at: 1) == .handle)
    _ = peer.answer(at: 1)
    #expect(peer.run(at: 1) == .handle)
    _ = peer.answer(at: 1)
    #expect(peer.run(at: 1) == .close, "the third never will be whole")
  }

  // MARK: Keep-alive

  @Test func aConnectionIsKeptAliveUnlessTheRequestOrTheServerSaysClose() {
    for (head, closing, kept) in [
      ("GET / HTTP/1.1\r\n\r\n", false, true), ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false, false),
      ("GET / HTTP/1.0\r\n\r\n", false, false), ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false, true),
      ("GET / HTTP/1.1\r\n\r\n", true, false),
    ] {
      var peer = Peer()
      peer.receive(head + "GET /next HTTP/1.1\r\n\r\n", at: 1)
      #expect(peer.run(at: 1) == .handle)
      _ = peer.answer(at: 2, closing: closing)
      #expect(peer.run(at: 2) == (kept ? .handle : .close), "\(head) closing: \(closing)")
      #expect(peer.takeSent().contains(kept ? "Connection: keep-alive\r\n" : "Connection: close\r\n"))
    }
  }

  // MARK: Limits

  @Test func aHeadPastTheHeaderLimitIsAnswered431AndTheConnectionClosed() {
    // Not ended yet, but already longer than the limit.
    var open = Peer { $0.headerBytes = 64 }
    open.receive("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 48), at: 1)
    #expect(open.run(at: 1) == .close)
    #expect(open.sentStatus() == "HTTP/1.1 431 Request Header Fields Too Large")
    #expect(open.logged.map(\.status) == [431] && open.logged[0].method == nil)
    // Ended, and longer than the limit.
    var ended = Peer { $0.headerBytes = 64 }
    ended.receive("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 46) + "\r\n\r\n", at: 1)
    #expect(ended.run(at: 1) == .close)
    #expect(ended.sentStatus() == "HTTP/1.1 431 Request Header Fields Too Large")
    // At the limit: answered.
    var at = Peer { $0.headerBytes = 64 }
    let head = "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 39)
    #expect((head + "\r").utf8.count == 64, "a head counts up to its last line's end")
    at.receive(head + "\r\n\r\n", at: 1)
    #expect(at.run(at: 1) == .handle)
    var past = Peer { $0.headerBytes = 64 }
    past.receive(head + "a\r\n\r\n", at: 1)
    #expect(past.run(at: 1) == .close)
  }

  @Test func aBodyPastItsLimitIsAnswered413BeforeItIsSent() {
    var over = Peer { $0.bodyBytes = 10 }
    over.receive("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", at: 1)
    #expect(over.run(at: 1) == .close)
    #expect(over.sentStatus() == "HTTP/1.1 413 Content Too Large")
    #expect(over.logged.first?.method == "POST")
    var at = Peer { $0.bodyBytes = 10 }
    at.receive("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789", at: 1)
    #expect(at.run(at: 1) == .handle)
  }

  @Test func aTargetsOwnBodyLimitIsTheOneThatCounts() {
    let limits: (inout HTTPServer.Limits) -> Void = {
      $0.bodyBytes = 10
      $0.bodyBytesFor = { _, target in target == "/big" ? 100 : nil }
    }
    var big = Peer(limits)
    big.receive("POST /big HTTP/1.1\r\nContent-Length: 50\r\n\r\n" + String(repeating: "b", count: 50), at: 1)
    #expect(big.run(at: 1) == .handle)
    var small = Peer(limits)
    small.receive("POST /small HTTP/1.1\r\nContent-Length: 50\r\n\r\n", at: 1)
    #expect(small.run(at: 1) == .close)
    #expect(small.takeSent().contains("Request body too large (limit 10 bytes)."))
  }

  @Test func aRequestThatCannotBeFramedIsRefusedAndTheConnectionClosed() {
    for (text, status) in [
      ("HELLO\r\n\r\n", "400 Bad Request"), ("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "400 Bad Request"),
      ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "400 Bad Request"),
      ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "501 Not Implemented"),
    ] {
      var peer = Peer()
      peer.receive(text + "GET /after HTTP/1.1\r\n\r\n", at: 1)
      #expect(peer.run(at: 1) == .close, "\(text)")
      #expect(peer.sentStatus() == "HTTP/1.1 \(status)", "\(text)")
      #expect(peer.state.pending == nil, "nothing after a refusal is read")
    }
  }

  // MARK: 100-continue

  @Test func expectContinueIsAnsweredOnceBeforeTheBodyAndNotWhenTheBodyCameWithTheHead() {
    var peer = Peer()
    peer.receive("PUT /a HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", at: 1)
    #expect(peer.run(at: 1) == .read)
    #expect(peer.takeSent() == "HTTP/1.1 100 Continue\r\n\r\n")
    peer.receive("ab", at: 2)
    #expect(peer.run(at: 2) == .read)
    #expect(peer.takeSent().isEmpty, "once per request")
    peer.receive("cd", at: 3)
    #expect(peer.run(at: 3) == .handle)
    _ = peer.answer(at: 3)
    #expect(peer.run(at: 3) == .read)
    #expect(peer.sentStatus() == "HTTP/1.1 200 OK")

    var whole = Peer()
    whole.receive("PUT /a HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nabcd", at: 1)
    #expect(whole.run(at: 1) == .handle)
    #expect(whole.takeSent().isEmpty)
    // Refused before the body: no 100 Continue, the refusal.
    var refused = Peer { $0.bodyBytes = 2 }
    refused.receive("PUT /a HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", at: 1)
    #expect(refused.run(at: 1) == .close)
    #expect(refused.sentStatus() == "HTTP/1.1 413 Content Too Large")
  }

  // MARK: Deadlines

  @Test func anIdleConnectionClosesOnceItsIdleTimeoutHasPassed() {
    var peer = Peer(now: 100) { $0.idleTimeout = .seconds(30) }
    #expect(peer.run(at: 100) == .read)
    #expect(peer.state.deadline == 100 + 30 * Self.second)
    #expect(peer.state.expire(now: 100 + 30 * Self.second) == .none)
    #expect(peer.state.expire(now: 101 + 30 * Self.second) == .close)
  }

  @Test func theIdleTimeoutCountsFromTheEndOfTheLastAnswer() {
    var peer = Peer { $0.idleTimeout = .seconds(30) }
    peer.receive("GET / HTTP/1.1\r\n\r\n", at: 20 * Self.second)
    #expect(peer.run(at: 20 * Self.second) == .handle)
    _ = peer.answer(at: 25 * Self.second)
    #expect(peer.run(at: 26 * Self.second) == .read)
    #expect(peer.state.deadline == 56 * Self.second)
    #expect(peer.state.expire(now: 40 * Self.second) == .none)
  }

  @Test func aRequestNotWholeWithinTheRequestTimeoutIsAnswered408() {
    var peer = Peer { $0.requestTimeout = .seconds(10) }
    peer.receive("GET / HTTP/1.1\r\n", at: 2 * Self.second)
    #expect(peer.run(at: 3 * Self.second) == .read)
    #expect(peer.state.deadline == 12 * Self.second, "from its first byte")
    #expect(peer.state.expire(now: 12 * Self.second) == .none)
    let expiry = peer.state.expire(now: 12 * Self.second + 1)
    #expect(
      expiry
        == .refused(
          State.Answer(
            status: 408, method: nil, target: nil,
            bytes: #"{"error":"The request did not arrive within 10 s."}"#.utf8.count, milliseconds: 10_000.000001)))
    #expect(peer.run(at: 12 * Self.second + 1) == .close)
    let sent = peer.takeSent()
    #expect(sent.hasPrefix("HTTP/1.1 408 Request Timeout\r\n") && sent.contains("Connection: close\r\n"))
    #expect(sent.hasSuffix(#"{"error":"The request did not arrive within 10 s."}"#))
  }

  @Test func aBodyNotWholeWithinTheRequestTimeoutIsAnswered408WithItsRequestLine() {
    var peer = Peer { $0.requestTimeout = .milliseconds(250) }
    peer.receive("POST /slow HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc", at: 0)
    #expect(peer.run(at: 0) == .read)
    guard case .refused(let answer) = peer.state.expire(now: Self.second) else {
      Issue.record("no 408")
      return
    }
    #expect(answer.status == 408 && answer.method == "POST" && answer.target == "/slow")
    #expect(peer.takeSent().isEmpty, "queued, not written by expire")
    #expect(peer.run(at: Self.second) == .close)
    #expect(peer.takeSent().hasSuffix(#"{"error":"The request body did not arrive within 0.25 s."}"#))
  }

  @Test func anAnswerNotWrittenWithinTheWriteTimeoutClosesTheConnection() {
    var peer = Peer { $0.writeTimeout = .seconds(10) }
    peer.receive("GET / HTTP/1.1\r\n\r\n", at: 1 * Self.second)
    #expect(peer.run(at: 1 * Self.second) == .handle)
    _ = peer.answer(at: 2 * Self.second)
    // The socket takes nothing: the answer is still to be written.
    #expect(peer.state.next(now: 3 * Self.second) == .write)
    #expect(peer.state.deadline == 12 * Self.second)
    #expect(peer.state.expire(now: 12 * Self.second) == .none)
    #expect(peer.state.expire(now: 12 * Self.second + 1) == .close)
  }

  @Test func theLogSaysHowLongARequestTookFromItsFirstByteToItsAnswer() {
    var peer = Peer()
    peer.receive("GET /timed HT", at: Self.second)
    #expect(peer.run(at: Self.second) == .read)
    peer.receive("TP/1.1\r\n\r\n", at: Self.second + 200_000_000)
    #expect(peer.run(at: Self.second + 200_000_000) == .handle)
    let answer = peer.answer(204, at: Self.second + 500_000_000)
    #expect(answer == State.Answer(status: 204, method: "GET", target: "/timed", bytes: 2, milliseconds: 500))
  }

  @Test func aDurationIsCountedInWholeNanoseconds() {
    #expect(Duration.seconds(30).wholeNanoseconds == 30 * Self.second)
    #expect(Duration.milliseconds(250).wholeNanoseconds == 250_000_000)
    #expect(Duration.seconds(-1).wholeNanoseconds == 0)
    #expect(State.Configuration.seconds(.seconds(10)) == "10 s")
    #expect(State.Configuration.seconds(.milliseconds(200)) == "0.2 s")
  }
}
