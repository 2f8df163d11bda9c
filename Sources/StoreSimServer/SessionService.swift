import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSession
import StoreSimSync

/// The session behind the server. A request is answered in this order:
/// 1. its bearer token is checked (shape and claims) without touching the session: no token,
///    no session read;
/// 2. a path or method that is not an endpoint answers 404 or 405;
/// 3. a read of an unchanged session answers from memory with no lock taken (a session is
///    only ever replaced whole, by an atomic rename, so an unchanged file is the state held);
/// 4. a read of a changed session waits for one request to read the file again (single
///    flight, without the session's lock: `refreshed`), then answers from that snapshot;
/// 5. a change takes the session's lock, waiting at most `lockWait`: a request that waits
///    longer gets 503 with `Retry-After`; changes are saved under the lock.
/// No answer carries a path of the machine: a session that cannot be read answers 500 with a
/// sentence, and the reason (with the path) goes to `warning`.
/// Every changing part is in a `Mutex`; a request waits for the session client's with a
/// deadline (`withLock(before:)`).
package final class SessionService: Sendable {
  /// The session file's client; its lock is the one every request that reads the file takes,
  /// with a deadline.
  private let kept = Mutex(SessionWork.Kept())
  /// The session as last read, answered from while the file is unchanged (the lock is held
  /// only to copy it).
  private let snapshot = Mutex<SessionWork.Kept.Snapshot?>(nil)
  private let location: SessionLocation
  /// The wall clock: only for the bearer token's expiry.
  private let now: @Sendable () -> Date
  /// The monotonic clock every lock wait is measured on.
  private let waitClock: WaitClock
  /// The monotonic clock of the service: the `HTTPServer` in front of it must read the same one
  /// (a request's `received` is compared with this clock's readings).
  package var clock: WaitClock { waitClock }
  private let warning: @Sendable (String) -> Void
  /// How long a request may wait for the session's lock before it is answered 503.
  package let lockWait: TimeInterval
  private let cache: AnswerCache?
  /// The app's shared secret that `/verifyReceipt` requires as `password` (nil: not checked).
  private let sharedSecret: String?
  /// The authentication layer (with the team's key bearer tokens must be signed with, when
  /// given; without it signatures are not checked).
  private let gate: Authentication.Gate

  /// - Parameters:
  ///   - now: the wall clock (for the bearer token's expiry).
  ///   - waitClock: the monotonic clock of lock waits (`lockWait`); a test may drive its own.
  ///   - warning: says what went wrong beside an answer (a notification not delivered, a
  ///     session that could not be read).
  ///   - cacheAnswers: keep reading answers by request and session generation (`AnswerCache`).
  package init(
    location: SessionLocation, now: @escaping @Sendable () -> Date, warning: @escaping @Sendable (String) -> Void,
    lockWait: TimeInterval = 3, cacheAnswers: Bool = false,
    sharedSecret: String? = nil, apiKey: Authentication.Key? = nil, waitClock: WaitClock = .system
  ) {
    self.waitClock = waitClock
    self.sharedSecret = sharedSecret
    gate = Authentication.Gate(key: apiKey)
    self.location = location
    self.now = now
    self.warning = warning
    self.lockWait = lockWait
    cache = cacheAnswers ? AnswerCache() : nil
  }

  /// The same service (its session as read so far, none of its kept answers) checking bearer
  /// tokens with `apiKey`: `serve` reads the session once, then uses the team's key it holds.
  package func using(apiKey: Authentication.Key) -> SessionService {
    let keyed = SessionService(
      location: location, now: now, warning: warning, lockWait: lockWait, cacheAnswers: cache != nil,
      sharedSecret: sharedSecret, apiKey: apiKey, waitClock: waitClock)
    let held = kept.withLock { $0 }
    keyed.kept.withLock { $0 = held }
    keyed.keep(held.snapshot)
    // A session whose head only was checked (`checkHead`) is still to be read whole.
    let headOnly = loading.withLock { $0 }
    keyed.loading.withLock { $0 = headOnly }
    return keyed
  }

  /// Loads the session once, so a missing or damaged file is reported before listening; the
  /// session as read.
  @discardableResult package func check() throws -> Store {
    try kept.withLock { kept in
      let store = try work.perform(keeping: &kept, mutating: false, needsNotifications: false) { $0 }
      keep(kept.snapshot)
      return store
    }
  }

  /// Whether the session is being read on another thread after `checkHead` (until then a
  /// request about one transaction is answered from its customer's row, `earlyAnswer`, and
  /// every other request waits for the read).
  private let loading = Condition(false)

  /// How many requests were answered from one customer's row while the session was read.
  private let early = Mutex(0)

  /// How many requests `earlyAnswer` answered (for tests).
  package var earlyAnswers: Int { early.current }

  /// `check()` in two steps, for a session file of `lazyFrom` bytes or more (issue 50, item
  /// 6): this checks the file's header, its checksums and its `base` (the team's key, the
  /// bundle id) and returns the store of `base` alone; `loadInBackground()` then reads the
  /// rest on another thread. nil for a smaller file, one older than version 3, or one whose
  /// configuration changed: then `check()` it.
  package func checkHead(lazyFrom: Int) throws -> Store? {
    var status = stat()
    guard stat(location.file, &status) == 0, Int(status.st_size) >= lazyFrom,
      let head = try work.readOneCustomer(holding: nil)
    else { return nil }
    loading.withLock { $0 = true }
    return head
  }

  /// Reads the whole session on another thread (after `checkHead`, on this service or on the
  /// one it made with `using(apiKey:)`); a session that cannot be read is reported by the
  /// requests that read it again.
  package func loadInBackground() {
    loading.withLock { $0 = true }
    Thread.detachNewThread { [self] in
      do {
        try check()
      } catch {
        warning("the session could not be read: \((error as? SessionStoreError)?.message ?? "\(error)")")
      }
      loading.withLock(waking: .all) { $0 = false }
    }
  }

  /// Waits until the session read after `checkHead` is done.
  private func awaitLoaded() {
    loading.wait { $0 ? nil : () }
  }

  /// While the session is read after `checkHead`, a request about one transaction's customer
  /// (`Route.Needs.oneCustomer`: Get Transaction Info, Get Transaction History, Get All
  /// Subscription Statuses) is answered from its customer's row alone
  /// (`SessionWork.readOneCustomer`, found through the file's index when it has one), the same
  /// bytes the whole session gives: the route reads only that customer and `base`. nil when the
  /// session is read already, when the answer is not a success (an unknown id, an
  /// `appTransactionId`: those need every customer), or when the route needs the owners of the
  /// customer's family copies (`familyOwners`) and the customer holds some; the request then
  /// waits for the read.
  private func earlyAnswer(_ route: Route, _ routed: RouteRequest, token: Authentication.Token?) -> HTTPResponse? {
    guard route.needs.contains(.oneCustomer), !route.changesSession, loading.withLock({ $0 }),
      let id = try? ServerAPI.transactionID(routed["transactionId"]),
      let store = try? work.readOneCustomer(holding: id)
    else { return nil }
    if route.needs.contains(.familyOwners),
      store.state.customers.contains(where: { c in c.transactions.contains { $0.sharedFrom != nil } })
    {
      return nil
    }
    if let failure = token?.refusal(for: store.state.bundleID) { return APIResponse.unauthenticated(failure).http }
    let response = ServerAPI.answer(route, routed, store: store)
    guard response.status == 200 else { return nil }
    early.withLock { $0 += 1 }
    return response.http
  }

  /// The unit of work every use of the session file goes through (a changed configuration is
  /// reloaded, with a warning).
  private var work: SessionWork { SessionWork(location: location, warn: warning) }

  private func keep(_ current: SessionWork.Kept.Snapshot?) {
    snapshot.withLock { $0 = current }
  }

  /// The latest look at the session file's identity by `quickAnswer` and when it began (on
  /// `clock`, the clock of a request's `received`).
  private let lastLook = Mutex<(began: UInt64, identity: FileIdentity?)?>(nil)

  /// The session is busy: how long a client is told to wait before trying again.
  static let retryAfterSeconds = 1

  private func busy() -> HTTPResponse {
    APIResponse.busy(
      retryAfter: Self.retryAfterSeconds,
      "The session is locked by another process (a storesim command or test) and stayed locked for \(lockWait) s; try again."
    ).http
  }

  private func unreadable(_ error: Error) -> HTTPResponse {
    let reason = (error as? SessionStoreError)?.message ?? "\(error)"
    warning("the session could not be read: \(reason)")
    return APIResponse.error(
      APIError(status: 500, code: 5_000_000, message: "An unknown error occurred: the session could not be read.")
    ).http
  }

  /// Answers a request through the layers `api` shares (`APILayers`), then the session.
  package func answer(_ request: HTTPRequest) -> HTTPResponse {
    switch APILayers.admit(request, gate: gate, now: now) {
    case .verifyReceipt(let endpoint):
      return verifyReceipt(request, endpoint: endpoint)
    case .refused(let refusal):
      return refusal.http
    case .routed(let route, let routed, let token):
      if let answer = earlyAnswer(route, routed, token: token) { return answer }
      awaitLoaded()
      do {
        if route.changesSession { return try change(route, routed, token: token) }
        return try read(request, route: route, routed: routed, token: token)
      } catch is SessionLock.Busy {
        return busy()
      } catch {
        return unreadable(error)
      }
    }
  }

  /// `/verifyReceipt` (production or sandbox): no bearer token, answered from the session as it
  /// is now (see `VerifyReceipt`).
  private func verifyReceipt(_ request: HTTPRequest, endpoint: StoreEnvironment) -> HTTPResponse {
    awaitLoaded()
    do {
      guard let (store, _) = try currentStore(needs: false) else { return APIResponse.error(.generalInternal).http }
      return VerifyReceipt.answer(request, store: store, endpoint: endpoint, sharedSecret: sharedSecret).http
    } catch is SessionLock.Busy {
      return busy()
    } catch {
      return unreadable(error)
    }
  }

  /// The body limit of a `/verifyReceipt` request (nil for other requests: the server's
  /// default): every receipt the session issues fits, so it follows the session's size, 1 MiB
  /// plus 4 KiB per transaction (a receipt holds at most every transaction, each under 1 KiB
  /// of JSON, a third more in base64, twice that if a client escapes every `/`). Read from
  /// the last snapshot, without waiting (rule verify-receipt-takes-every-receipt-it-issued).
  package func bodyLimit(method: String, target: String) -> Int? {
    guard VerifyReceipt.isEndpoint(target: target) else { return nil }
    let transactions = snapshot.current?.store.state.customers.reduce(0) { $0 + $1.transactions.count } ?? 0
    return VerifyReceipt.bodyLimit(transactions: transactions)
  }

  /// The deadline of a lock wait that starts now.
  private var deadline: WaitDeadline { waitClock.deadline(after: lockWait) }

  /// The store to answer a reading request from: the snapshot while the file is unchanged,
  /// otherwise the file as read again once (`refreshed`).
  private func currentStore(needs: Bool) throws -> (store: Store, generation: Int)? {
    var current = snapshot.current
    if let s = current, s.partial && needs || s.identity == nil || FileIdentity(location.file) != s.identity {
      current = nil
    }
    if current == nil { current = try refreshed(needs: needs) }
    return current.map { ($0.store, $0.generation) }
  }

  /// The session as its file is now, read once per change (single flight): the requests that
  /// found the snapshot stale queue on `kept`; the first reads the file again, and each one
  /// after it finds the file still the one just read and answers from that snapshot (a file
  /// that changed again meanwhile is read again, so no request is answered from before a change
  /// it could have seen). The file is read without the session's lock (`SessionWork.refresh`),
  /// so a reader does not wait for a writer's unit of work; only a file that changed while it
  /// was read is read again under the lock.
  package func refreshed(needs: Bool) throws -> SessionWork.Kept.Snapshot? {
    awaitLoaded()
    let deadline = deadline
    let read = try kept.withLock(before: deadline) { kept in
      switch try work.refresh(keeping: &kept, needsNotifications: needs) {
      case .unchanged: break
      case .read: reads.withLock { $0 += 1 }
      case .changedWhileRead:
        reads.withLock { $0 += 1 }
        try work.perform(keeping: &kept, mutating: false, needsNotifications: needs, deadline: deadline) { $0 }
      }
      let fresh = kept.snapshot
      keep(fresh)
      return fresh
    }
    guard let read else { throw SessionLock.Busy() }
    return read
  }

  private let reads = Mutex(0)

  /// How many times a reading request has read the session file (for tests: once per change).
  package var fileReads: Int { reads.current }

  /// How many reading answers have been made (for tests: once per request and change).
  package var answersMade: Int { cache?.made ?? 0 }

  /// The answer `answer(_:)` gives, when it is a kept answer of a read of the session as the
  /// file is now; nil otherwise. No lock is waited for and nothing is computed but the token's
  /// check (a kept answer says what its route needs, so the request is not even routed): the
  /// server's event loop calls it and leaves the rest to a worker.
  package func quickAnswer(_ request: HTTPRequest) -> HTTPResponse? {
    // What a quick answer needs of the snapshot, without copying its store.
    guard let cache,
      let s = snapshot.withLock({
        $0.map {
          (generation: $0.generation, identity: $0.identity, partial: $0.partial, bundleID: $0.store.state.bundleID)
        }
      }),
      let kept = cache.entry(AnswerCache.Key(request), generation: s.generation)
    else { return nil }
    var token: Authentication.Token?
    if kept.needs.contains(.bearerToken) {
      guard case .success(let t) = gate.token(request.headers["authorization"], now: now()) else { return nil }
      token = t
    }
    guard !(s.partial && kept.needs.contains(.notifications)), let identity = s.identity,
      fileIdentity(covering: request) == identity,
      token?.refusal(for: s.bundleID) == nil
    else { return nil }
    return kept.answer
  }

  /// The session file's identity seen by the latest look (`stat`) that began after the whole
  /// request had arrived, so after every change its sender could have seen: one look serves
  /// all the requests that had arrived before it began.
  private func fileIdentity(covering request: HTTPRequest) -> FileIdentity? {
    if request.received != 0, let last = lastLook.withLock({ $0 }), request.received < last.began {
      return last.identity
    }
    let began = waitClock.nanoseconds()
    let identity = FileIdentity(location.file)
    lastLook.withLock { last in
      if began > last?.began ?? 0 { last = (began, identity) }
    }
    return identity
  }

  private func read(
    _ request: HTTPRequest, route: Route, routed: RouteRequest, token: Authentication.Token?
  ) throws -> HTTPResponse {
    guard let (store, generation) = try currentStore(needs: route.needs.contains(.notifications)) else {
      return APIResponse.error(.generalInternal).http
    }
    if let failure = token?.refusal(for: store.state.bundleID) { return APIResponse.unauthenticated(failure).http }
    guard let cache else { return ServerAPI.answer(route, routed, store: store).http }
    return cache.answer(AnswerCache.Key(request), generation: generation) {
      (ServerAPI.answer(route, routed, store: store).http, route.needs)
    }
  }

  private func change(_ route: Route, _ routed: RouteRequest, token: Authentication.Token?) throws -> HTTPResponse {
    var response = APIResponse(status: 500, body: "")
    var planned: PlannedDeliveries?
    let deadline = deadline
    let done: Void? = try kept.withLock(before: deadline) { kept in
      try work.perform(keeping: &kept, mutating: true, deadline: deadline) { store in
        if let failure = token?.refusal(for: store.state.bundleID) {
          response = .unauthenticated(failure)
          return store
        }
        response = ServerAPI.answer(route, routed, store: store)
        guard let changed = response.changed else { return store }
        planned = Delivery.planned(changed, since: store.notifications.count)
        return changed
      }
      keep(kept.snapshot)
    }
    guard done != nil else { throw SessionLock.Busy() }
    // Notifications the request caused go to the delivery URL with no lock held; their
    // attempts are recorded before the answer, so the next request sees them.
    if let planned, !planned.isEmpty {
      for line in Delivery.undeliveredWarnings(deliver(planned)) { warning(line) }
    }
    return response.http
  }

  /// Delivers what a request planned (`Delivery.deliver`): posted with no lock held, then
  /// recorded under the session's lock, waiting longer than a request (the attempts were made
  /// and should be kept).
  private func deliver(_ planned: PlannedDeliveries) -> [NotificationDelivery] {
    let deadline = waitClock.deadline(after: max(lockWait, 30))
    // What the attempts were, even when they could not be saved (then each is still reported).
    var records: [NotificationDelivery] = []
    do {
      records = try Delivery.deliver(planned) { record in
        let done: Void? = try kept.withLock(before: deadline) { kept in
          try work.perform(keeping: &kept, mutating: true, deadline: deadline) { before in
            var store = before
            records = record(&store)
            return store
          }
          keep(kept.snapshot)
        }
        guard done != nil else { throw SessionLock.Busy() }
        return records
      }
    } catch {
      warning(
        "the delivery attempts of \(Set(records.map(\.index)).count) notification(s) could not be recorded: \(error)")
    }
    return records
  }
}
