import Foundation
import StoreSim

/// Notification history, test notifications and their status.
extension ServerAPI {
  /// Request a Test Notification: a TEST notification, delivered to the session's delivery URL.
  package static func requestTestNotification(store: Store) throws -> APIResponse {
    guard store.state.deliveryURL != nil else { throw APIError.serverNotificationURLNotFound }
    var changed = store
    let token = changed.sendTestNotification().value
    var response = APIResponse.json(.object(["testNotificationToken": .string(token)]))
    response.changed = changed
    return response
  }

  /// Get Test Notification Status: the signed TEST notification and its send attempts.
  package static func testNotificationStatus(_ token: String, store: Store) throws -> APIResponse {
    guard !token.isEmpty, token.count <= 128 else { throw APIError.invalidTestNotificationToken }
    guard let record = store.serverRecords.testNotifications.first(where: { $0.token == token }),
      record.index < store.notifications.count
    else {
      throw APIError.testNotificationNotFound
    }
    let attempts = (store.state.deliveryLog ?? []).filter { $0.index == record.index }
    return .json(.object(sentNotification(record.index, attempts: attempts, store: store)))
  }

  /// A notification as Apple lists it: `signedPayload` and its `sendAttempts`.
  package static func sentNotification(
    _ index: Int, attempts: [NotificationDelivery], store: Store
  ) -> [String: JSONOutput] {
    [
      "signedPayload": .string(JWS.sign(store.payload(store.notifications[index]), bundleID: store.state.bundleID)),
      "sendAttempts": .array(
        attempts.map { d in
          .object([
            "attemptDate": .int(d.date.epochMilliseconds),
            "sendAttemptResult": .string(sendAttemptResult(d)),
          ])
        }),
    ]
  }

  // MARK: Notification history

  package static let sendAttemptResults = [
    "SUCCESS", "TIMED_OUT", "TLS_ISSUE", "CIRCULAR_REDIRECT", "NO_RESPONSE", "SOCKET_ISSUE", "UNSUPPORTED_CHARSET",
    "INVALID_RESPONSE", "PREMATURE_CLOSE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "OTHER",
  ]

  /// Get Notification History: notifications signed between `startDate` and `endDate` (virtual
  /// dates), filtered by type and subtype, transaction, or failures only, 20 a page.
  package static func notificationHistory(_ r: RouteRequest, store: Store) throws -> APIResponse {
    let filter = try NotificationHistoryFilter(RequestBody(r.body))
    let offset = try pageOffset(r.value("paginationToken"), invalid: .invalidPaginationToken)
    var attempts: [Int: [NotificationDelivery]] = [:]
    for d in store.state.deliveryLog ?? [] { attempts[d.index, default: []].append(d) }
    let matches = try filter.matches(store, attempts: attempts)
    let page = Page(matches, offset: offset, size: notificationPageSize)
    let items: [JSONOutput] = page.items.map { i in
      let list = attempts[i] ?? []
      var item = sentNotification(i, attempts: list, store: store)
      if let last = list.last { item["sendAttemptResult"] = .string(sendAttemptResult(last)) }
      return .object(item)
    }
    return .json(
      .object([
        "notificationHistory": .array(items),
        "hasMore": .bool(page.hasMore),
        "paginationToken": page.hasMore ? .string(revisionToken(page.next)) : nil,
      ]))
  }

  /// The request of Get Notification History: dates, and one filter (type and subtype, or a transaction).
  package struct NotificationHistoryFilter {
    package var start: Date
    package var end: Date
    package var type: String?
    package var subtype: String?
    package var transaction: TransactionID?
    package var onlyFailures: Bool

    package init(_ body: RequestBody) throws {
      guard let start = try body.date("startDate", .invalidStartDate) else { throw APIError.invalidStartDate }
      guard let end = try body.date("endDate", .invalidEndDate) else { throw APIError.invalidEndDate }
      if start > end { throw APIError.startDateAfterEndDate }
      (self.start, self.end) = (start, end)
      type = try body.string("notificationType", .invalidNotificationType)
      subtype = try body.string("notificationSubtype", .invalidNotificationType)
      transaction = try body.string("transactionId", .invalidTransactionID).map { try transactionID($0) }
      onlyFailures = try body.bool("onlyFailures", .generalBadRequest) ?? false
      if transaction != nil && (type != nil || subtype != nil) { throw APIError.multipleFiltersSupplied }
    }

    /// The indexes of the notifications that pass.
    package func matches(_ store: Store, attempts: [Int: [NotificationDelivery]]) throws -> [Int] {
      let found = transaction.flatMap { find($0, in: store) }
      if transaction != nil && found == nil { throw APIError.transactionIDNotFound }
      var matches: [Int] = []
      for (i, n) in store.notifications.enumerated() {
        guard n.signedDate >= start, n.signedDate < end else { continue }
        if let type, n.notificationType.rawValue != type { continue }
        if let subtype, n.subtype?.rawValue != subtype { continue }
        if let found, let transaction {
          guard n.customer == found.customer, let t = n.transaction,
            t.originalID == found.transaction.originalID || t.id == transaction
          else { continue }
        }
        if onlyFailures && !(attempts[i] ?? []).contains(where: { !$0.succeeded }) { continue }
        matches.append(i)
      }
      return matches
    }
  }

  package static func sendAttemptResult(_ d: NotificationDelivery) -> String {
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
