import Foundation
import StoreSim
import StoreSimCrypto

/// Notification history, test notifications and their status.
extension ServerAPI {
  /// Request a Test Notification: a TEST notification, delivered to the session's delivery URL.
  package static func requestTestNotification(_ store: Store) throws -> APIResponse {
    guard store.state.deliveryURL != nil else { throw APIError.serverNotificationURLNotFound }
    var changed = store
    let token = changed.sendTestNotification().value
    var response = APIResponse.json(.object(["testNotificationToken": .string(token)]))
    response.changed = changed
    return response
  }

  /// Get Test Notification Status: the signed TEST notification and its send attempts; 404
  /// until an attempt was made.
  package static func testNotificationStatus(_ token: String, _ store: Store) throws -> APIResponse {
    guard !token.isEmpty, token.utf8.count <= 128 else { throw APIError.invalidTestNotificationToken }
    guard let record = store.serverRecords.testNotifications.first(where: { $0.token == token }),
      record.index < store.notifications.count
    else {
      throw APIError.testNotificationNotFound
    }
    let attempts = store.appStoreAttempts(of: record.index)
    guard !attempts.isEmpty else { throw APIError.testNotificationNotFound }
    return .json(.object(sentNotification(record.index, attempts: attempts, store: store)))
  }

  /// A notification as Apple lists it: `signedPayload`, its `sendAttempts` (the App Store's:
  /// the first attempt and Production's retries, at most six; never the tester's resends nor
  /// injected duplicates) and the deprecated `firstSendAttemptResult` (the first attempt's).
  package static func sentNotification(
    _ index: Int, attempts: [NotificationDelivery], store: Store
  ) -> [String: JSONOutput] {
    var item: [String: JSONOutput] = [
      "signedPayload": .string(JWS.sign(store.payload(store.notifications[index]), signer: store.state.signer)),
      "sendAttempts": .array(
        attempts.prefix(6).map { d in
          .object([
            "attemptDate": .int(d.date.epochMilliseconds),
            "sendAttemptResult": .string(sendAttemptResult(d)),
          ])
        }),
    ]
    if let first = attempts.first { item["firstSendAttemptResult"] = .string(sendAttemptResult(first)) }
    return item
  }

  /// Get Notification History: the notifications storesim attempted to deliver, signed in
  /// [`startDate`, `endDate`) (virtual dates), filtered by type and subtype or by the customer
  /// of a transaction, or to those never delivered, 20 a page.
  package static func notificationHistory(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let body = try RequestBody(r.body)
    let filter = try NotificationHistoryFilter(body, store: store)
    let scope = digest(String(decoding: r.body, as: UTF8.self))
    var offset = 0
    if let token = r.value("paginationToken") {
      let parts = token.split(separator: ".", omittingEmptySubsequences: false)
      guard parts.count == 2, parts[0] == scope, let n = Int(parts[1]), n >= 0 else {
        throw APIError.invalidPaginationToken
      }
      offset = n
    }
    var attempts: [Int: [NotificationDelivery]] = [:]
    for d in store.state.deliveryLog ?? [] where d.isAppStoreAttempt { attempts[d.index, default: []].append(d) }
    let matches = try filter.matches(store, attempts: attempts)
    let page = Page(matches, offset: offset, size: notificationPageSize)
    let items: [JSONOutput] = page.items.map {
      .object(sentNotification($0, attempts: attempts[$0] ?? [], store: store))
    }
    return .json(
      .object([
        "notificationHistory": .array(items),
        "hasMore": .bool(page.hasMore),
        "paginationToken": page.hasMore ? .string("\(scope).\(page.next)") : nil,
      ]))
  }

  /// The attempt's `sendAttemptResult`: the one recorded when it was made, or (older session
  /// files) one read from its status and reason.
  package static func sendAttemptResult(_ d: NotificationDelivery) -> String {
    if let result = d.result { return result }
    if d.succeeded { return "SUCCESS" }
    if d.httpStatus != nil { return "UNSUCCESSFUL_HTTP_RESPONSE_CODE" }
    let reason = (d.error ?? "").lowercased()
    if reason.contains("timed out") { return "TIMED_OUT" }
    if reason.contains("redirect") { return "CIRCULAR_REDIRECT" }
    if reason.contains("tls") || reason.contains("certificate") || reason.contains("ssl") { return "TLS_ISSUE" }
    if reason.contains("closed") { return "PREMATURE_CLOSE" }
    if reason.contains("refused") || reason.contains("unreachable") || reason.contains("resolve") {
      return "SOCKET_ISSUE"
    }
    if reason.contains("no response") { return "NO_RESPONSE" }
    return "OTHER"
  }
}

