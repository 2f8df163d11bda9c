import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimSession

/// The index beside a large session file (`SessionIndex`, issue 50, item 6): `serve` answers a
/// request about any customer's transaction from that customer's row, found through the index
/// instead of by stepping over every row before it, with the bytes the whole session gives; and
/// Get Transaction History and Get All Subscription Statuses are answered early too.
@Suite struct EarlyAnswerIndexTests {
  typealias C = ServerAPIContractTests
  typealias E = EarlyAnswerTests

  /// Writes the server's session again as a large one is written (while encoded), which puts
  /// its index beside it.
  static func indexed(_ server: LiveServer) throws -> SessionIndex {
    let document = try SessionFile.read(server.location.file, shownAs: server.location.shown)
    try SessionFile.write(document, to: server.location, streamingAbove: 0)
    return try #require(SessionFile.index(of: server.location.file))
  }

  static func request(_ path: String) -> HTTPRequest { QuickAnswerTests.request(path) }

  @Test func aSessionWrittenWhileEncodedHasAnIndexOfEveryTransactionsRow() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: server.location.file))
    let index = try Self.indexed(server)
    // The session's bytes are the same with or without the index.
    #expect(try Data(contentsOf: URL(fileURLWithPath: server.location.file)) == bytes)
    #expect(index.count == E.transactions.count)
    let store = try server.store()
    for id in E.transactions {
      let number = try #require(TransactionID(id))
      #expect(index.row(of: number) != nil, "transaction \(id)")
      let one = try #require(
        try SessionFile.read(server.location.file, shownAs: server.location.shown, onlyCustomerHolding: number))
      #expect(one.state.customers.count == 1)
      let holder = try #require(one.state.customers.first)
      #expect(holder == store.state.customers.first { $0.transaction(number) != nil }, "transaction \(id)")
    }
    #expect(index.row(of: 2_000_000_000_000_099) == nil)
    // A file that is not an index is not read as one.
    #expect(SessionIndex(bytes: Data("storesim-index 1 abc 2\n".utf8)) == nil)
    #expect(SessionIndex(bytes: index.bytes.dropLast()) == nil)
  }

  /// The index is followed: an entry that names another customer's row gives no early answer
  /// (the request waits for the whole read), which a search of the rows would have found.
  @Test func theRowTheIndexNamesIsTheOneRead() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let index = try Self.indexed(server)
    let id = try #require(TransactionID(C.trial))
    let right = try #require(index.row(of: id))
    let other = try #require(TransactionID(C.any))
    let wrong = try #require(index.row(of: other))
    #expect(right != wrong)
    let store = try server.store()
    let rows = store.state.customers.map { c in index.row(of: c.transactions.first?.id ?? 0) ?? 0 }
    let misdirected = SessionIndex(
      checksum: index.checksum, customers: store.state.customers, rows: rows.map { $0 == right ? wrong : $0 })
    try misdirected.bytes.write(to: URL(fileURLWithPath: SessionIndex.path(of: server.location.file)))
    #expect(throws: SessionStoreError.self) {
      try SessionFile.read(server.location.file, shownAs: server.location.shown, onlyCustomerHolding: id)
    }
    let service = try E.headOnly(server)
    let answered = SessionRefreshTests.Answers()
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) { answered.append(service.answer(E.info(C.trial))) }
    #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
    service.loadInBackground()
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(answered.all == [E.whole(server, E.info(C.trial))])
    #expect(service.earlyAnswers == 0)
  }

  @Test func anIndexedSessionAnswersEveryTransactionHistoryAndStatusAsTheWholeSessionDoes() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    _ = try Self.indexed(server)
    let service = try E.headOnly(server)
    var requests: [HTTPRequest] = []
    for id in E.transactions {
      requests.append(E.info(id))
      requests.append(Self.request("/inApps/v1/history/\(id)"))
      requests.append(Self.request("/inApps/v2/history/\(id)"))
      requests.append(Self.request("/inApps/v2/history/\(id)?sort=DESCENDING&productType=AUTO_RENEWABLE"))
    }
    // The statuses of customers who hold no family copies (the kid's come from the organiser's).
    for id in [C.any, C.lifetime, C.refunded, C.renewal, C.trial] {
      requests.append(Self.request("/inApps/v1/subscriptions/\(id)"))
      requests.append(Self.request("/inApps/v1/subscriptions/\(id)?status=1"))
    }
    for request in requests {
      let early = E.early(service, request)
      #expect(early.status == 200, "\(request.target)")
      #expect(early == E.whole(server, request), "\(request.target)")
    }
    #expect(service.earlyAnswers == requests.count)
    #expect(service.fileReads == 0)
  }

  /// A member's statuses need the organiser's subscription: they wait for the whole read.
  @Test func theStatusesOfAFamilyMemberWaitForTheWholeRead() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    _ = try Self.indexed(server)
    let service = try E.headOnly(server)
    let request = Self.request("/inApps/v1/subscriptions/\(C.kidCopy)")
    let answered = SessionRefreshTests.Answers()
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) { answered.append(service.answer(request)) }
    #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
    service.loadInBackground()
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(answered.all == [E.whole(server, request)])
    #expect(service.earlyAnswers == 0)
  }

  /// Another process's save (a small one, written without an index) leaves the index naming the
  /// file before: it is not used, and the next early answer is the changed session's.
  @Test func aChangeByAnotherProcessIsSeenThroughAStaleIndex() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let index = try Self.indexed(server)
    let service = try E.headOnly(server)
    let history = Self.request("/inApps/v2/history/\(C.lifetime)")
    let before = E.early(service, history)
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    #expect(SessionFile.index(of: server.location.file) == index)
    let after = E.early(service, history)
    #expect(after != before && after == E.whole(server, history))
    // And a large save writes the index again.
    try server.change { _ = try $0.refund(2_000_000_000_000_004) }
    #expect(try Self.indexed(server) != index)
    let again = E.early(service, history)
    #expect(again != after && again == E.whole(server, history))
    #expect(service.earlyAnswers == 3)
  }
}
