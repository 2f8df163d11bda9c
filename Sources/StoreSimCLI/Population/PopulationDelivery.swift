import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSync

/// `populate --deliver-url URL --rate R`: a load test of a team's webhook. The population's
/// notifications are POSTed as Apple posts them (`Delivery.post`: `{"signedPayload": …}`, the
/// ten-second deadline, no redirects) in event order, at most `rate` a second of wall time, one
/// after another: the order and Apple's retry rules are `DeliveryPlan`'s (first attempts at
/// their `signedDate`; in a Production session a failed attempt is tried again 1, 12, 24, 48
/// and 72 hours later in the population's time, within its months, six attempts at most; other
/// environments try once), on one connection kept alive to the receiver while it keeps it (as a
/// change's deliveries are: `HTTPKeptConnections`). Bounded: at most `limit` attempts, and Ctrl-C stops it with the
/// summary of what was sent. The attempts are summarised, not recorded in the session.
struct PopulationDelivery {
  var url: String
  /// Attempts a second of wall time, at most.
  var rate: Double
  /// The most attempts made (nil: every one the plan gives).
  var limit: Int?

  /// What a delivery did.
  struct Summary: Equatable {
    var attempts = 0
    var succeeded = 0
    /// Failed attempts by Apple's `sendAttemptResult`.
    var failures: [String: Int] = [:]
    /// Notifications with a successful attempt.
    var delivered = 0
    /// Notifications whose first attempt was made.
    var notifications = 0
    /// Milliseconds of each attempt, in order.
    var latencies: [Float] = []
    var seconds: Double = 0
    /// Ended by Ctrl-C or the limit before the plan's last attempt.
    var stopped: String?

    var failed: Int { attempts - succeeded }

    /// The latency below which `percent` of attempts fall (nearest rank), in milliseconds.
    func percentile(_ percent: Double) -> Double {
      guard !latencies.isEmpty else { return 0 }
      let sorted = latencies.sorted()
      let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
      return Double(sorted[max(0, min(sorted.count - 1, rank - 1))])
    }
  }

  /// Sends the notifications after the first `count` of `store` (the population's), pacing the
  /// attempts by `clock` and `sleep` (nanoseconds); `stop` is asked before each attempt; `post`
  /// makes an attempt (by default `Delivery.post` on the run's kept connection).
  func run(
    _ store: Store, since count: Int, clock: WaitClock = .system,
    sleep: (UInt64) -> Void = { usleep(UInt32(min($0 / 1000, 1_000_000))) },
    stop: () -> Bool = { false },
    post: ((String, HTTPURL) -> HTTPAttempt)? = nil
  ) throws -> Summary {
    let target = try HTTPURL(url)
    let connections = HTTPKeptConnections()
    defer { connections.closeAll() }
    let post = post ?? { Delivery.post($0, to: $1, keeping: connections) }
    var plan = DeliveryPlan(store, newSince: count, to: url)
    var summary = Summary()
    var started = Set<Int>()
    var succeeded = Set<Int>()
    let start = clock.nanoseconds()
    let interval = 1e9 / rate
    while let due = plan.next() {
      if let limit, summary.attempts >= limit {
        summary.stopped = "after \(limit) attempts (--deliver-limit)"
        break
      }
      if stop() {
        summary.stopped = "interrupted after \(summary.attempts) attempts"
        break
      }
      let at = start + UInt64(Double(summary.attempts) * interval)
      while case let now = clock.nanoseconds(), now < at { sleep(at - now) }
      let sent = clock.nanoseconds()
      let attempt: HTTPAttempt
      if plan.isOutage(at: due.date) {
        attempt = HTTPAttempt(status: nil, error: "connection refused (the receiver is down: an outage fault)")
      } else {
        // Signed again for each attempt: the signature is deterministic, so a retry sends the
        // same bytes, and no body is kept.
        attempt = post(store.signedBody(store.notifications[due.index]).rendered(pretty: false), target)
      }
      summary.latencies.append(Float(Double(clock.nanoseconds() - sent) / 1e6))
      let result = Delivery.sendAttemptResult(attempt)
      plan.record(due, succeeded: result == "SUCCESS")
      summary.attempts += 1
      if started.insert(due.index).inserted { summary.notifications += 1 }
      if result == "SUCCESS" {
        summary.succeeded += 1
        if succeeded.insert(due.index).inserted { summary.delivered += 1 }
      } else {
        summary.failures[result, default: 0] += 1
      }
    }
    summary.seconds = Double(clock.nanoseconds() - start) / 1e9
    return summary
  }

  static func number(_ v: Double) -> JSONOutput { .number(String(format: "%.3f", v)) }

  /// The summary as one line and as JSON.
  static func report(_ s: Summary, url: String) -> (line: String, json: JSONOutput) {
    let rate = s.seconds > 0 ? Double(s.attempts) / s.seconds : 0
    let ms = { (v: Double) in String(format: "%.1f", v) }
    var line =
      "delivered \(s.delivered) of \(s.notifications) notifications to \(url) in \(String(format: "%.1f", s.seconds)) s "
      + "(\(String(format: "%.1f", rate))/s): \(s.attempts) attempts, \(s.succeeded) succeeded, \(s.failed) failed"
    if !s.failures.isEmpty {
      line += " (" + s.failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }
    line +=
      "; latency ms p50 \(ms(s.percentile(50))), p90 \(ms(s.percentile(90))), p99 \(ms(s.percentile(99))), "
      + "max \(ms(s.percentile(100)))"
    if let stopped = s.stopped { line += "; stopped \(stopped)" }
    let json = JSONOutput.object([
      "url": .string(url), "notifications": .int(Int64(s.notifications)), "delivered": .int(Int64(s.delivered)),
      "attempts": .int(Int64(s.attempts)), "succeeded": .int(Int64(s.succeeded)), "failed": .int(Int64(s.failed)),
      "failures": .object(s.failures.mapValues { .int(Int64($0)) }),
      "seconds": number(s.seconds),
      "latencyMs": .object([
        "p50": number(s.percentile(50)), "p90": number(s.percentile(90)), "p99": number(s.percentile(99)),
        "max": number(s.percentile(100)),
      ]),
      "stopped": s.stopped.map(JSONOutput.string) ?? .null,
    ])
    return (line, json)
  }
}
