import Foundation
import StoreSim
import StoreSimCrypto

/// The endpoints about single transactions and the customer's subscriptions: info, finish,
/// statuses, order lookup, refund history V1, the app transaction.
extension ServerAPI {
  /// Get Transaction Info: one transaction (any type, finished or not); an `appTransactionId`
  /// is refused (4000048).
  package static func transactionInfo(_ text: String, _ store: Store) throws -> APIResponse {
    let (customer, t) = try singlePurchase(text, store)
    return .json(.object(["signedTransactionInfo": .string(store.signed(t, customer: customer))]))
  }

  /// Finish Transaction: marks the transaction finished, as the app's `Transaction.finish()`
  /// does (idempotent); 200 with no body.
  package static func finish(_ text: String, _ store: Store) throws -> APIResponse {
    let (customer, t) = try singlePurchase(text, store)
    var changed = store
    do {
      try changed.finish(t.id, customer: customer)
    } catch {
      throw APIError.transactionIDNotFound
    }
    return .empty(200, changed)
  }

  /// Get All Subscription Statuses: every group of the customer, with `status` filters (1–5).
  package static func subscriptionStatuses(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let customer = try customer(r["transactionId"], store)
    let wanted = try Set(
      r.values("status").map { v in
        guard let n = Int(v), (1...5).contains(n) else { throw APIError.invalidStatus }
        return n
      })
    let groups = store.configuration.subscriptionGroups.map(\.id)
    var data: [JSONOutput] = []
    for g in groups {
      let list = store.statuses(forGroup: g, customer: customer).filter {
        wanted.isEmpty || wanted.contains($0.state.serverStatus)
      }
      guard !list.isEmpty else { continue }
      data.append(
        .object([
          "subscriptionGroupIdentifier": .string(g),
          "lastTransactions": .array(
            list.map { s in
              .object([
                "status": .int(Int64(s.state.serverStatus)),
                "originalTransactionId": .string(String(s.transaction.originalID)),
                "signedTransactionInfo": .string(store.signed(s.transaction, customer: customer)),
                "signedRenewalInfo": .string(store.signed(s.renewalInfo, customer: customer)),
              ])
            }),
        ]))
    }
    return .json(
      .object([
        "bundleId": .string(store.state.bundleID),
        "appAppleId": store.state.productionAppAppleID,
        "environment": .string(store.state.environment.rawValue),
        "data": .array(data),
      ]))
  }

  /// Look Up Order ID: `status` 0 with the order's transactions, or 1 (without
  /// `signedTransactions`) when no order has the id. Only a Production session has orders: the
  /// endpoint is not available in the sandbox, so every other session answers status 1 (rule
  /// order-lookup-is-production-only).
  package static func orderLookup(_ orderID: String, _ store: Store) -> APIResponse {
    guard store.state.environment == .production, let id = OrderID.transactionID(orderID),
      let (customer, t) = purchase(id, in: store), OrderID.hasOrder(t)
    else {
      return .json(.object(["status": .int(1)]))
    }
    return .json(
      .object(["status": .int(0), "signedTransactions": .array([.string(store.signed(t, customer: customer))])]))
  }

  /// Get Refund History V1 (deprecated): the customer's 50 most recently refunded
  /// transactions, by revocation date, not paginated; the path takes an original transaction id.
  package static func refundHistoryV1(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let (customer, t) = try singlePurchase(
      r["originalTransactionId"], store, invalid: .invalidOriginalTransactionID,
      notFound: .originalTransactionIDNotFound)
    guard t.originalID == t.id else { throw APIError.originalTransactionIDNotFound }
    let refunded = store.customer(customer)?.transactions.filter { $0.isRevoked && !$0.isFamilyRevocation } ?? []
    let recent = refunded.sorted { ($0.revocationDate!, $0.id) > ($1.revocationDate!, $1.id) }.prefix(50)
    return .json(.object(["signedTransactions": .array(recent.map { .string(store.signed($0, customer: customer)) })]))
  }

  /// Get App Transaction Info: the app transaction of the customer of any transaction id
  /// (`AppTransactionPayload`: no device verification; "1.0" as the original application
  /// version in the sandbox).
  package static func appTransaction(_ text: String, _ store: Store) throws -> APIResponse {
    let customer = try customer(text, store)
    guard let payload = store.appTransactionPayload(customer: customer) else {
      throw APIError.appTransactionDoesNotExist
    }
    return .json(.object(["signedAppTransactionInfo": .string(JWS.sign(payload, signer: store.state.signer))]))
  }
}
