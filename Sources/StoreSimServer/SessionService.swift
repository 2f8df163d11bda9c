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
/// 4. otherwise the session's lock is taken, waiting at most `lockWait`: a request that waits
///    longer gets 503 with `Retry-After`; changes are saved under the lock.
/// No answer carries a path of the machine: a session that cannot be read answers 500 with a
/// sentence, and the reason (with the path) goes to `warning`.
/// Every changing part is in a `Mutex`; a request waits for the session client's with a
/// deadline (`withLock(before:)`).
package final class SessionService: Sendable {
  /// The session file's client; its lock is the one every request that reads the file takes,
  /// with a deadline.
  private let client: Mutex<SessionFileClient>
  /// The session as last read, answered from while the file is unchanged (the lock is held
  /// only to copy it).
  private let snapshot = Mutex<SessionFileClient.Snapshot?>(nil)
  private let location: SessionLocation
  /// The wall clock: only for the bearer token's expiry.
  private let now: @Sendable () -> Date
  /// The monotonic clock every lock wait is measured on.
  private let waitClock: WaitClock
  private let load: @Sendable (SessionLocation, Bool) throws -> (SessionDocument, Bool)
  private let warning: @Sendable (String) -> Void
  /// How long a request may wait for the session's lock before it is answered 503.
  package let lockWait: TimeInterval
  private let cache: AnswerCache?
  /// The app's shared secret that `/verifyReceipt` requires as `password` (nil: not checked).
  private let sharedSecret: String?
  /// The team's key bearer tokens must be signed with (nil: signatures are not checked).
  private let apiKey: Authentication.Key?

  /// - Parameters:
  ///   - now: the wall clock (for the bearer token's expiry).
  ///   - waitClock: the monotonic clock of lock waits (`lockWait`); a test may drive its own.
  ///   - load: reads the session (see `SessionFileClient.Load`).
  ///   - warning: says what went wrong beside an answer (a notification not delivered, a
  ///     session that could not be read).
  ///   - cacheAnswers: keep reading answers by request and session generation (`AnswerCache`).
  package init(
    location: SessionLocation, now: @escaping @Sendable () -> Date,
    load: @escaping @Sendable (SessionLocation, Bool) throws -> (SessionDocument, Bool),
    warning: @escaping @Sendable (String) -> Void, lockWait: TimeInterval = 3, cacheAnswers: Bool = false,
    sharedSecret: String? = nil, apiKey: Authentication.Key? = nil, waitClock: WaitClock = .system
  ) {
    self.waitClock = waitClock
    self.sharedSecret = sharedSecret
    self.apiKey = apiKey
    self.location = location
    self.now = now
    self.load = load
    self.warning = warning
    self.lockWait = lockWait
    cache = cacheAnswers ? AnswerCache() : nil
    client = Mutex(SessionFileClient(location: location))
  }

  /// Loads the session once, so a missing or damaged file is reported before listening; the
  /// session as read.
  @discardableResult package func check() throws -> Store {
    try client.withLock { client in
      let store = try client.withLock(load: load, forWriting: false, needsNotifications: false) { $0 }
      keep(client.snapshot)
      return store
    }
  }

  private func keep(_ current: SessionFileClient.Snapshot?) {
    snapshot.withLock { $0 = current }
  }

  /// The latest look at the session file's identity by `quickAnswer` and when it began
  /// (monotonic nanoseconds, `HTTPRequest.monotonicNow`).
  private let lastLook = Mutex<(began: UInt64, identity: FileIdentity?)?>(nil)

  /// The last token accepted, and until when (its exp).
  private let accepted = Mutex<(header: String, token: Authentication.Token)?>(nil)

  /// The bearer token's shape and claims; a token accepted once is accepted again until its
  /// exp without decoding it again (clients send the same token for many requests).
  private func token(_ header: String?) -> Result<Authentication.Token, Authentication.Refusal> {
    let date = now()
    if let header, let a = accepted.current, a.header == header,
      date.timeIntervalSince1970 < a.token.expiry
    {
      return .success(a.token)
    }
    let result = Authentication.token(header, now: date, key: apiKey)
    if let header, case .success(let token) = result { accepted.withLock { $0 = (header, token) } }
    return result
  }

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

  package func answer(_ request: HTTPRequest) -> HTTPResponse {
    if let endpoint = VerifyReceipt.endpoint(request) { return verifyReceipt(request, endpoint: endpoint) }
    let match = ServerAPI.match(request)
    let route = match.route
    var token: Authentication.Token?
    if route?.needs.contains(.bearerToken) ?? true {
      switch self.token(request.headers["authorization"]) {
      case .failure(let refusal): return APIResponse.unauthenticated(refusal.text).http
      case .success(let t): token = t
      }
    }
    if let refusal = ServerAPI.unrouted(request, match) { return refusal.http }
    guard case .found(let found, let routed) = match else { return APIResponse.error(.generalInternal).http }
    do {
      if found.changesSession { return try change(found, routed, token: token) }
      return try read(request, route: found, routed: routed, token: token)
    } catch is SessionLock.Busy {
      return busy()
    } catch {
      return unreadable(error)
    }
  }

  /// `/verifyReceipt` (production or sandbox): no bearer token, answered from the session as it
  /// is now (see `VerifyReceipt`).
  private func verifyReceipt(_ request: HTTPRequest, endpoint: StoreEnvironment) -> HTTPResponse {
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
  /// otherwise the file re-read under the lock (waiting at most `lockWait`).
  private func currentStore(needs: Bool) throws -> (store: Store, generation: Int)? {
    var current = snapshot.current
    if let s = current, s.partial && needs || s.identity == nil || FileIdentity(location.file) != s.identity {
      current = nil
    }
    if current == nil {
      let deadline = deadline
      let read = try client.withLock(before: deadline) { client in
        _ = try client.withLock(load: load, forWriting: false, needsNotifications: needs, deadline: deadline) { $0 }
        let fresh = client.snapshot
        keep(fresh)
        return fresh
      }
      guard let read else { throw SessionLock.Busy() }
      current = read
    }
    return current.map { ($0.store, $0.generation) }
  }

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
      let kept = cache.entry(Self.cacheKey(request), generation: s.generation)
    else { return nil }
    var token: Authentication.Token?
    if kept.needs.contains(.bearerToken) {
      guard case .success(let t) = self.token(request.headers["authorization"]) else { return nil }
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
    let began = HTTPRequest.monotonicNow
    let identity = FileIdentity(location.file)
    lastLook.withLock { last in
      if began > last?.began ?? 0 { last = (began, identity) }
    }
    return identity
  }

  /// A reading answer depends only on the request and the store: the same request on the
  /// same generation of the session gets the same answer. The body is taken byte for byte (a
  /// byte that is not UTF-8 must not read as U+FFFD, the key of another body).
  private static func cacheKey(_ request: HTTPRequest) -> String {
    var key = request.method
    key.reserveCapacity(request.method.utf8.count + request.target.utf8.count + 2 + request.body.count)
    key += " "
    key += request.target
    key += "\n"
    // One scalar per byte (U+0000 to U+00FF): two bodies have the same key only when equal.
    if !request.body.isEmpty { key += String(String.UnicodeScalarView(request.body.map { Unicode.Scalar($0) })) }
    return key
  }

  private func read(
    _ request: HTTPRequest, route: Route, routed: RouteRequest, token: Authentication.Token?
  ) throws -> HTTPResponse {
    guard let (store, generation) = try currentStore(needs: route.needs.contains(.notifications)) else {
      return APIResponse.error(.generalInternal).http
    }
    if let failure = token?.refusal(for: store.state.bundleID) { return APIResponse.unauthenticated(failure).http }
    let key = Self.cacheKey(request)
    if let hit = cache?.answer(key, generation: generation) { return hit }
    let response = ServerAPI.answer(route, routed, store: store).http
    cache?.keep(key, generation: generation, response, needs: route.needs)
    return response
  }

  private func change(_ route: Route, _ routed: RouteRequest, token: Authentication.Token?) throws -> HTTPResponse {
    var response = APIResponse(status: 500, body: "")
    var planned: [PlannedDelivery] = []
    let deadline = deadline
    let done: Void? = try client.withLock(before: deadline) { client in
      _ = try client.withLock(load: load, forWriting: true, deadline: deadline) { store in
        if let failure = token?.refusal(for: store.state.bundleID) {
          response = .unauthenticated(failure)
          return store
        }
        response = ServerAPI.answer(route, routed, store: store)
        guard let changed = response.changed else { return store }
        planned = Self.plannedDeliveries(changed, since: store.notifications.count)
        return changed
      }
      keep(client.snapshot)
    }
    guard done != nil else { throw SessionLock.Busy() }
    // Notifications the request caused go to the delivery URL with no lock held; their
    // attempts are recorded before the answer, so the next request sees them.
    if !planned.isEmpty {
      for a in deliver(planned) where !a.succeeded {
        warning(
          "notification #\(a.index) was not delivered to \(a.url) (\(a.outcome)); kept for 'notifications deliver --retry'"
        )
      }
    }
    return response.http
  }

  /// The notifications a request caused, to deliver to the session's delivery URL.
  static func plannedDeliveries(_ store: Store, since count: Int) -> [PlannedDelivery] {
    guard let url = store.state.deliveryURL, store.notifications.count > count else { return [] }
    return (count..<store.notifications.count).map { PlannedDelivery(store, index: $0, url: url) }
  }

  /// POSTs planned deliveries with no lock held, then records each attempt under the lock, for
  /// the notification it was made for (one that a reset has since replaced gets no record).
  private func deliver(_ planned: [PlannedDelivery]) -> [NotificationDelivery] {
    let attempts = Delivery.send(planned)
    var records: [NotificationDelivery] = []
    // Recording waits longer than a request: the attempts were made and should be kept.
    let deadline = waitClock.deadline(after: max(lockWait, 30))
    do {
      let done: Void? = try client.withLock(before: deadline) { client in
        _ = try client.withLock(load: load, forWriting: true, deadline: deadline) { before in
          var store = before
          records = Delivery.record(planned, attempts, in: &store)
          return store
        }
        keep(client.snapshot)
      }
      guard done != nil else { throw SessionLock.Busy() }
    } catch {
      warning("the delivery attempts of \(planned.count) notification(s) could not be recorded: \(error)")
    }
    return records
  }
}

extension NotificationDelivery {
  /// "HTTP 200", "HTTP 307: redirect (...) not followed", "connection refused".
  package var outcome: String {
    httpStatus.map { "HTTP \($0)" + (error.map { ": \($0)" } ?? "") } ?? error ?? "failed"
  }
}
