import Foundation
import StoreSim

/// The reading endpoints about transactions: info, history, statuses, orders, refunds, the
/// app transaction.
extension ServerAPI {
  package static func transactionInfo(_ text: String, store: Store) throws -> APIResponse {
    let id = try transactionID(text)
    guard let (customer, t) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    return .json(.object(["signedTransactionInfo": .string(store.signed(t, customer: customer))]))
  }

  // MARK: History

  package static let productTypes: [String: ProductType] = [
    "AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewable, "CONSUMABLE": .consumable,
    "NON_CONSUMABLE": .nonConsumable,
  ]

  /// Get Transaction History (v1 and v2): the customer's transactions, filtered and sorted by
  /// purchase date, 20 a page; `revision` is the position after the last one returned.
  package static func history(_ r: RouteRequest, store: Store, version: String) throws -> APIResponse {
    let id = try transactionID(r["transactionId"])
    guard let (customer, _) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    let startDate = try r.value("startDate").map { try date($0, invalid: .invalidStartDate) }
    let endDate = try r.value("endDate").map { try date($0, invalid: .invalidEndDate) }
    if let s = startDate, let e = endDate, s > e { throw APIError.startDateAfterEndDate }
    let products = Set(r.values("productId"))
    for p in products where p.isEmpty { throw APIError.invalidProductID }
    let types = try Set(
      r.values("productType").map { v in
        guard let t = productTypes[v] else { throw APIError.invalidProductType }
        return t
      })
    let groups = Set(r.values("subscriptionGroupIdentifier"))
    for g in groups where g.isEmpty { throw APIError.invalidSubscriptionGroupIdentifier }
    let ownership = try r.value("inAppOwnershipType").map { v in
      guard let o = OwnershipType(rawValue: v) else { throw APIError.invalidInAppOwnershipType }
      return o
    }
    let revoked = try r.value("revoked").map { v in
      switch v.lowercased() {
      case "true": return true
      case "false": return false
      default: throw APIError.invalidRevoked
      }
    }
    let descending: Bool
    switch r.value("sort") ?? "ASCENDING" {
    case "ASCENDING": descending = false
    case "DESCENDING": descending = true
    default: throw APIError.invalidSort
    }
    var list = store.allTransactions(customer: customer).filter { t in
      if let s = startDate, t.purchaseDate < s { return false }
      if let e = endDate, t.purchaseDate >= e { return false }
      if !products.isEmpty && !products.contains(t.productID) { return false }
      if !types.isEmpty && !types.contains(t.productType) { return false }
      if !groups.isEmpty && !groups.contains(t.subscriptionGroupID ?? "") { return false }
      if let ownership, t.ownershipType != ownership { return false }
      if let revoked, t.isRevoked != revoked { return false }
      return true
    }
    list.sort { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
    if descending { list.reverse() }
    let page = Page(list, offset: try pageOffset(r.value("revision")), size: pageSize)
    return .json(
      .object([
        "revision": .string(revisionToken(page.next)),
        "bundleId": .string(store.state.bundleID),
        "environment": .string(store.state.environment.rawValue),
        "hasMore": .bool(page.hasMore),
        "signedTransactions": .array(page.items.map { .string(store.signed($0, customer: customer)) }),
      ]))
  }

  // MARK: Subscription statuses

  /// Get All Subscription Statuses: every group of the transaction's customer, with `status`
  /// filters (1–5).
  package static func subscriptionStatuses(_ r: RouteRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(r["transactionId"])
    guard let (customer, _) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    let wanted = try Set(
      r.values("status").map { v in
        guard let n = Int(v), (1...5).contains(n) else { throw APIError.invalidStatus }
        return n
      })
    return .json(store.allSubscriptionStatusesResponse(customer: customer, status: wanted))
  }

  // MARK: Orders and refunds

  /// Look Up Order ID: `status` 0 with the order's transactions, or 1 when no order has the id.
  package static func orderLookup(_ orderID: String, store: Store) throws -> APIResponse {
    guard let id = OrderID.transactionID(orderID), let (customer, t) = find(id, in: store), OrderID.hasOrder(t) else {
      return .json(.object(["status": .int(1), "signedTransactions": .array([])]))
    }
    return .json(
      .object(["status": .int(0), "signedTransactions": .array([.string(store.signed(t, customer: customer))])]))
  }

  /// Get Refund History (v2): the customer's refunded transactions, 20 a page.
  package static func refundHistory(_ r: RouteRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(r["transactionId"])
    guard let (customer, _) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    let list = store.allTransactions(customer: customer)
      .filter { $0.isRevoked && !$0.isFamilyRevocation }
      .sorted { ($0.revocationDate!, $0.id) < ($1.revocationDate!, $1.id) }
    let page = Page(list, offset: try pageOffset(r.value("revision")), size: pageSize)
    return .json(
      .object([
        "signedTransactions": .array(page.items.map { .string(store.signed($0, customer: customer)) }),
        "revision": .string(revisionToken(page.next)),
        "hasMore": .bool(page.hasMore),
      ]))
  }

  /// Get App Transaction Info: the app transaction of the customer holding the transaction.
  /// storesim models the app download only by its id, bundle id, environment and the session's
  /// start (as the original purchase date); versions are "1" and the platform iOS.
  package static func appTransaction(_ text: String, store: Store) throws -> APIResponse {
    let id = try transactionID(text)
    guard let (customer, _) = find(id, in: store), let c = store.customer(customer) else {
      throw APIError(status: 404, code: 4_040_019, message: "No app transaction exists for the customer.")
    }
    let payload = JSONOutput.object([
      "receiptType": .string(store.state.environment.rawValue),
      "bundleId": .string(store.state.bundleID),
      "appTransactionId": .string(c.appTransactionID),
      "applicationVersion": .string("1"),
      "originalApplicationVersion": .string("1"),
      "originalPurchaseDate": .int(store.state.startDate.epochMilliseconds),
      "receiptCreationDate": .int(store.now.epochMilliseconds),
      "originalPlatform": .string("iOS"),
    ])
    return .json(.object(["signedAppTransactionInfo": .string(JWS.sign(payload, bundleID: store.state.bundleID))]))
  }
}