/// The request of Get Notification History: dates, and one filter (a type with an optional
/// subtype, or a customer's transaction), and `onlyFailures`.
package struct NotificationHistoryFilter {
  package var start: Date
  package var end: Date
  package var type: NotificationTypeV2?
  package var subtype: Subtype?
  /// The customer whose notifications are asked for (`transactionId`).
  package var customer: CustomerID?
  package var onlyFailures: Bool

  /// Days of history kept: 180 in production, 30 elsewhere (Apple's sandbox).
  package static func retentionDays(_ environment: StoreEnvironment) -> Int { environment == .production ? 180 : 30 }

  /// The subtypes each notification type takes (Apple's `notificationType` page); a type not
  /// listed takes none.
  package static let subtypes: [NotificationTypeV2: Set<Subtype>] = [
    .subscribed: [.initialBuy, .resubscribe],
    .didChangeRenewalPref: [.upgrade, .downgrade],
    .didChangeRenewalStatus: [.autoRenewEnabled, .autoRenewDisabled],
    .offerRedeemed: [.initialBuy, .resubscribe, .upgrade, .downgrade],
    .didRenew: [.billingRecovery],
    .expired: [.voluntary, .billingRetry, .priceIncrease, .productNotForSale],
    .didFailToRenew: [.gracePeriod],
    .priceIncrease: [.pending, .accepted],
    .renewalExtension: [.summary, .failure],
    .externalPurchaseToken: [.unreported],
  ]

  package init(_ body: RequestBody, store: Store) throws {
    guard body.has("startDate") else { throw APIError.invalidStartDate }
    guard body.has("endDate") else { throw APIError.invalidEndDate }
    let start = try body.date("startDate", .invalidStartDate)!
    let end = try body.date("endDate", .invalidEndDate)!
    if start >= end { throw APIError.startDateAfterEndDate }
    let days = Self.retentionDays(store.state.environment)
    if start < store.now.addingTimeInterval(-Double(days) * 86_400) {
      throw APIError.startDateTooFarInPast.saying(
        "Invalid request. The start date is earlier than the allowed start date: notification history is kept \(days) days in this environment."
      )
    }
    (self.start, self.end) = (start, end)
    type = try body.string("notificationType", .invalidNotificationType).map { text in
      guard let t = NotificationTypeV2(rawValue: text) else { throw APIError.invalidNotificationType }
      return t
    }
    subtype = try body.string("notificationSubtype", .invalidNotificationType).map { text in
      guard let s = Subtype(rawValue: text) else { throw APIError.invalidNotificationType }
      return s
    }
    if let subtype {
      guard let type, Self.subtypes[type]?.contains(subtype) == true else {
        throw APIError.invalidNotificationType.saying(
          "Invalid request. The notification subtype \(subtype.rawValue) needs a notification type that takes it.")
      }
    }
    let transaction = try body.string("transactionId", .invalidTransactionID)
    if transaction != nil && type != nil { throw APIError.multipleFiltersSupplied }
    customer = try transaction.map { try ServerAPI.customer($0, store) }
    onlyFailures = try body.bool("onlyFailures", .generalBadRequest) ?? false
  }

  /// The indexes of the notifications that pass: only those storesim attempted to deliver
  /// (Apple lists the notifications it attempted to send).
  package func matches(_ store: Store, attempts: [Int: [NotificationDelivery]]) throws -> [Int] {
    var matches: [Int] = []
    for (i, n) in store.notifications.enumerated() {
      guard let tries = attempts[i], !tries.isEmpty else { continue }
      guard n.signedDate >= start, n.signedDate < end else { continue }
      if let type, n.notificationType != type { continue }
      if let subtype, n.subtype != subtype { continue }
      if let customer, n.customer != customer { continue }
      if onlyFailures && tries.contains(where: \.succeeded) { continue }
      matches.append(i)
    }
    return matches
  }
}
