import Foundation
import StoreSimSync
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession

/// `SessionService.quickAnswer`, what `storesim serve`'s event loops answer themselves: only a
/// kept answer of a read, only while the session file is the one it was kept for.
@Suite struct QuickAnswerTests {
  typealias C = ServerAPIContractTests

  static func request(
    _ target: String, method: String = "GET", body: String = "", auth: String? = LiveServer.token,
    received: UInt64 = WaitClock.system.nanoseconds()
  ) -> HTTPRequest {
    var request = HTTPRequest(
      method: method, target: target, headers: auth.map { ["authorization": $0] } ?? [:], body: Array(body.utf8))
    request.received = received
    return request
  }

  @Test func aReadIsAnsweredQuicklyOnceKeptAndAsTheWorkerAnswersIt() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    let target = "/inApps/v1/transactions/\(C.lifetime)"
    #expect(server.service.quickAnswer(Self.request(target)) == nil)  // not kept yet
    let answered = server.service.answer(Self.request(target))
    #expect(answered.status == 200)
    #expect(server.service.quickAnswer(Self.request(target)) == answered)
    // Another target, another body, no token, a bad token: not kept, or left to the worker.
    #expect(server.service.quickAnswer(Self.request("/inApps/v1/transactions/\(C.any)")) == nil)
    #expect(server.service.quickAnswer(Self.request(target, auth: nil)) == nil)
    #expect(server.service.answer(Self.request(target, auth: nil)).status == 401)
    let otherApp = ServerAPICall.token(bid: "com.example.other", exp: 1_767_225_600 + 900)
    #expect(server.service.quickAnswer(Self.request(target, auth: otherApp)) == nil)
    #expect(server.service.answer(Self.request(target, auth: otherApp)).status == 401)
  }

  @Test func changesAndUnknownPathsAreNeverAnsweredQuickly() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    let finish = Self.request("/inApps/v1/transactions/\(C.any)/finish", method: "POST")
    _ = server.service.answer(finish)
    #expect(server.service.quickAnswer(finish) == nil)
    let unknown = Self.request("/inApps/v1/nothing/1")
    #expect(server.service.answer(unknown).status == 404)
    #expect(server.service.quickAnswer(unknown) == nil)
  }

  @Test func aChangeByAnotherProcessIsSeenByTheNextRequest() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    let target = "/inApps/v1/transactions/\(C.lifetime)"
    let before = server.service.answer(Self.request(target))
    #expect(server.service.quickAnswer(Self.request(target)) == before)
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    // A request that arrived after the change is not answered from before it.
    #expect(server.service.quickAnswer(Self.request(target)) == nil)
    let after = server.service.answer(Self.request(target))
    #expect(after.status == 200 && after != before)
    #expect(server.service.quickAnswer(Self.request(target)) == after)
    // Over HTTP, as a client sees it.
    try server.change { _ = try $0.reverseRefund(2_000_000_000_000_002) }
    let reversed = try server.request("GET", target)
    #expect(reversed.body != after.body)
    #expect(try server.request("GET", target).body == reversed.body)
  }

  /// One look at the file covers the requests that had all arrived before it began (what a
  /// loop reads in one go); a request that arrived after it gets a look of its own.
  @Test func oneLookAtTheFileServesTheRequestsThatArrivedBeforeIt() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    let target = "/inApps/v1/transactions/\(C.lifetime)"
    let kept = server.service.answer(Self.request(target))
    let early = WaitClock.system.nanoseconds()
    #expect(server.service.quickAnswer(Self.request(target)) == kept)  // looks at the file
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    #expect(server.service.quickAnswer(Self.request(target, received: early)) == kept)
    #expect(server.service.quickAnswer(Self.request(target)) == nil)
    #expect(server.service.quickAnswer(Self.request(target, received: 0)) == nil)
  }

  @Test func routeLiteralsAreComparedAsBytesSafely() {
    // Route matching compares literal segments byte for byte: that is string equality only
    // while no literal holds a character another one is canonically equivalent to.
    for route in ServerAPI.routes {
      for case let literal? in route.literals {
        #expect(literal.utf8.allSatisfy { $0 < 128 && !"K;`".utf8.contains($0) }, "\(route.path)")
      }
    }
  }

  /// Bodies that are not UTF-8 are keys of their own: a body with a byte that is not UTF-8 is
  /// not answered with what a body holding U+FFFD (what the byte would decode to) was answered.
  @Test func aBodyThatIsNotUTF8IsNotAnsweredAsItsReplacementCharacter() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    func request(_ x: [UInt8]) -> HTTPRequest {
      let body = Array(#"{"startDate":1700000000000,"endDate":1900000000000,"x":""#.utf8) + x + Array(#""}"#.utf8)
      var request = HTTPRequest(
        method: "POST", target: "/inApps/v1/notifications/history",
        headers: ["authorization": LiveServer.token, "content-type": "application/json"], body: body)
      request.received = WaitClock.system.nanoseconds()
      return request
    }
    let replacement = Array("\u{FFFD}".utf8)
    let kept = server.service.answer(request(replacement))
    #expect(server.service.quickAnswer(request(replacement)) == kept)
    #expect(server.service.quickAnswer(request([0xFF])) == nil)
    let notUTF8 = server.service.answer(request([0xFF]))
    #expect(notUTF8 != kept)
    #expect(notUTF8.body.contains("4000000"))
  }
}
