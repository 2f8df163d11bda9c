import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimSession

/// How `storesim serve` follows a session that other processes change: the file is read once
/// per change however many requests find their snapshot stale, without waiting for a writer's
/// lock, and never answers from before a change acknowledged before the request (`serve`'s start
/// over the session: `ServeStartTests` in the CLI's tests).
@Suite struct SessionRefreshTests {
  typealias C = ServerAPIContractTests
  static let target = "/inApps/v1/transactions/\(C.lifetime)"

  static func request() -> HTTPRequest { QuickAnswerTests.request(target) }

  /// What a service that never read the session answers now (the reference).
  static func fresh(_ server: LiveServer) -> HTTPResponse {
    SessionService(location: server.location, now: { LiveServer.wallClock }, warning: { _ in }).answer(request())
  }

  @Test func aChangedSessionIsReadAndItsAnswerMadeOnceHoweverManyRequestsFindTheirSnapshotStale() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    let before = server.service.answer(Self.request())
    #expect(server.service.fileReads == 1)
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    // Sixteen requests at once, as a flood's after a change: one reads, the others wait for it.
    let answers = Answers()
    DispatchQueue.concurrentPerform(iterations: 16) { _ in answers.append(server.service.answer(Self.request())) }
    let expected = Self.fresh(server)
    #expect(expected.status == 200 && expected != before)
    #expect(answers.all.count == 16 && answers.all.allSatisfy { $0 == expected })
    #expect(server.service.fileReads == 2)
    // The answer was made (and signed) once, by one of them.
    #expect(server.service.answersMade == 2)
    // A request that queued behind the read finds the file unchanged: it reads nothing.
    _ = try server.service.refreshed(needs: false)
    _ = try server.service.refreshed(needs: false)
    #expect(server.service.fileReads == 2)
  }

  @Test func aReaderDoesNotWaitForTheLockOfAWriterAtWork() throws {
    let server = try LiveServer(copying: ContractFixture.session, lockWait: 0.2, cacheAnswers: true)
    let before = server.service.answer(Self.request())
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    // Another process has taken the session's lock for its next change: the file is whole.
    let lock = try SessionLock(server.location, forWriting: true)
    let answer = server.service.answer(Self.request())
    withExtendedLifetime(lock) {}
    #expect(answer.status == 200 && answer != before && answer == Self.fresh(server))
  }

  @Test func aRequestAfterAnAcknowledgedWriteNeverSeesTheStateBeforeIt() throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: true)
    for round in 0..<12 {
      try server.change {
        if round.isMultiple(of: 2) {
          _ = try $0.refund(2_000_000_000_000_002)
        } else {
          _ = try $0.reverseRefund(2_000_000_000_000_002)
        }
      }
      let expected = Self.fresh(server)
      #expect(server.service.quickAnswer(Self.request()) == nil)
      #expect(server.service.answer(Self.request()) == expected)
      #expect(server.service.quickAnswer(Self.request()) == expected)
    }
    #expect(server.service.fileReads == 12)
  }

  final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [HTTPResponse] = []
    func append(_ a: HTTPResponse) { lock.withLock { answers.append(a) } }
    var all: [HTTPResponse] { lock.withLock { answers } }
  }
}
