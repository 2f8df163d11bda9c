import Foundation
import StoreSim
import StoreSimHTTP

/// The App Store Server API over a session: a pure function of the request, the store and the
/// wall clock (for the bearer token's expiry). `storesim serve` and `storesim api` both call it.
package enum ServerAPI {
  /// Transactions per page of history and refund lookup, as Apple's.
  package static let pageSize = 20
  /// Notification history entries per page.
  package static let notificationPageSize = 20

  /// Every endpoint served, one route each (see `Route`). Adding an endpoint is one line here.
  package static let routes: [Route] =
    [
      .reads("GET", "/inApps/v1/transactions/{transactionId}", needs: [.bearerToken, .oneCustomer]) { r, s in
        try transactionInfo(r["transactionId"], s)
      },
      .reads("GET", "/inApps/v1/history/{transactionId}", needs: [.bearerToken, .oneCustomer]) { r, s in
        try history(r, s, version: 1)
      },
      .reads("GET", "/inApps/v2/history/{transactionId}", needs: [.bearerToken, .oneCustomer]) { r, s in
        try history(r, s, version: 2)
      },
      .reads("GET", "/inApps/v1/subscriptions/{transactionId}", needs: [.bearerToken, .oneCustomer, .familyOwners]) {
        r, s in try subscriptionStatuses(r, s)
      },
      .reads("GET", "/inApps/v1/lookup/{orderId}") { r, s in orderLookup(r["orderId"], s) },
      .reads("GET", "/inApps/v2/refund/lookup/{transactionId}") { r, s in try refundHistory(r, s) },
      .reads("GET", "/inApps/v1/refund/lookup/{originalTransactionId}") { r, s in try refundHistoryV1(r, s) },
      .reads("POST", "/inApps/v1/notifications/history", needs: [.bearerToken, .notifications]) { r, s in
        try notificationHistory(r, s)
      },
      .reads("GET", "/inApps/v1/transactions/appTransactions/{transactionId}") { r, s in
        try appTransaction(r["transactionId"], s)
      },
      .changes("PUT", "/inApps/v1/transactions/{originalTransactionId}/appAccountToken") { r, s in
        try setAppAccountToken(r, s)
      },
      .changes("POST", "/inApps/v1/transactions/{transactionId}/finish") { r, s in try finish(r["transactionId"], s) },
      .changes("PUT", "/inApps/v1/transactions/consumption/{transactionId}") { r, s in try consumption(r, s, version: 1)
      },
      .changes("PUT", "/inApps/v2/transactions/consumption/{transactionId}") { r, s in try consumption(r, s, version: 2)
      },
      .changes("POST", "/inApps/v1/subscriptions/extend/mass") { r, s in try massExtend(r, s) },
      .changes("PUT", "/inApps/v1/subscriptions/extend/{originalTransactionId}") { r, s in try extend(r, s) },
      .reads("GET", "/inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}") { r, s in
        try massExtendStatus(productID: r["productId"], requestIdentifier: r["requestIdentifier"], s)
      },
      .changes("POST", "/inApps/v1/notifications/test") { _, s in try requestTestNotification(s) },
      .reads("GET", "/inApps/v1/notifications/test/{testNotificationToken}", needs: [.bearerToken, .notifications]) {
        r, s in try testNotificationStatus(r["testNotificationToken"], s)
      },
    ] + messagingRoutes

  /// The route a request selects (`.notFound` or `.methodNotAllowed` when none).
  package static func match(_ request: HTTPRequest) -> RouteMatch { RouteMatch(request, in: routes) }

  /// The 404 or 405 answer for a request no route takes (nil when one does).
  package static func unrouted(_ request: HTTPRequest, _ match: RouteMatch) -> APIResponse? {
    switch match {
    case .found: return nil
    case .notFound: return .error(.notFound(request.path))
    case .methodNotAllowed(let allowed):
      return .error(.methodNotAllowed(request.method, request.path, allowed: allowed))
    }
  }

  /// Answers any request `serve` answers, on a store, through the same layers (`APILayers`):
  /// `/verifyReceipt` (production or sandbox, no bearer token; `sharedSecret` as
  /// `serve --shared-secret`), then the route table. Unless `trusted`, a route that needs a
  /// bearer token gets 401 without an acceptable one (see `Authentication`). `storesim api`
  /// answers through this, so it answers as `serve` does.
  package static func respond(
    _ request: HTTPRequest, store: Store, now: Date, trusted: Bool = false, sharedSecret: String? = nil,
    key: Authentication.Key? = nil
  ) -> APIResponse {
    switch APILayers.admit(request, gate: trusted ? nil : Authentication.Gate(key: key), now: { now }) {
    case .verifyReceipt(let endpoint):
      return VerifyReceipt.answer(request, store: store, endpoint: endpoint, sharedSecret: sharedSecret)
    case .refused(let refusal):
      return refusal
    case .routed(let route, let routed, let token):
      if let failure = token?.refusal(for: store.state.bundleID) { return .unauthenticated(failure) }
      return answer(route, routed, store: store)
    }
  }

  /// The answer of a request its caller has routed (and authenticated): the route's handler on
  /// the store, an `APIError` it throws as Apple's error body. `serve` routes each request once
  /// and answers through here.
  package static func answer(_ route: Route, _ routed: RouteRequest, store: Store) -> APIResponse {
    do {
      return try route.handler(routed, store)
    } catch let e as APIError {
      return .error(e)
    } catch {
      return .error(.generalInternal)
    }
  }

  // MARK: Identifiers

  /// A transaction id as Apple accepts it: 1 to 19 decimal digits.
  package static func transactionID(_ text: String, invalid: APIError = .invalidTransactionID) throws -> TransactionID {
    guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (48...57).contains($0) }),
      let id = TransactionID(text)
    else {
      throw invalid
    }
    return id
  }

  /// The customer and transaction of an in-app purchase transaction id (own or family copy).
  package static func purchase(
    _ id: TransactionID, in store: Store
  ) -> (customer: CustomerID, transaction: Transaction)? {
    store.owner(of: id)
  }

  /// Whether `id` is a customer's `appTransactionId`.
  package static func isAppTransactionID(_ id: TransactionID, in store: Store) -> Bool {
    store.customer(withAppTransactionID: String(id)) != nil
  }

  /// The transaction of an endpoint that acts on one purchase: an `appTransactionId` is
  /// refused with 4000048, an unknown id with `notFound`.
  package static func singlePurchase(
    _ text: String, _ store: Store, invalid: APIError = .invalidTransactionID,
    notFound: APIError = .transactionIDNotFound
  ) throws -> (customer: CustomerID, transaction: Transaction) {
    let id = try transactionID(text, invalid: invalid)
    if let found = purchase(id, in: store) { return found }
    if isAppTransactionID(id, in: store) { throw APIError.appTransactionIDNotSupported }
    throw notFound
  }

  /// The customer of "any transaction id": a transaction id, an original transaction id or the
  /// customer's `appTransactionId`.
  package static func customer(_ text: String, _ store: Store) throws -> CustomerID {
    let id = try transactionID(text)
    if let (customer, _) = purchase(id, in: store) { return customer }
    if let c = store.customer(withAppTransactionID: String(id)) { return c }
    throw APIError.transactionIDNotFound
  }

  package static func date(_ text: String, invalid: APIError) throws -> Date {
    guard let ms = Int64(text), ms >= 0 else { throw invalid }
    return Date(epochMilliseconds: ms)
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

  /// A 64-bit FNV-1a digest in hex: ties a revision or pagination token to the request that
  /// it continues (stable across runs, unlike `Hasher`).
  package static func digest(_ text: String) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      h ^= UInt64(byte)
      h = h &* 0x100_0000_01b3
    }
    return String(h, radix: 16)
  }
}
