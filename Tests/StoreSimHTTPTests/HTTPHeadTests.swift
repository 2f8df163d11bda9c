import Foundation
import Testing

@testable import StoreSimHTTP
@testable import StoreSimHTTPTestSupport

/// The one header parser (HTTPHead) and the client and server that use it.
@Suite struct HTTPHeadTests {
  static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

  @Test func theHeadEndsAtTheFirstEmptyLineWithCRLFOrBareLF() {
    #expect(HTTPHead.end(in: Self.bytes("GET / HTTP/1.1\r\nA: b\r\n\r\nbody"))! == (21, 24))
    #expect(HTTPHead.end(in: Self.bytes("GET / HTTP/1.1\nA: b\n\nbody"))! == (19, 21))
    #expect(HTTPHead.end(in: Self.bytes("GET / HTTP/1.1\nA: b\r\n\nbody"))! == (20, 22))
    #expect(HTTPHead.end(in: Self.bytes("GET / HTTP/1.1\r\nA: b\r\n")) == nil)
    #expect(HTTPHead.end(in: Self.bytes("GET / HTTP/1.1\r\nA: b\r\n\r")) == nil)
    #expect(HTTPHead.leadingEmptyLines(Self.bytes("\r\n\nGET")) == 3)
  }

  @Test func fieldsAreParsedTheSameWayWhateverTheLineEnding() throws {
    let crlf = try #require(HTTPHead(Self.bytes("POST /x HTTP/1.1\r\nHost: a\r\nX-Two:  1 \r\nx-two: 2")[...]))
    let lf = try #require(HTTPHead(Self.bytes("POST /x HTTP/1.1\nHost: a\nX-Two:  1 \nx-two: 2")[...]))
    #expect(crlf.fields == ["host": "a", "x-two": "1, 2"])
    #expect(lf.fields == crlf.fields)
    #expect(lf.requestLine! == ("POST", "/x", "HTTP/1.1"))
    #expect(HTTPHead(Self.bytes("HTTP/1.1 202 Accepted\nContent-Length: 0")[...])?.statusCode == 202)
  }

  @Test func tokensOfAFieldValueAreFoundInAnyCase() {
    #expect(HTTPHead.lists("close", "close"))
    #expect(HTTPHead.lists("Keep-Alive,  CLOSE ", "close"))
    #expect(!HTTPHead.lists("closed", "close"))
    #expect(!HTTPHead.lists(nil, "close"))
    #expect(!HTTPHead.lists("", "keep-alive"))
  }

  @Test func malformedHeadsAreRefused() {
    #expect(HTTPHead(Self.bytes("GET / HTTP/1.1\r\nNo colon here")[...]) == nil)
    #expect(HTTPHead(Self.bytes("GET / HTTP/1.1\r\nBad name: x")[...]) == nil)
    #expect(HTTPHead(Self.bytes("GET / HTTP/1.1\r\nName : x")[...]) == nil)
    #expect(HTTPHead(Self.bytes("GET / HTTP/1.1\r\n folded: x")[...]) == nil)
    #expect(HTTPHead(Self.bytes("GET / HTTP/2")[...])?.requestLine == nil)
    #expect(HTTPHead(Self.bytes("GET x HTTP/1.1")[...])?.requestLine == nil)
    #expect(HTTPHead(Self.bytes("HTTP/1.1 20 OK")[...])?.statusCode == nil)
  }

  @Test func theServerAcceptsBareLFLineEndings() throws {
    let running = try HTTPServerTests.Running(handler: HTTPServerTests.echo)
    defer { running.stop() }
    let client = try HTTPServerTests.Client(port: running.server.port)
    client.send(
      "GET /lf HTTP/1.1\nHost: x\n\nPOST /mixed HTTP/1.1\r\nContent-Length: 2\n\r\nhi\r\nGET /after HTTP/1.1\n\n")
    #expect(client.response()?.body == #"{"body":0,"method":"GET","path":"/lf"}"#)
    #expect(client.response()?.body == #"{"body":2,"method":"POST","path":"/mixed"}"#)
    // The empty line a client sent after the body is skipped before the next request line.
    #expect(client.response()?.body == #"{"body":0,"method":"GET","path":"/after"}"#)
  }

  /// Found by the HTTP fuzz target: a field name with bytes outside RFC 9110's token (here a
  /// Cyrillic capital letter, which plain ASCII lower-casing left upper case) is malformed.
  @Test func aFieldNameThatIsNotATokenIsRefused() {
    #expect(HTTPHead(ArraySlice(Array("GET / HTTP/1.1\r\nX-\u{04BE}: 1".utf8))) == nil)
    #expect(HTTPHead(ArraySlice(Array("GET / HTTP/1.1\r\nX(y): 1".utf8))) == nil)
    #expect(HTTPHead(ArraySlice(Array("GET / HTTP/1.1\r\nX-Ok_1.~!: 1".utf8)))?.fields["x-ok_1.~!"] == "1")
  }
}
