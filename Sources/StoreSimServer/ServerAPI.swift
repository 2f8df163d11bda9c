import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSession

/// The App Store Server API over a session: a pure function of the request, the store and the
/// wall clock (for the bearer token's expiry). `storesim serve` and `storesim api` both call it.
package enum ServerAPI {
  /// Transactions per page of history and refund lookup, as Apple's.
  package static let pageSize = 20
  /// Notification history entries per page.
  package static let notificationPageSize = 20

  /// Every endpoint served, one route each (see `Route`).
  package static let routes: [Route] = [
    .reads("GET", "/inApps/v1/transactions/{transactionId}") { r, s in try transactionInfo(r["transactionId"], store: s)
    },
    .reads("GET", "/inApps/v1/history/{transactionId}") { r, s in try history(r, store: s, version: "v1") },
    .reads("GET", "/inApps/v2/history/{transactionId}") { r, s in try history(r, store: s, version: "v2") },
    .reads("GET", "/inApps/v1/subscriptions/{transactionId}") { r, s in try subscriptionStatuses(r, store: s) },
    .reads("GET", "/inApps/v1/lookup/{orderId}") { r, s in try orderLookup(r["orderId"], store: s) },
    .reads("GET", "/inApps/v2/refund/lookup/{transactionId}") { r, s in try refundHistory(r, store: s) },
    .reads("POST", "/inApps/v1/notifications/history", needs: [.bearerToken, .notifications]) { r, s in
      try notificationHistory(r, store: s)
    },
    .reads("GET", "/inApps/v1/transactions/appTransactions/{transactionId}") { r, s in
      try appTransaction(r["transactionId"], store: s)
    },
    .changes("PUT", "/inApps/v1/transactions/{originalTransactionId}/appAccountToken") { r, s in
      try setAppAccountToken(r, store: s)
    },
    .changes("PUT", "/inApps/v1/transactions/consumption/{transactionId}") { r, s in
      try consumption(r, store: s, version: 1)
    },
    .changes("PUT", "/inApps/v2/transactions/consumption/{transactionId}") { r, s in
      try consumption(r, store: s, version: 2)
    },
    .changes("POST", "/inApps/v1/subscriptions/extend/mass") { r, s in try massExtend(r, store: s) },
    .changes("PUT", "/inApps/v1/subscriptions/extend/{originalTransactionId}") { r, s in try extend(r, store: s) },
    .reads("GET", "/inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}") { r, s in
      try massExtendStatus(productID: r["productId"], requestIdentifier: r["requestIdentifier"], store: s)
    },
    .changes("POST", "/inApps/v1/notifications/test") { _, s in try requestTestNotification(store: s) },
    .reads("GET", "/inApps/v1/notifications/test/{testNotificationToken}", needs: [.bearerToken, .notifications]) {
      r, s in try testNotificationStatus(r["testNotificationToken"], store: s)
    },
  ]

  /// The route a request selects (`.notFound` or `.methodNotAllowed` when none).
  package static func match(_ request: HTTPRequest) -> RouteMatch { RouteMatch(request, in: routes) }

  package static func handle(_ request: HTTPRequest, store: Store, now: Date, trusted: Bool = false) -> APIResponse {
    if !trusted,
      let failure = Authentication.check(request.headers["authorization"], bundleID: store.state.bundleID, now: now)
    {
      return unauthenticated(failure)
    }
    do {
      switch match(request) {
      case .found(let route, let routed): return try route.handler(routed, store)
      case .notFound: throw APIError.notFound(request.path)
      case .methodNotAllowed: throw APIError.methodNotAllowed(request.method, request.path)
      }
    } catch let e as APIError {
      return .error(e)
    } catch {
      return .error(.generalInternal)
    }
  }

  /// The 401 answer: `{"errorMessage": "Unauthenticated: REASON"}`.
  package static func unauthenticated(_ reason: String) -> APIResponse {
    APIResponse(
      status: 401,
      body: JSONOutput.object(["errorMessage": .string("Unauthenticated: \(reason)")]).rendered(pretty: false))
  }

  // MARK: Shared by the endpoints

  /// A transaction id as Apple accepts it: decimal digits only.
  package static func transactionID(_ text: String, invalid: APIError = .invalidTransactionID) throws -> TransactionID {
    guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ (48...57).contains($0) }),
      let id = TransactionID(text)
    else {
      throw invalid
    }
    return id
  }

  /// The customer holding a transaction (own or family copy) and the transaction.
  package static func find(_ id: TransactionID, in store: Store) -> (customer: CustomerID, transaction: Transaction)? {
    for c in store.state.customers {
      if let t = c.transaction(id) { return (c.id, t) }
    }
    // Apple accepts an appTransactionId wherever "any transaction id" is asked for.
    let text = String(id)
    if let c = store.state.customers.first(where: { $0.appTransactionID == text }), let t = c.transactions.first {
      return (c.id, t)
    }
    return nil
  }

  package static func date(_ text: String, invalid: APIError) throws -> Date {
    guard let ms = Int64(text), ms >= 0 else { throw invalid }
    return Date(epochMilliseconds: ms)
  }

  /// Revision tokens: `storesim-N`, the number of transactions already returned.
  package static func revisionToken(_ offset: Int) -> String { "storesim-\(offset)" }

  /// The offset a `storesim-N` token names (0 without one); `invalid` for another token.
  package static func pageOffset(_ token: String?, invalid: APIError = .invalidRequestRevision) throws -> Int {
    guard let token else { return 0 }
    guard token.hasPrefix("storesim-"), let n = Int(token.dropFirst(9)), n >= 0 else { throw invalid }
    return n
  }

  /// One page of a list, from an offset.
  package struct Page<Item> {
    package var items: [Item]
    /// The offset of the next page.
    package var next: Int
    package var hasMore: Bool

    package init(_ list: [Item], offset: Int, size: Int) {
      items = offset < list.count ? Array(list[offset..<min(offset + size, list.count)]) : []
      next = offset + items.count
      hasMore = next < list.count
    }
  }
}
