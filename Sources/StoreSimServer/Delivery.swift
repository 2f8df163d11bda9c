import Foundation
import StoreSim
import StoreSimHTTP

/// POSTs notifications as Apple does: `{"signedPayload": "..."}` with a JSON content type.
///
/// Transport rules (the same for `http` and `https`):
/// - every attempt has one total deadline (resolve + connect + send + receive), `defaultTimeout`;
/// - redirects are never followed: a 3xx is a failed attempt, kept for retry;
/// - at most `bodyLimit` bytes of a response body are read, then the connection is dropped;
///   the attempt counts by its status.
///
/// `http` goes through `HTTPClient` (POSIX sockets); `https` through URLSession with a delegate
/// that refuses redirects and cancels after the body limit.
package enum Delivery {
  /// What every front door says of an attempt that failed (without `warning: `): one
  /// sentence, written once.
  package static func undeliveredWarnings(_ records: [NotificationDelivery]) -> [String] {
    records.filter { !$0.succeeded }.map { a in
      "notification #\(a.index) was not delivered to \(a.url) (\(a.outcome)); kept for 'notifications deliver --retry'"
    }
  }

  package static let defaultTimeout: TimeInterval = 10
  package static let bodyLimit = 64 * 1024
  package static let userAgent = "storesim (App Store Server Notifications V2 simulator)"

  /// One POST's outcome (see `HTTPAttempt`).
  package typealias Attempt = HTTPAttempt

  /// POSTs `body` to `url` once. Touches no store; safe to call from any thread.
  package static func post(
    _ body: String, to url: HTTPURL, timeout: TimeInterval = defaultTimeout, bodyLimit: Int = bodyLimit
  ) -> Attempt {
    let timeout = max(timeout, 0.001)
    let attempt: Attempt
    switch url.scheme {
    case .http:
      attempt = HTTPClient.post(Array(body.utf8), to: url, timeout: timeout, bodyLimit: bodyLimit, userAgent: userAgent)
    case .https:
      attempt = HTTPSClient.post(Data(body.utf8), to: url, timeout: timeout, bodyLimit: bodyLimit, userAgent: userAgent)
    }
    return classify(attempt)
  }

  /// Gives a 3xx its redirect reason (if the client did not), and a reason to a 1xx final status
  /// and to 207-299 (2xx the App Store does not count as success).
  package static func classify(_ attempt: Attempt) -> Attempt {
    guard let status = attempt.status else { return attempt }
    var result = attempt
    if (300..<400).contains(status) {
      if result.error?.hasPrefix("redirect") != true {
        result.error = "redirect (HTTP \(status)) not followed"
      }
    } else if status < 200 {
      result.error = "unexpected final status HTTP \(status)"
    } else if (207..<300).contains(status) {
      result.error = "HTTP \(status) is not a success for the App Store (200-206)"
    }
    return result
  }

  /// The notifications a change caused (those after the first `count`), to deliver to the
  /// session's delivery URL; none without one, or when `skip` (the `notifications` command
  /// delivers by itself).
  package static func planned(_ store: Store, since count: Int, skip: Bool = false) -> [PlannedDelivery] {
    guard !skip, let url = store.state.deliveryURL, store.notifications.count > count else { return [] }
    return (count..<store.notifications.count).map { PlannedDelivery(store, index: $0, url: url) }
  }

  /// Delivery in one step: the planned notifications are posted (`send`) with no lock held, so
  /// a slow or silent server never holds up other users of the session, then every attempt is
  /// recorded on the store `recording` gives (a short unit of work under the session's lock, or
  /// a store in memory): one record per attempt, kept on a notification still at its index
  /// (one that a reset has since replaced gets no record). Returns the records.
  package static func deliver<Failure: Error>(
    _ planned: [PlannedDelivery],
    recording: ((inout Store) -> [NotificationDelivery]) throws(Failure) -> [NotificationDelivery]
  ) throws(Failure) -> [NotificationDelivery] {
    guard !planned.isEmpty else { return [] }
    let attempts = send(planned)
    return try recording { store in record(planned, attempts, in: &store) }
  }

  /// Records what `send` attempted on the store (see `deliver`).
  static func record(
    _ planned: [PlannedDelivery], _ attempts: [Attempt], in store: inout Store
  ) -> [NotificationDelivery] {
    var records: [NotificationDelivery] = []
    for (plan, attempt) in zip(planned, attempts) {
      let record = NotificationDelivery(
        index: plan.index, url: plan.url, httpStatus: attempt.status, error: attempt.error, date: store.now)
      records.append(record)
      guard plan.index < store.notifications.count, store.notifications[plan.index] == plan.notification else {
        continue
      }
      store.recordDelivery(record)
    }
    return records
  }

  /// POSTs planned deliveries in order (each URL's run a batch, see `post(bodies:to:)`).
  package static func send(_ planned: [PlannedDelivery], timeout: TimeInterval = defaultTimeout) -> [Attempt] {
    var attempts: [Attempt] = []
    var start = 0
    while start < planned.count {
      var end = start + 1
      while end < planned.count && planned[end].url == planned[start].url { end += 1 }
      attempts += post(
        bodies: planned[start..<end].map { (index: $0.index, body: $0.body) }, to: planned[start].url, timeout: timeout)
      start = end
    }
    return attempts
  }

  /// POSTs each body to `url` in order; touches no store. An invalid `url` fails every attempt
  /// with the reason. After an attempt times out, the rest of the batch is not sent (each would
  /// wait the full timeout) and fails with a reason saying so, so all stay kept for retry.
  package static func post(
    bodies: [(index: Int, body: String)], to url: String, timeout: TimeInterval = defaultTimeout
  ) -> [Attempt] {
    let target: HTTPURL
    do { target = try HTTPURL(url) } catch {
      return bodies.map { _ in Attempt(status: nil, error: "invalid URL: \(error.reason)") }
    }
    var attempts: [Attempt] = []
    var timedOut: Int?
    for item in bodies {
      if let timedOut {
        attempts.append(Attempt(status: nil, error: "not sent: the post of #\(timedOut) to this URL timed out"))
        continue
      }
      let attempt = post(item.body, to: target, timeout: timeout)
      if attempt.status == nil, attempt.error?.hasPrefix("timed out") == true { timedOut = item.index }
      attempts.append(attempt)
    }
    return attempts
  }
}

extension HTTPAttempt {
  /// HTTP 200-206, what the App Store counts as success (as `NotificationDelivery.succeeded`).
  package var succeeded: Bool { status.map { (200...206).contains($0) } ?? false }
}

/// A notification to POST: planned under the session's lock, sent after it.
package struct PlannedDelivery {
  package var index: Int
  package var notification: ServerNotification
  package var url: String
  /// `{"signedPayload": "..."}`.
  package var body: String

  package init(_ store: Store, index: Int, url: String) {
    self.index = index
    notification = store.notifications[index]
    self.url = url
    body = store.signedBody(notification).rendered(pretty: false)
  }
}
