import Foundation
import StoreSim
import StoreSimHTTP

/// POSTs notifications as Apple does: `{"signedPayload": "..."}` with a JSON content type, on
/// the virtual clock (`DeliveryPlan`: first attempts at their dates, Production's retries at 1,
/// 12, 24, 48 and 72 hours, storesim's faults when set), each attempt recorded with Apple's
/// `sendAttemptResult`.
///
/// Transport rules (the same for `http` and `https`):
/// - every attempt has one total deadline (resolve + connect + send + receive), `defaultTimeout`
///   (10 s; Apple documents none; rule notification-post-times-out-after-ten-seconds);
/// - redirects are never followed: a 3xx is a failed attempt (`CIRCULAR_REDIRECT`);
/// - at most `bodyLimit` bytes of a response body are read, then the connection is dropped;
///   the attempt counts by its status;
/// - a run of deliveries (`send`, `post(bodies:to:)`) keeps one connection alive to each
///   receiver (host and port; HTTP/1.1 keep-alive), as long as every exchange on it is whole:
///   a timeout, an error, a cut or unframed answer or `Connection: close` drops it, and the
///   next attempt connects again (`HTTPKeptConnections`). A single `post` uses a connection of
///   its own (`Connection: close`).
///
/// `http` goes through `HTTPClient` (POSIX sockets); `https` through URLSession with a delegate
/// that refuses redirects and cancels after the body limit (a URLSession per POST: kept
/// connections are `http`'s only).
package enum Delivery {
  /// What every front door says of the notifications a change did not deliver (without
  /// `warning: `): one sentence per notification, of its last attempt (a notification
  /// delivered by a later retry of the same change is not named), at most `warningLimit` of
  /// them and then how many more.
  package static func undeliveredWarnings(_ records: [NotificationDelivery]) -> [String] {
    var last: [Int: NotificationDelivery] = [:]
    var order: [Int] = []
    for a in records {
      if last[a.index] == nil { order.append(a.index) }
      if a.isAppStoreAttempt || last[a.index] == nil { last[a.index] = a }
    }
    let failed = order.compactMap { last[$0] }.filter { !$0.succeeded }
    var lines = failed.prefix(warningLimit).map { a in
      let what = "notification #\(a.index) was not delivered to \(a.url) (\(a.outcome))"
      if let next = a.nextAttempt { return what + "; the App Store retries it at \(ISO8601.string(next))" }
      return what + "; kept for 'notifications deliver --retry'"
    }
    if failed.count > warningLimit {
      lines.append("\(failed.count - warningLimit) more notifications were not delivered; see 'storesim notifications'")
    }
    return lines
  }

  /// The most notifications a change's warnings name one by one.
  package static let warningLimit = 20

  package static let defaultTimeout: TimeInterval = 10
  package static let bodyLimit = 64 * 1024
  package static let userAgent = "storesim (App Store Server Notifications V2 simulator)"

  /// One POST's outcome (see `HTTPAttempt`).
  package typealias Attempt = HTTPAttempt

  /// POSTs `body` to `url` once, on a connection of its own, or on the one `connections` keeps
  /// to the receiver (`http`). Touches no store; safe to call from any thread (with
  /// `connections` used by one thread at a time).
  package static func post(
    _ body: String, to url: HTTPURL, timeout: TimeInterval = defaultTimeout, bodyLimit: Int = bodyLimit,
    keeping connections: HTTPKeptConnections? = nil
  ) -> Attempt {
    let timeout = max(timeout, 0.001)
    let attempt: Attempt
    switch url.scheme {
    case .http:
      if let connections {
        attempt = HTTPClient.post(
          Array(body.utf8), to: url, timeout: timeout, bodyLimit: bodyLimit, userAgent: userAgent,
          keeping: connections)
      } else {
        attempt = HTTPClient.post(
          Array(body.utf8), to: url, timeout: timeout, bodyLimit: bodyLimit, userAgent: userAgent)
      }
    case .https:
      attempt = HTTPSClient.post(Data(body.utf8), to: url, timeout: timeout, bodyLimit: bodyLimit, userAgent: userAgent)
    }
    return classify(attempt)
  }

  /// Gives a 3xx its redirect reason (if the client did not), and a reason to a 1xx final status,
  /// to 207-299 (2xx the App Store does not count as success) and to an unsupported charset.
  package static func classify(_ attempt: Attempt) -> Attempt {
    guard let status = attempt.status else { return attempt }
    var result = attempt
    let kind = attempt.kind
    if (300..<400).contains(status) {
      if result.error?.hasPrefix("redirect") != true {
        result.error = "redirect (HTTP \(status)) not followed"
      }
    } else if status < 200 {
      result.error = "unexpected final status HTTP \(status)"
    } else if (207..<300).contains(status) {
      result.error = "HTTP \(status) is not a success for the App Store (200-206)"
    } else if kind == .unsupportedCharset {
      result.error = "unsupported charset '\(HTTPAttempt.charset(attempt.contentType) ?? "")' in the answer"
    } else if kind == .closedInResponse, result.error == nil {
      result.error = "connection closed in the middle of the response"
    }
    return result
  }

  /// Apple's `sendAttemptResult` for an attempt (rule every-send-attempt-result-is-reachable).
  package static func sendAttemptResult(_ attempt: Attempt) -> String {
    switch attempt.kind {
    case .answered:
      let status = attempt.status ?? 0
      return (200...206).contains(status) ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case .redirect: return "CIRCULAR_REDIRECT"
    case .timedOut: return "TIMED_OUT"
    case .closedWithoutResponse: return "NO_RESPONSE"
    case .closedInResponse: return "PREMATURE_CLOSE"
    case .invalidResponse: return "INVALID_RESPONSE"
    case .unsupportedCharset: return "UNSUPPORTED_CHARSET"
    case .tls: return "TLS_ISSUE"
    case .socket: return "SOCKET_ISSUE"
    case .other: return "OTHER"
    }
  }

  /// The deliveries a change causes (those after the first `count` to the session's delivery
  /// URL, held ones come due, Production's retries fallen due); none when `skip` (the
  /// `notifications` command delivers by itself).
  package static func planned(_ store: Store, since count: Int, skip: Bool = false) -> PlannedDeliveries {
    guard !skip else { return PlannedDeliveries(store, DeliveryPlan(store, explicit: [])) }
    return PlannedDeliveries(store, DeliveryPlan(store, newSince: count, to: store.state.deliveryURL))
  }

  /// Delivery in one step: the planned notifications are posted (`send`) with no lock held, so
  /// a slow or silent server never holds up other users of the session, then every attempt is
  /// recorded on the store `recording` gives (a short unit of work under the session's lock, or
  /// a store in memory): one record per attempt, kept on a notification still at its index
  /// (one that a reset has since replaced gets no record). Returns the records.
  package static func deliver<Failure: Error>(
    _ planned: PlannedDeliveries, timeout: TimeInterval = defaultTimeout,
    recording: ((inout Store) -> [NotificationDelivery]) throws(Failure) -> [NotificationDelivery]
  ) throws(Failure) -> [NotificationDelivery] {
    guard !planned.isEmpty else { return [] }
    var planned = planned
    let records = send(&planned, timeout: timeout)
    return try recording { store in record(planned, records, in: &store) }
  }

  /// Records what `send` attempted on the store (see `deliver`), and the first attempts a
  /// fault still holds.
  static func record(
    _ planned: PlannedDeliveries, _ records: [NotificationDelivery], in store: inout Store
  ) -> [NotificationDelivery] {
    for record in records {
      guard record.index < store.notifications.count, record.index < planned.notifications.count,
        store.notifications[record.index] == planned.notifications[record.index]
      else { continue }
      store.recordDelivery(record)
    }
    store.keepHeldDeliveries(planned.plan)
    return records
  }

  /// POSTs every delivery the plan gives, in the order of their virtual dates; touches no
  /// store. Each notification's body is signed once (its retries send the same bytes). An
  /// invalid URL fails every attempt to it with the reason; after an attempt to a URL times
  /// out, the rest of the run's attempts to it are not sent (each would wait the full timeout)
  /// and fail with a reason saying so. An outage fault fails an attempt without sending. One
  /// connection is kept alive to each receiver for the run (see the transport rules above).
  package static func send(
    _ planned: inout PlannedDeliveries, timeout: TimeInterval = defaultTimeout,
    keeping connections: HTTPKeptConnections = HTTPKeptConnections()
  )
    -> [NotificationDelivery]
  {
    defer { connections.closeAll() }
    var records: [NotificationDelivery] = []
    var bodies: [Int: String] = [:]
    var targets: [String: (url: HTTPURL?, reason: String)] = [:]
    var timedOut: [String: Int] = [:]
    while let due = planned.plan.next() {
      let attempt: Attempt
      let outage = planned.plan.isOutage(at: due.date)
      if outage {
        attempt = Attempt(status: nil, error: "connection refused (the receiver is down: an outage fault)")
      } else if let first = timedOut[due.url] {
        attempt = Attempt(status: nil, error: "not sent: the post of #\(first) to this URL timed out")
      } else {
        if targets[due.url] == nil {
          do { targets[due.url] = (try HTTPURL(due.url), "") } catch { targets[due.url] = (nil, error.reason) }
        }
        if let url = targets[due.url]?.url {
          let body = bodies[due.index] ?? planned.body(due.index)
          bodies[due.index] = body
          attempt = post(body, to: url, timeout: timeout, keeping: connections)
        } else {
          attempt = Attempt(status: nil, error: "invalid URL: \(targets[due.url]?.reason ?? "")")
        }
      }
      let result = sendAttemptResult(attempt)
      if result == "TIMED_OUT", !outage, timedOut[due.url] == nil { timedOut[due.url] = due.index }
      let next = planned.plan.record(due, succeeded: result == "SUCCESS")
      records.append(
        NotificationDelivery(
          index: due.index, url: due.url, httpStatus: attempt.status, error: attempt.error, date: due.date,
          result: result, origin: due.origin,
          fault: outage ? (due.fault.map { $0 + "; outage" } ?? "outage") : due.fault,
          nextAttempt: result == "SUCCESS" ? nil : next))
    }
    return records
  }
}

