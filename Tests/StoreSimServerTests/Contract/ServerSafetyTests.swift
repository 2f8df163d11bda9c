import Foundation
import StoreSimSignals
import StoreSimSync
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimSession

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 27's items beyond the table, each against a live server on 127.0.0.1.
@Suite struct ServerSafetyTests {
  typealias C = ServerAPIContractTests

  @Test func unknownPathsAndMethodsAnswerWithoutAnErrorCode() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    for (method, target, status) in [
      ("GET", "/inApps/v1/nothing/1", 404), ("GET", "/inApps/v1/messaging/nothing", 404), ("GET", "/", 404),
      ("DELETE", "/inApps/v1/transactions/\(C.any)", 405), ("GET", "/inApps/v1/notifications/history", 405),
    ] {
      let a = try server.request(method, target)
      #expect(a.status == status, "\(method) \(target)")
      #expect(a.errorCode == nil && a.json?["errorMessage"] != nil, "\(a.body)")
    }
  }

  /// Item 1: an answer depends on everything in the request, the body too, with the answer
  /// cache on or off.
  @Test(arguments: [false, true])
  func notificationHistoryAnswersEachBody(cache: Bool) throws {
    let server = try LiveServer(copying: ContractFixture.session, cacheAnswers: cache)
    let path = "/inApps/v1/notifications/history"
    func count(_ body: String) throws -> Int? {
      let a = try server.request("POST", path, body: body)
      return a.status == 200 ? ServerAPICall.array(a.json?["notificationHistory"]).count : nil
    }
    let all = try #require(try count(C.notes()))
    #expect(all > 1)
    #expect(try count(C.notes(#","notificationType":"CONSUMPTION_REQUEST""#)) == 1)
    #expect(try count(C.notes(#","transactionId":"2000000000000009""#)) == 1)  // the trial customer
    #expect(try server.request("POST", path, body: "not json").status == 400)
    #expect(try count(C.notes()) == all)
  }

  /// Item 8: invalid pairs, onlyFailures after a later delivery, never-attempted notifications.
  @Test func notificationHistoryDetails() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let path = "/inApps/v1/notifications/history"
    #expect(
      try server.request("POST", path, body: C.notes(#","notificationType":"REFUND","notificationSubtype":"UPGRADE""#))
        .errorCode == 4_000_018)
    #expect(try server.request("POST", path, body: C.notes(#","notificationType":"NOPE""#)).errorCode == 4_000_018)
    func ids(_ body: String) throws -> Int {
      ServerAPICall.array(try server.request("POST", path, body: body).json?["notificationHistory"]).count
    }
    let failed = try ids(C.notes(#","onlyFailures":true"#))
    #expect(failed > 0)
    // Deliver the first one successfully later: it is no longer a failure.
    try server.change { store in
      store.recordDelivery(
        NotificationDelivery(
          index: store.notifications.count - 1, url: "http://x/", httpStatus: 200, error: nil, date: store.now))
      // A notification never attempted is not listed at all.
      _ = try store.purchase("com.example.coins.100")
    }
    #expect(try ids(C.notes(#","onlyFailures":true"#)) == failed - 1)
    #expect(try ids(C.notes()) == failed)
  }

  /// Item 3: a kept revision returns every transaction changed since, with its new data; a
  /// kept refund-history revision sees a refund made after a reversal.
  @Test func keptRevisionsSeeLaterChangesToOldTransactions() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let history = "/inApps/v2/history/\(C.any)"
    let first = try server.request("GET", history)
    let kept = try #require(ServerAPICall.string(first.json?["revision"]))
    #expect(C.history(try server.request("GET", history + "?revision=\(kept)")).isEmpty)
    try server.change { _ = try $0.refund(2_000_000_000_000_002) }
    let since = try server.request("GET", history + "?revision=\(kept)")
    #expect(C.history(since) == [C.lifetime])
    let t = C.decoded(ServerAPICall.array(since.json?["signedTransactions"]).first)
    #expect(t?["revocationDate"] != nil)
    // Another query's revision is refused.
    #expect(try server.request("GET", history + "?revision=\(kept)&productId=x").errorCode == 4_000_005)
    // Descending: newest change first.
    #expect(C.history(try server.request("GET", history + "?sort=DESCENDING")).first == C.lifetime)

    let refunds = "/inApps/v2/refund/lookup/\(C.any)"
    let keptRefunds = try #require(ServerAPICall.string(try server.request("GET", refunds).json?["revision"]))
    try server.change { store in
      _ = try store.reverseRefund(2_000_000_000_000_002)
      _ = try store.refund(2_000_000_000_000_001)
    }
    #expect(C.history(try server.request("GET", refunds + "?revision=\(keptRefunds)")) == ["2000000000000001"])
  }

  /// Item 5: a purchase that is not a subscription is ineligible (not the family error).
  @Test func extendingANonSubscriptionIsIneligible() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let a = try server.request("PUT", "/inApps/v1/subscriptions/extend/\(C.lifetime)", body: C.extend())
    #expect(a.status == 403 && a.errorCode == 4_030_004)
  }

  /// Item 13: an oversized list is refused before anything is saved; duplicates merge.
  @Test func storefrontListsAreBoundedAndMerged() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    let before = try Data(contentsOf: URL(fileURLWithPath: server.location.file))
    let many = (0..<100_000).map { i in "\"" + String(UnicodeScalar(65 + i % 26)!) + "AA\"" }
    let huge = C.massBody().replacingOccurrences(
      of: "}", with: #","storefrontCountryCodes":["# + many.joined(separator: ",") + "]}")
    #expect(huge.utf8.count < 1 << 20)
    let distinct = (0..<201).map { i in
      "\"" + String(UnicodeScalar(65 + i / 26 % 26)!) + String(UnicodeScalar(65 + i % 26)!) + "Z\""
    }
    let tooMany = C.massBody().replacingOccurrences(
      of: "}", with: #","storefrontCountryCodes":["# + distinct.joined(separator: ",") + "]}")
    #expect(try server.request("POST", "/inApps/v1/subscriptions/extend/mass", body: tooMany).errorCode == 4_000_028)
    #expect(try Data(contentsOf: URL(fileURLWithPath: server.location.file)) == before)
    let a = try server.request("POST", "/inApps/v1/subscriptions/extend/mass", body: huge)
    #expect(a.status == 200)
    #expect(try server.store().serverRecords.massExtensions.last?.storefronts?.count == 26)
  }

  /// Item 14: while another process holds the session's lock, reads answer at once (the file is
  /// read without the lock: it is always a whole session); a write gets 503 with Retry-After
  /// after the wait's deadline.
  @Test func aHeldLockStallsNothingForever() throws {
    let server = try LiveServer(copying: ContractFixture.session, lockWait: 0.3)
    #expect(try server.request("GET", "/inApps/v1/transactions/\(C.any)").status == 200)
    let lock = try SessionLock(server.location, forWriting: true)
    defer { withExtendedLifetime(lock) {} }
    #expect(try server.request("GET", "/inApps/v1/transactions/\(C.lifetime)").status == 200)
    let write = try server.request("POST", "/inApps/v1/transactions/\(C.coins)/finish", body: "")
    #expect(write.status == 503)
    #expect(write.headers["retry-after"] == "1")
    #expect(write.errorCode == nil && write.json?["errorMessage"] != nil)
    // Notification history needs the outbox, not read yet: it is read without the lock too.
    #expect(try server.request("POST", "/inApps/v1/notifications/history", body: C.notes()).status == 200)
  }

  /// Lock waits are measured on the monotonic clock, not on the session's wall clock (which
  /// the tests freeze): a write behind a held lock really waits its `lockWait`, then gets 503.
  @Test func aWriteBehindAHeldLockWaitsItsLockWaitBeforeThe503() throws {
    let server = try LiveServer(copying: ContractFixture.session, lockWait: 0.2)
    let lock = try SessionLock(server.location, forWriting: true)
    defer { withExtendedLifetime(lock) {} }
    let start = ContinuousClock.now
    let write = try server.request("POST", "/inApps/v1/transactions/\(C.coins)/finish", body: "")
    #expect(write.status == 503)
    #expect(ContinuousClock.now - start >= .milliseconds(200), "the 503 came without the wait")
  }

  /// The lock wait's deadline is read on the clock the service is given: while a test's clock
  /// stands still the write keeps waiting, and once the clock passes `lockWait` it gets 503.
  @Test func aLockWaitGivesUpWhenItsClockPassesTheDeadline() throws {
    let reading = Mutex<UInt64>(0)
    let server = try LiveServer(
      copying: ContractFixture.session, lockWait: 5, waitClock: WaitClock { reading.withLock { $0 } })
    let lock = try SessionLock(server.location, forWriting: true)
    defer { withExtendedLifetime(lock) {} }
    let status = Mutex<Int?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      let answer = try? server.request("POST", "/inApps/v1/transactions/\(C.coins)/finish", body: "")
      status.withLock { $0 = answer?.status }
      done.signal()
    }
    let waited = done.wait(timeout: .now() + 0.2) == .timedOut
    #expect(waited, "the write gave up with its clock standing still")
    reading.withLock { $0 = WaitClock.nanoseconds(6) }
    if waited { done.wait() }
    #expect(status.current == 503)
  }

  /// Item 15: a good token on a missing session answers 500 with no path of the machine.
  @Test func noAnswerCarriesAPath() throws {
    let server = try LiveServer(copying: ContractFixture.session)
    try FileManager.default.removeItem(atPath: server.location.file)
    let a = try server.request("GET", "/inApps/v1/transactions/\(C.any)")
    #expect(a.status == 500)
    #expect(!a.body.contains(server.folder) && !a.body.contains("/"), "\(a.body)")
    #expect(server.warnings.all.contains { $0.contains(server.folder) })
  }

  /// Item 11: a held signal is sent again to the process, so a thread that blocks it (the
  /// server's workers block SIGINT and SIGTERM) cannot keep it pending forever. Checked with
  /// SIGUSR2, which nothing else uses.
  @Test func aHeldSignalIsResentToTheProcessNotTheBlockingThread() throws {
    Self.received = 0
    let previous = signal(SIGUSR2) { _ in ServerSafetyTests.received = 1 }
    defer { signal(SIGUSR2, previous) }
    let done = DispatchSemaphore(value: 0)
    Thread {
      var set = sigset_t()
      sigemptyset(&set)
      sigaddset(&set, SIGUSR2)
      pthread_sigmask(SIG_BLOCK, &set, nil)
      ProcessSignals.resend(SIGUSR2)
      done.signal()
    }.start()
    done.wait()
    for _ in 0..<200 where Self.received == 0 { usleep(5_000) }
    #expect(Self.received == 1)
  }

  nonisolated(unsafe) static var received: sig_atomic_t = 0
}
