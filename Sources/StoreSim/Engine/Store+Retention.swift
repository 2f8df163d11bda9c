import Foundation
import StoreSimCrypto

/// The subscription a customer opens the cancel flow of (the subject of a realtime request).
package struct RetentionTarget: Sendable, Equatable {
  package var customer: CustomerID
  package var originalTransactionID: TransactionID
  /// The subscription's current product (`productId` of the request).
  package var productID: ProductID
  package var groupID: SubscriptionGroupID
  /// Whether it renews (only then is there a cancel button to press).
  package var willAutoRenew: Bool

  package init(
    customer: CustomerID, originalTransactionID: TransactionID, productID: ProductID, groupID: SubscriptionGroupID,
    willAutoRenew: Bool
  ) {
    self.customer = customer
    self.originalTransactionID = originalTransactionID
    self.productID = productID
    self.groupID = groupID
    self.willAutoRenew = willAutoRenew
  }
}

/// What the developer's server answered to a realtime request, as the HTTP client saw it.
package enum RealtimeAnswer: Sendable, Equatable {
  /// An HTTP status and the response body.
  case response(status: Int, body: [UInt8])
  /// No answer before the deadline.
  case timeout
  /// No answer at all (refused connection, reset, not HTTP).
  case failed(String)
  /// No realtime URL is configured: nothing was sent.
  case notConfigured
}

extension Store {
  /// The Retention Messaging state (empty when nothing was configured).
  package var retentionMessaging: RetentionMessaging { state.retentionMessaging ?? RetentionMessaging() }

  /// Changes the Retention Messaging state (the configuration endpoints validate first).
  package mutating func updateRetentionMessaging<R>(_ body: (inout RetentionMessaging) -> R) -> R {
    var value = retentionMessaging
    let result = body(&value)
    state.retentionMessaging = value
    return result
  }

  /// The customer's subscription in the group of `productID` that has not ended.
  package func retentionTarget(productID: ProductID, customer: CustomerID) throws(StoreError) -> RetentionTarget {
    let ci = try index(of: customer)
    let si = try activeSubscriptionIndex(ci, productID)
    let sub = self[ci, si]
    return RetentionTarget(
      customer: customer, originalTransactionID: sub.originalID, productID: sub.currentProductID,
      groupID: sub.groupID, willAutoRenew: sub.willAutoRenew)
  }

  /// The next call's `requestIdentifier`: a UUID made from the call's number, so a session
  /// replays to the same identifiers.
  package var nextRetentionRequestIdentifier: String {
    let hex = String(retentionMessaging.calls.count + 1, radix: 16)
    return "7e7e0000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }

  /// A new call for `target`, not yet recorded: its request identifier and date are now's.
  package func retentionCall(_ target: RetentionTarget, locale: String) -> RetentionCall {
    RetentionCall(
      requestIdentifier: nextRetentionRequestIdentifier, date: state.now, customer: target.customer,
      originalTransactionID: target.originalTransactionID, productID: target.productID, locale: locale,
      url: activeRealtimeURL)
  }

  /// The realtime URL the cancel flow calls: the configured one, except in a Production session
  /// until a performance test against it has passed (rule
  /// production-realtime-url-is-set-tested-then-active).
  package var activeRealtimeURL: String? {
    guard let url = retentionMessaging.realtimeURL else { return nil }
    guard state.environment == .production else { return url }
    return retentionMessaging.hasPassingTest(of: url) ? url : nil
  }

  /// `DecodedRealtimeRequestBody`, every field Apple lists: `appAppleId` is the session's
  /// (`init --app-apple-id`), 0 when none was given, as its receipts' `adam_id` (rule
  /// realtime-request-fields).
  package func realtimeRequestPayload(_ call: RetentionCall) -> JSONOutput {
    .object([
      "originalTransactionId": .string(String(call.originalTransactionID)),
      "appAppleId": .int(state.appAppleID ?? 0),
      "productId": .string(call.productID),
      "userLocale": .string(call.locale),
      "requestIdentifier": .string(call.requestIdentifier),
      "environment": .string(state.environment.rawValue),
      "signedDate": .int(call.date.epochMilliseconds),
    ])
  }

  /// What the App Store POSTs: `RealtimeRequestBody {"signedPayload": "<JWS>"}`.
  package func realtimeRequestBody(_ call: RetentionCall) -> JSONOutput {
    .object(["signedPayload": .string(JWS.sign(realtimeRequestPayload(call), signer: state.signer))])
  }

  /// Fills in the call's outcome and what is shown: the realtime answer when it is valid
  /// (`RetentionAnswerCheck`), else the default message of the product and locale when there
  /// is an approved one, else nothing.
  package func decide(_ call: RetentionCall, answer: RealtimeAnswer) -> RetentionCall {
    var call = call
    let check = RetentionAnswerCheck(store: self, call: call)
    switch answer {
    case .notConfigured:
      call.outcome =
        retentionMessaging.realtimeURL == nil
        ? "no realtime URL" : "realtime URL not active: no passing performance test"
    case .timeout: call.outcome = "timeout"
    case .failed(let why): call.outcome = "failed: \(why)"
    case .response(let status, let body):
      if status != 200 {
        call.outcome = "invalid: HTTP \(status), not 200"
      } else {
        switch check.validate(body) {
        case .success(let shown):
          call.outcome = "ok"
          call.shown = shown.kind
          call.messageIdentifier = shown.messageIdentifier
          call.alternateProductID = shown.alternateProductID
          call.offerProductID = shown.offerProductID
          call.offerIdentifier = shown.offerIdentifier
          return call
        case .failure(let rule):
          call.outcome = "invalid: \(rule.reason)"
        }
      }
    }
    // Apple's order after a failed request: App Store Connect's message (storesim has none),
    // then the default message of the product and locale, then nothing.
    let messaging = retentionMessaging
    if let d = messaging.defaultMessage(productID: call.productID, locale: call.locale),
      let m = messaging.message(d.messageIdentifier), messaging.isShowable(m)
    {
      call.fallback = "default"
      call.shown = "message"
      call.messageIdentifier = m.identifier
    } else {
      call.fallback = "none"
    }
    return call
  }

  /// Records a call (and the customer's answer to it).
  package mutating func recordRetentionCall(_ call: RetentionCall) {
    updateRetentionMessaging { $0.calls.append(call) }
  }
}