extension Delivery {
  /// POSTs each body to `url` in order, on one kept-alive connection while the receiver keeps
  /// it; touches no store. An invalid `url` fails every attempt with the reason. After an
  /// attempt times out, the rest of the batch is not sent (each would wait the full timeout)
  /// and fails with a reason saying so.
  package static func post(
    bodies: [(index: Int, body: String)], to url: String, timeout: TimeInterval = defaultTimeout,
    keeping connections: HTTPKeptConnections = HTTPKeptConnections()
  ) -> [Attempt] {
    defer { connections.closeAll() }
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
      let attempt = post(item.body, to: target, timeout: timeout, keeping: connections)
      if attempt.kind == .timedOut { timedOut = item.index }
      attempts.append(attempt)
    }
    return attempts
  }
}

extension HTTPAttempt {
  /// HTTP 200-206, what the App Store counts as success (as `NotificationDelivery.succeeded`).
  package var succeeded: Bool { Delivery.sendAttemptResult(self) == "SUCCESS" }
}

/// The deliveries of a change: planned under the session's lock (the plan and the notifications
/// as they were), sent after it.
package struct PlannedDeliveries {
  package var plan: DeliveryPlan
  /// The outbox when planned: bodies are signed from it, and a record is kept only on a
  /// notification still the same.
  package let notifications: [ServerNotification]
  private let store: Store

  package init(_ store: Store, _ plan: DeliveryPlan) {
    self.plan = plan
    self.store = store
    notifications = store.notifications
  }

  /// First attempts of the notifications `indexes` to `url` (or the tester's resends), made now,
  /// as `notifications deliver URL` makes them.
  package init(_ store: Store, indexes: [Int], to url: String, origin: DeliveryOrigin? = nil) {
    self.init(store, DeliveryPlan(store, explicit: indexes.map { (index: $0, url: url, origin: origin) }))
  }

  /// Nothing to send and nothing to keep.
  package var isEmpty: Bool { plan.isEmpty }

  /// `{"signedPayload": "..."}` of notification `index`.
  package func body(_ index: Int) -> String { store.signedBody(notifications[index]).rendered(pretty: false) }
}
