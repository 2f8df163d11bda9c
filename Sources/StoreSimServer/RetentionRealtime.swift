import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSync

/// POSTs Retention Messaging realtime requests (`{"signedPayload": "..."}`) to the developer's
/// Get Retention Message endpoint and runs performance tests of it.
package enum RetentionRealtime {
  /// Apple's deadline: 700 ms.
  package static let defaultTimeout: TimeInterval = 0.7
  /// A realtime answer is small: at most this much of it is read.
  package static let bodyLimit = 64 * 1024

  /// POSTs `body` to `url` with one total deadline; what came back and how long it took (ms).
  package static func send(_ body: String, to url: String, timeout: TimeInterval) -> (RealtimeAnswer, Int) {
    let target: HTTPURL
    do { target = try HTTPURL(url) } catch { return (.failed("invalid URL: \(error.reason)"), 0) }
    let start = WaitClock.system.nanoseconds()
    let attempt = Delivery.post(body, to: target, timeout: timeout, bodyLimit: bodyLimit)
    let ms = Int((WaitClock.system.nanoseconds() &- start) / 1_000_000)
    guard let status = attempt.status else {
      let why = attempt.error ?? "no response"
      return (why.hasPrefix("timed out") ? .timeout : .failed(why), ms)
    }
    if !attempt.complete {
      return (
        Double(ms) >= timeout * 1000 ? .timeout : .failed("the connection closed in the middle of the answer"), ms
      )
    }
    return (.response(status: status, body: attempt.body), ms)
  }

  /// Apple's `SendAttemptResult` for an answer (`SUCCESS` when it is valid).
  package static func sendAttemptResult(_ answer: RealtimeAnswer, _ call: RetentionCall, _ store: Store) -> String {
    switch answer {
    case .timeout: return "TIMED_OUT"
    case .failed: return "NO_RESPONSE"
    case .notConfigured: return "OTHER"
    case .response(let status, let body):
      if status != 200 { return "UNSUCCESSFUL_HTTP_RESPONSE_CODE" }
      if case .failure = RetentionAnswerCheck(store: store, call: call).validate(body) { return "INVALID_RESPONSE" }
      return "SUCCESS"
    }
  }
}

extension ServerAPI {
  /// The performance test storesim runs: ten requests one after another, each within 700 ms,
  /// 90 % of them valid to pass.
  package static let performanceTestRequests = 10
  package static let performanceTestSuccessRate = 90

  /// Initiate Performance Test: on a subscription's original transaction id; storesim sends
  /// the requests at once and answers when they are done (the result is then final).
  package static func initiatePerformanceTest(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let body = try RequestBody(r.body)
    guard let text = try body.string("originalTransactionId", .invalidTransactionID, required: true) else {
      throw APIError.invalidTransactionID
    }
    let (customer, t) = try singlePurchase(
      text, store, invalid: .invalidTransactionID,
      notFound: .invalidPerformanceTestRequest.saying(
        "Invalid request. The performance test request is invalid: no purchase has this originalTransactionId."))
    if t.ownershipType == .familyShared { throw APIError.familyTransactionNotSupported }
    guard t.originalID == t.id else { throw APIError.transactionIDIsNotOriginalTransactionID }
    guard t.productType == .autoRenewable, let group = store.configuration.product(t.productID)?.subscription?.groupID
    else {
      throw APIError.invalidPerformanceTestRequest.saying(
        "Invalid request. The performance test request is invalid: the transaction is not an auto-renewable subscription."
      )
    }
    guard let url = store.retentionMessaging.realtimeURL else {
      throw APIError.invalidPerformanceTestRequest.saying(
        "Invalid request. The performance test request is invalid: no realtime URL is configured.")
    }
    let number = store.retentionMessaging.performanceTests.count + 1
    let requestID = identifier("7e570000", number)
    let target = RetentionTarget(
      customer: customer, originalTransactionID: t.id, productID: t.productID, groupID: group, willAutoRenew: true)
    var times: [Int] = []
    var failures: [String: Int] = [:]
    var successes = 0
    for i in 0..<performanceTestRequests {
      var call = store.retentionCall(target, locale: "en-US")
      call.requestIdentifier = identifier(String(format: "7e57%04x", number % 0x10000), i + 1)
      let (answer, ms) = RetentionRealtime.send(
        store.realtimeRequestBody(call).rendered(pretty: false), to: url, timeout: RetentionRealtime.defaultTimeout)
      if case .response = answer { times.append(ms) }
      let result = RetentionRealtime.sendAttemptResult(answer, call, store)
      if result == "SUCCESS" { successes += 1 } else { failures[result, default: 0] += 1 }
    }
    let rate = successes * 100 / performanceTestRequests
    let test = RetentionPerformanceTest(
      requestID: requestID, originalTransactionID: t.id, target: url, maxConcurrentRequests: 1,
      totalRequests: performanceTestRequests,
      totalDuration: performanceTestRequests * Int(RetentionRealtime.defaultTimeout * 1000),
      responseTimeThreshold: Int(RetentionRealtime.defaultTimeout * 1000),
      successRateThreshold: performanceTestSuccessRate, result: rate >= performanceTestSuccessRate ? "PASS" : "FAIL",
      successRate: rate, responseTimes: times, failures: failures)
    var response = APIResponse.json(.object(["config": config(test), "requestId": .string(requestID)]))
    var changed = store
    changed.updateRetentionMessaging { $0.performanceTests.append(test) }
    response.changed = changed
    return response
  }

  /// A UUID from a prefix of 8 hex digits and a number.
  static func identifier(_ prefix: String, _ n: Int) -> String {
    let hex = String(n, radix: 16)
    return prefix + "-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }

  static func config(_ t: RetentionPerformanceTest) -> JSONOutput {
    .object([
      "maxConcurrentRequests": .int(Int64(t.maxConcurrentRequests)), "totalRequests": .int(Int64(t.totalRequests)),
      "totalDuration": .int(Int64(t.totalDuration)), "responseTimeThreshold": .int(Int64(t.responseTimeThreshold)),
      "successRateThreshold": .int(Int64(t.successRateThreshold)),
    ])
  }

  /// Get Performance Test Results.
  package static func performanceTestResult(_ requestID: String, _ store: Store) throws -> APIResponse {
    guard UUID(uuidString: requestID) != nil else { throw APIError.invalidRequestID }
    guard let t = store.retentionMessaging.performanceTests.first(where: { $0.requestID == requestID.lowercased() })
    else { throw APIError.performanceTestRunNotFound }
    let sorted = t.responseTimes.sorted()
    func percentile(_ p: Int) -> JSONOutput? {
      sorted.isEmpty ? nil : .int(Int64(sorted[min(sorted.count - 1, (sorted.count * p + 99) / 100 - 1)]))
    }
    return .json(
      .object([
        "config": config(t), "target": .string(t.target), "result": .string(t.result),
        "successRate": .int(Int64(t.successRate)), "numPending": .int(0),
        "responseTimes": sorted.isEmpty
          ? nil
          : .object([
            "average": .int(Int64(sorted.reduce(0, +) / sorted.count)), "p50": percentile(50), "p90": percentile(90),
            "p95": percentile(95), "p99": percentile(99),
          ]),
        "failures": .object(t.failures.mapValues { .int(Int64($0)) }),
      ]))
  }
}
