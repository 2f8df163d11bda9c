import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSession

/// The session behind the server: read under its lock for every request, kept in memory while
/// the file is unchanged (`SessionFileClient`), saved under the lock when a request changes it.
/// It knows nothing of the command line: the caller gives it how to load the session (which
/// may reload a changed configuration) and where warnings go.
package final class SessionService: @unchecked Sendable {
  private let lock = NSLock()
  private var client: SessionFileClient
  private let location: SessionLocation
  private let now: @Sendable () -> Date
  private let load: SessionFileClient.Load
  private let warning: @Sendable (String) -> Void
  private let cache = AnswerCache()

  /// - Parameters:
  ///   - now: the wall clock (for the bearer token's expiry).
  ///   - load: reads the session (see `SessionFileClient.Load`).
  ///   - warning: says something went wrong beside an answer (a notification not delivered).
  package init(
    location: SessionLocation, now: @escaping @Sendable () -> Date, load: @escaping SessionFileClient.Load,
    warning: @escaping @Sendable (String) -> Void
  ) {
    self.location = location
    self.now = now
    self.load = load
    self.warning = warning
    client = SessionFileClient(location: location)
  }

  /// Loads the session once, so a missing or damaged file is reported before listening.
  package func check() throws {
    try lock.withLock { _ = try client.withLock(load: load, forWriting: false, needsNotifications: false) { $0 } }
  }

  private let tokenLock = NSLock()
  /// The last token accepted, for its bundle id, and until when (its exp).
  private var accepted: (header: String, bundleID: String, until: Double)?

  /// The bearer-token check; a token accepted once is accepted again until its exp without
  /// decoding it again (clients send the same token for many requests).
  package func authenticate(_ header: String?, bundleID: String) -> String? {
    let date = now()
    if let header, let a = tokenLock.withLock({ accepted }), a.header == header, a.bundleID == bundleID,
      date.timeIntervalSince1970 < a.until
    {
      return nil
    }
    if let failure = Authentication.check(header, bundleID: bundleID, now: date) { return failure }
    if let header, let exp = Authentication.expiry(header) {
      tokenLock.withLock { accepted = (header, bundleID, exp) }
    }
    return nil
  }

  private static func unreadable(_ reason: String) -> (status: Int, body: String) {
    let response = APIResponse.error(
      APIError(status: 500, code: 5_000_000, message: "The session could not be read: \(reason)"))
    return (response.status, response.body)
  }

  package func answer(_ request: HTTPRequest) -> (status: Int, body: String) {
    let route = ServerAPI.match(request).route
    do {
      if route?.changesSession == true {
        var response = APIResponse(status: 500, body: "")
        var planned: [PlannedDelivery] = []
        try lock.withLock {
          _ = try client.withLock(load: load, forWriting: true) { store in
            response = ServerAPI.handle(request, store: store, now: now())
            guard let changed = response.changed else { return store }
            planned = Self.plannedDeliveries(changed, since: store.notifications.count)
            return changed
          }
        }
        // Notifications the request caused go to the delivery URL with no lock held; their
        // attempts are recorded before the answer, so the next request sees them.
        if !planned.isEmpty {
          for a in try deliver(planned) where !a.succeeded {
            warning(
              "notification #\(a.index) was not delivered to \(a.url) (\(a.outcome)); kept for 'notifications deliver --retry'"
            )
          }
        }
        return (response.status, response.body)
      }
      // Reading: the store is a value, answered outside the lock (other requests go on).
      let needs = route?.needs.contains(.notifications) ?? false
      let (store, generation) = try lock.withLock {
        if let fast = client.storeIfUnchanged(needsNotifications: needs) { return fast }
        return (
          try client.withLock(load: load, forWriting: false, needsNotifications: needs) { $0 }, client.generation
        )
      }
      if let failure = authenticate(request.headers["authorization"], bundleID: store.state.bundleID) {
        return (401, ServerAPI.unauthenticated(failure).body)
      }
      // A reading answer depends only on the request and the store: the same request on the
      // same generation of the session gets the same bytes, computed once.
      let key = request.method + " " + request.target
      if let hit = cache.answer(key, generation: generation) { return hit }
      let response = ServerAPI.handle(request, store: store, now: now(), trusted: true)
      cache.keep(key, generation: generation, (response.status, response.body))
      return (response.status, response.body)
    } catch let error as SessionStoreError {
      return Self.unreadable(error.message)
    } catch {
      return Self.unreadable("\(error)")
    }
  }

  /// The notifications a request caused, to deliver to the session's delivery URL.
  static func plannedDeliveries(_ store: Store, since count: Int) -> [PlannedDelivery] {
    guard let url = store.state.deliveryURL, store.notifications.count > count else { return [] }
    return (count..<store.notifications.count).map { PlannedDelivery(store, index: $0, url: url) }
  }

  /// POSTs planned deliveries with no lock held, then records each attempt under the lock, for
  /// the notification it was made for (one that a reset has since replaced gets no record).
  private func deliver(_ planned: [PlannedDelivery]) throws -> [NotificationDelivery] {
    let attempts = Delivery.send(planned)
    var records: [NotificationDelivery] = []
    try lock.withLock {
      _ = try client.withLock(load: load, forWriting: true) { before in
        var store = before
        records = []
        for (plan, attempt) in zip(planned, attempts) {
          let record = NotificationDelivery(
            index: plan.index, url: plan.url, httpStatus: attempt.status, error: attempt.error, date: store.now)
          records.append(record)
          guard plan.index < store.notifications.count, store.notifications[plan.index] == plan.notification else {
            continue
          }
          store.recordDelivery(record)
        }
        return store
      }
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
