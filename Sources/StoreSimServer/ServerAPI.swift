import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSession

/// An answer: HTTP status and JSON body, with the changed store when the request changed it.
package struct APIResponse: Sendable {
  package var status: Int
  package var body: String
  package var changed: Store? = nil

  package init(status: Int, body: String, changed: Store? = nil) {
    self.status = status
    self.body = body
    self.changed = changed
  }

  package static func json(_ value: JSONOutput, status: Int = 200) -> APIResponse {
    APIResponse(status: status, body: value.rendered(pretty: false))
  }

  /// Apple's error body `{"errorCode": N, "errorMessage": "..."}`.
  package static func error(_ e: APIError) -> APIResponse {
    json(.object(["errorCode": .int(Int64(e.code)), "errorMessage": .string(e.message)]), status: e.status)
  }
}

/// Apple's App Store Server API errors (the `APIError` codes of Apple's libraries).
package struct APIError: Error, Sendable, Equatable {
  package var status: Int
  package var code: Int
  package var message: String

  package init(status: Int, code: Int, message: String) {
    self.status = status
    self.code = code
    self.message = message
  }

  package static let generalBadRequest = APIError(status: 400, code: 4_000_000, message: "Bad request.")
  package static let invalidRequestRevision = APIError(
    status: 400, code: 4_000_005, message: "Invalid request revision.")
  package static let invalidTransactionID = APIError(status: 400, code: 4_000_006, message: "Invalid transaction id.")
  package static let invalidOriginalTransactionID = APIError(
    status: 400, code: 4_000_008, message: "Invalid original transaction id.")
  package static let invalidExtendByDays = APIError(
    status: 400, code: 4_000_009, message: "Invalid extend by days value.")
  package static let invalidExtendReasonCode = APIError(
    status: 400, code: 4_000_010, message: "Invalid extend reason code.")
  package static let invalidRequestIdentifier = APIError(
    status: 400, code: 4_000_011, message: "Invalid request identifier.")
  package static let startDateTooFarInPast = APIError(
    status: 400, code: 4_000_012, message: "Start date too far in past.")
  package static let startDateAfterEndDate = APIError(
    status: 400, code: 4_000_013, message: "Start date after end date.")
  package static let invalidPaginationToken = APIError(
    status: 400, code: 4_000_014, message: "Invalid pagination token.")
  package static let invalidStartDate = APIError(status: 400, code: 4_000_015, message: "Invalid start date.")
  package static let invalidEndDate = APIError(status: 400, code: 4_000_016, message: "Invalid end date.")
  package static let invalidNotificationType = APIError(
    status: 400, code: 4_000_018, message: "Invalid notification type.")
  package static let multipleFiltersSupplied = APIError(
    status: 400, code: 4_000_019, message: "Multiple filters supplied.")
  package static let invalidTestNotificationToken = APIError(
    status: 400, code: 4_000_020, message: "Invalid test notification token.")
  package static let invalidSort = APIError(status: 400, code: 4_000_021, message: "Invalid sort.")
  package static let invalidProductType = APIError(status: 400, code: 4_000_022, message: "Invalid product type.")
  package static let invalidProductID = APIError(status: 400, code: 4_000_023, message: "Invalid product id.")
  package static let invalidSubscriptionGroupIdentifier = APIError(
    status: 400, code: 4_000_024, message: "Invalid subscription group identifier.")
  package static let invalidInAppOwnershipType = APIError(
    status: 400, code: 4_000_026, message: "Invalid in-app ownership type.")
  package static let invalidRevoked = APIError(status: 400, code: 4_000_030, message: "Invalid revoked.")
  package static let invalidStatus = APIError(status: 400, code: 4_000_031, message: "Invalid status.")
  package static let invalidDeliveryStatus = APIError(status: 400, code: 4_000_036, message: "Invalid delivery status.")
  package static let invalidSampleContentProvided = APIError(
    status: 400, code: 4_000_041, message: "Invalid sample content provided.")
  package static let invalidAppAccountToken = APIError(
    status: 400, code: 4_000_183, message: "Invalid app account token.")
  package static let accountNotFound = APIError(status: 404, code: 4_040_001, message: "Account not found.")
  package static let originalTransactionIDNotFound = APIError(
    status: 404, code: 4_040_005, message: "Original transaction id not found.")
  package static let serverNotificationURLNotFound = APIError(
    status: 404, code: 4_040_007, message: "No App Store Server Notifications V2 URL configured.")
  package static let testNotificationNotFound = APIError(
    status: 404, code: 4_040_008, message: "Test notification not found.")
  package static let statusRequestNotFound = APIError(
    status: 404, code: 4_040_009, message: "Mass extension request not found.")
  package static let transactionIDNotFound = APIError(
    status: 404, code: 4_040_010, message: "Transaction id not found.")
  package static let generalInternal = APIError(status: 500, code: 5_000_000, message: "An unknown error occurred.")

  package static func notFound(_ path: String) -> APIError {
    APIError(status: 404, code: 4_040_000, message: "Not found: \(path) is not an App Store Server API endpoint.")
  }
  package static func methodNotAllowed(_ method: String, _ path: String) -> APIError {
    APIError(status: 405, code: 4_050_000, message: "Method \(method) is not allowed on \(path).")
  }
  package static func notSupported(_ what: String) -> APIError {
    APIError(status: 501, code: 5_010_000, message: "storesim does not support \(what).")
  }
}

/// The App Store Server API over a session: a pure function of the request, the store and the
/// wall clock (for the bearer token's expiry). `storesim serve` and `storesim api` both call it.
package enum ServerAPI {
  /// Transactions per page of history and refund lookup, as Apple's.
  package static let pageSize = 20
  /// Notification history entries per page.
  package static let notificationPageSize = 20

  /// Whether a request may change the session (it is then answered under the write lock).
  package static func isMutating(_ request: HTTPRequest) -> Bool {
    request.method == "PUT" || (request.method == "POST" && !request.path.hasSuffix("/notifications/history"))
  }

  /// Whether answering needs the notification outbox (notification history, test
  /// notifications, and every request that may change the session).
  package static func needsNotifications(_ request: HTTPRequest) -> Bool {
    isMutating(request) || request.path.contains("/notifications/")
  }

  package static func handle(_ request: HTTPRequest, store: Store, now: Date, trusted: Bool = false) -> APIResponse {
    if !trusted,
      let failure = Authentication.check(request.headers["authorization"], bundleID: store.state.bundleID, now: now)
    {
      return unauthenticated(failure)
    }
    do {
      return try route(request, store: store)
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

  package static func route(_ r: HTTPRequest, store: Store) throws -> APIResponse {
    let parts = r.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    // "", "inApps", "v1", ...
    guard parts.count >= 4, parts[0].isEmpty, parts[1] == "inApps" else { throw APIError.notFound(r.path) }
    let version = parts[2]
    let rest = Array(parts[3...])
    func only(_ method: String) throws {
      guard r.method == method else { throw APIError.methodNotAllowed(r.method, r.path) }
    }
    switch (version, rest.count, rest.first) {
    case ("v1", 2, "transactions"):
      try only("GET")
      return try transactionInfo(rest[1], store: store)
    case ("v1", 2, "history"), ("v2", 2, "history"):
      try only("GET")
      return try history(rest[1], r, store: store, version: version)
    case ("v1", 2, "subscriptions"):
      try only("GET")
      return try subscriptionStatuses(rest[1], r, store: store)
    case ("v1", 2, "lookup"):
      try only("GET")
      return try orderLookup(rest[1], store: store)
    case ("v2", 3, "refund") where rest[1] == "lookup":
      try only("GET")
      return try refundHistory(rest[2], r, store: store)
    case ("v1", 2, "notifications") where rest[1] == "history":
      try only("POST")
      return try notificationHistory(r, store: store)
    case ("v1", 3, "transactions") where rest[1] == "appTransactions":
      try only("GET")
      return try appTransaction(rest[2], store: store)
    case ("v1", 3, "transactions") where rest[2] == "appAccountToken":
      try only("PUT")
      return try setAppAccountToken(rest[1], r, store: store)
    case ("v1", 3, "transactions") where rest[1] == "consumption",
      ("v2", 3, "transactions") where rest[1] == "consumption":
      try only("PUT")
      return try consumption(rest[2], r, store: store, version: version == "v1" ? 1 : 2)
    case ("v1", 3, "subscriptions") where rest[1] == "extend" && rest[2] == "mass":
      try only("POST")
      return try massExtend(r, store: store)
    case ("v1", 3, "subscriptions") where rest[1] == "extend":
      try only("PUT")
      return try extend(rest[2], r, store: store)
    case ("v1", 5, "subscriptions") where rest[1] == "extend" && rest[2] == "mass":
      try only("GET")
      return try massExtendStatus(productID: rest[3], requestIdentifier: rest[4], store: store)
    case ("v1", 2, "notifications") where rest[1] == "test":
      try only("POST")
      return try requestTestNotification(store: store)
    case ("v1", 3, "notifications") where rest[1] == "test":
      try only("GET")
      return try testNotificationStatus(rest[2], store: store)
    default:
      throw APIError.notFound(r.path)
    }
  }

  // MARK: Lookups

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
  package static func history(_ text: String, _ r: HTTPRequest, store: Store, version: String) throws -> APIResponse {
    let id = try transactionID(text)
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

  // MARK: Subscription statuses

  /// Get All Subscription Statuses: every group of the transaction's customer, with `status`
  /// filters (1–5).
  package static func subscriptionStatuses(_ text: String, _ r: HTTPRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(text)
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
  package static func refundHistory(_ text: String, _ r: HTTPRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(text)
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

  // MARK: Writing endpoints

  /// A request body that must be a JSON object.
  package struct Body {
    package let node: JSONNode

    package init(_ bytes: [UInt8]) throws {
      guard let node = try? JSONParser.parse(bytes), case .object = node.value else { throw APIError.generalBadRequest }
      self.node = node
    }

    package func has(_ key: String) -> Bool {
      if let v = node[key], v.value != .null { return true }
      return false
    }

    /// An integer member in `range`; nil when absent; `invalid` when of another type or range.
    package func int(
      _ key: String, _ range: ClosedRange<Int>, _ invalid: APIError, required: Bool = false
    ) throws -> Int? {
      guard let v = node[key], v.value != .null else {
        if required { throw invalid }
        return nil
      }
      guard case .number(let text) = v.value, let n = Int(text), range.contains(n) else { throw invalid }
      return n
    }

    package func bool(_ key: String, _ invalid: APIError, required: Bool = false) throws -> Bool? {
      guard let v = node[key], v.value != .null else {
        if required { throw invalid }
        return nil
      }
      guard case .bool(let b) = v.value else { throw invalid }
      return b
    }

    package func string(_ key: String, _ invalid: APIError, required: Bool = false) throws -> String? {
      guard let v = node[key], v.value != .null else {
        if required { throw invalid }
        return nil
      }
      guard case .string(let s) = v.value else { throw invalid }
      return s
    }

    /// A date member in milliseconds since 1970; nil when absent; `invalid` when not a whole number.
    package func date(_ key: String, _ invalid: APIError) throws -> Date? {
      guard let v = node[key], v.value != .null else { return nil }
      guard case .number(let text) = v.value, let ms = Int64(text) else { throw invalid }
      return Date(epochMilliseconds: ms)
    }

    /// The member as JSON text (for the consumption record).
    package func text(_ key: String) -> String? {
      guard let v = node[key] else { return nil }
      switch v.value {
      case .null: return nil
      case .bool(let b): return b ? "true" : "false"
      case .number(let n): return n
      case .string(let s): return JSONOutput.string(s).rendered(pretty: false)
      default: return nil
      }
    }
  }

  package static func empty(_ status: Int, _ store: Store) -> APIResponse {
    APIResponse(status: status, body: "", changed: store)
  }

  /// Set App Account Token: on a purchase's original transaction id.
  package static func setAppAccountToken(_ text: String, _ r: HTTPRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(text, invalid: .invalidOriginalTransactionID)
    let body = try Body(r.body)
    let invalidToken = APIError(status: 400, code: 4_000_183, message: "Invalid app account token: not a UUID.")
    guard let tokenText = try body.string("appAccountToken", invalidToken, required: true) else { throw invalidToken }
    let token: UUID?
    if tokenText.isEmpty {
      token = nil
    } else {
      guard let uuid = UUID(uuidString: tokenText) else { throw invalidToken }
      token = uuid
    }
    guard let (_, t) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    if t.ownershipType == .familyShared {
      throw APIError(status: 400, code: 4_000_185, message: "Family-shared transactions are not supported.")
    }
    guard t.originalID == t.id else {
      throw APIError(status: 400, code: 4_000_187, message: "The transaction id is not an original transaction id.")
    }
    var changed = store
    _ = changed.setAppAccountToken(token, originalTransactionID: id)
    return empty(200, changed)
  }

  package static let deliveryStatusesV2: Set<String> = [
    "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
    "UNDELIVERED_OTHER",
  ]
  package static let refundPreferencesV2: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

  /// Send Consumption Information (v1 and v2 bodies), validated field by field with Apple's
  /// codes; recorded, answering the transaction's pending refund request when there is one.
  package static func consumption(_ text: String, _ r: HTTPRequest, store: Store, version: Int) throws -> APIResponse {
    let id = try transactionID(text)
    guard let (customer, _) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    let body = try Body(r.body)
    let consented = APIError(status: 400, code: 4_000_035, message: "Invalid customer consented: it must be true.")
    guard try body.bool("customerConsented", consented, required: true) == true else { throw consented }
    let keys = version == 1 ? try consumptionV1Keys(body) : try consumptionV2Keys(body)
    var fields: [String: String] = [:]
    for k in keys { if let v = body.text(k) { fields[k] = v } }
    var changed = store
    changed.recordConsumption(transactionID: id, customer: customer, version: version, fields: fields)
    return empty(202, changed)
  }

  /// Checks a `ConsumptionRequest` (v1) body after `customerConsented`; the keys recorded.
  package static func consumptionV1Keys(_ body: Body) throws -> [String] {
    _ = try body.int(
      "consumptionStatus", 0...3, APIError(status: 400, code: 4_000_034, message: "Invalid consumption status."),
      required: true)
    _ = try body.int(
      "platform", 0...2, APIError(status: 400, code: 4_000_039, message: "Invalid platform."), required: true)
    _ = try body.bool("sampleContentProvided", .invalidSampleContentProvided, required: true)
    _ = try body.int("deliveryStatus", 0...5, .invalidDeliveryStatus, required: true)
    let tokenError = APIError(status: 400, code: 4_000_033, message: "Invalid app account token.")
    if let token = try body.string("appAccountToken", tokenError, required: true), !token.isEmpty,
      UUID(uuidString: token) == nil
    {
      throw tokenError
    }
    _ = try body.int(
      "accountTenure", 0...7, APIError(status: 400, code: 4_000_032, message: "Invalid account tenure."),
      required: true)
    _ = try body.int(
      "playTime", 0...7, APIError(status: 400, code: 4_000_040, message: "Invalid play time."), required: true)
    _ = try body.int(
      "lifetimeDollarsRefunded", 0...7,
      APIError(status: 400, code: 4_000_038, message: "Invalid lifetime dollars refunded."), required: true)
    _ = try body.int(
      "lifetimeDollarsPurchased", 0...7,
      APIError(status: 400, code: 4_000_037, message: "Invalid lifetime dollars purchased."), required: true)
    _ = try body.int(
      "userStatus", 0...4, APIError(status: 400, code: 4_000_042, message: "Invalid user status."), required: true)
    _ = try body.int(
      "refundPreference", 0...3, APIError(status: 400, code: 4_000_000, message: "Invalid refund preference."))
    return [
      "customerConsented", "consumptionStatus", "platform", "sampleContentProvided", "deliveryStatus",
      "appAccountToken", "accountTenure",
      "playTime", "lifetimeDollarsRefunded", "lifetimeDollarsPurchased", "userStatus", "refundPreference",
    ]
  }

  /// Checks a `ConsumptionRequestV2` body after `customerConsented`; the keys recorded.
  package static func consumptionV2Keys(_ body: Body) throws -> [String] {
    _ = try body.bool("sampleContentProvided", .invalidSampleContentProvided, required: true)
    guard let status = try body.string("deliveryStatus", .invalidDeliveryStatus, required: true),
      deliveryStatusesV2.contains(status)
    else { throw APIError.invalidDeliveryStatus }
    _ = try body.int(
      "consumptionPercentage", 0...100_000,
      APIError(status: 400, code: 4_000_000, message: "Invalid consumption percentage: 0 to 100000 milliunits."))
    let preference = APIError(status: 400, code: 4_000_000, message: "Invalid refund preference.")
    if let p = try body.string("refundPreference", preference), !refundPreferencesV2.contains(p) { throw preference }
    return [
      "customerConsented", "sampleContentProvided", "deliveryStatus", "consumptionPercentage", "refundPreference",
    ]
  }

  package static func extensionParameters(_ body: Body) throws -> (days: Int, reason: Int, request: String) {
    let days = try body.int("extendByDays", 1...90, .invalidExtendByDays, required: true)!
    let reason = try body.int("extendReasonCode", 0...3, .invalidExtendReasonCode, required: true)!
    guard let request = try body.string("requestIdentifier", .invalidRequestIdentifier, required: true),
      !request.isEmpty, request.count <= 128
    else {
      throw APIError.invalidRequestIdentifier
    }
    return (days, reason, request)
  }

  /// Extend a Subscription Renewal Date (RENEWAL_EXTENDED): 1–90 days, reason 0–3, at most two
  /// per subscription in 365 days, active subscriptions only, never a family member's copy.
  package static func extend(_ text: String, _ r: HTTPRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(text, invalid: .invalidOriginalTransactionID)
    let body = try Body(r.body)
    let (days, reason, request) = try extensionParameters(body)
    var changed = store
    let record: RenewalExtension
    do {
      record = try changed.extendRenewalDate(
        originalTransactionID: id, days: days, reason: reason, requestIdentifier: request
      ).value
    } catch {
      switch error {
      case .notFound: throw APIError.originalTransactionIDNotFound
      case .ineligible:
        throw APIError(
          status: 403, code: 4_030_004, message: "Subscription extension ineligible: the subscription is not active.")
      case .maximumReached:
        throw APIError(
          status: 403, code: 4_030_005, message: "Subscription extended the maximum number of times (2 in 365 days).")
      case .familyShared:
        throw APIError(
          status: 403, code: 4_030_007,
          message: "Family-shared subscriptions are ineligible for extension; extend the purchaser's.")
      }
    }
    let webOrder = changed.customer(record.customer)?.transaction(record.transactionID)?.webOrderLineItemID
    var response = APIResponse.json(
      .object([
        "originalTransactionId": .string(String(record.originalTransactionID)),
        "webOrderLineItemId": webOrder.map { .string(String($0)) },
        "success": .bool(true),
        "effectiveDate": .int(record.effectiveDate.epochMilliseconds),
      ]))
    response.changed = changed
    return response
  }

  /// Extend Subscription Renewal Dates for All Active Subscribers (completed at once).
  package static func massExtend(_ r: HTTPRequest, store: Store) throws -> APIResponse {
    let body = try Body(r.body)
    let (days, reason, request) = try extensionParameters(body)
    guard let product = try body.string("productId", .invalidProductID, required: true),
      let p = store.configuration.product(product), p.type == .autoRenewable
    else {
      throw APIError.invalidProductID
    }
    var storefronts: [String]?
    if let node = body.node["storefrontCountryCodes"], node.value != .null {
      guard case .array(let items) = node.value else {
        throw APIError(status: 400, code: 4_000_028, message: "Invalid storefront country code.")
      }
      if items.isEmpty {
        throw APIError(status: 400, code: 4_000_027, message: "Invalid empty storefront country code list.")
      }
      storefronts = try items.map { item in
        guard case .string(let code) = item.value, code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase })
        else {
          throw APIError(status: 400, code: 4_000_028, message: "Invalid storefront country code.")
        }
        return code
      }
    }
    var changed = store
    changed.massExtendRenewalDate(
      productID: product, days: days, reason: reason, requestIdentifier: request, storefronts: storefronts)
    var response = APIResponse.json(.object(["requestIdentifier": .string(request)]))
    response.changed = changed
    return response
  }

  /// Get Status of Subscription Renewal Date Extensions.
  package static func massExtendStatus(productID: String, requestIdentifier: String, store: Store) throws -> APIResponse
  {
    guard
      let m = store.serverRecords.massExtensions.first(where: {
        $0.requestIdentifier == requestIdentifier && $0.productID == productID
      })
    else {
      throw APIError.statusRequestNotFound
    }
    return .json(
      .object([
        "requestIdentifier": .string(m.requestIdentifier),
        "complete": .bool(true),
        "completeDate": .int(m.date.epochMilliseconds),
        "succeededCount": .int(Int64(m.succeeded)),
        "failedCount": .int(Int64(m.failed)),
      ]))
  }

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
  package static func notificationHistory(_ r: HTTPRequest, store: Store) throws -> APIResponse {
    let filter = try NotificationHistoryFilter(Body(r.body))
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

    package init(_ body: Body) throws {
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

/// Order ids: every purchase (not a renewal) has one, derived from its transaction id, in the
/// shape of Apple's (`M` and base-36 capitals: `MQ8YV0J3K1`).
package enum OrderID {
  package static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

  package static func hasOrder(_ t: Transaction) -> Bool {
    t.reason == .purchase && t.ownershipType == .purchased
  }

  package static func of(_ t: Transaction) -> String? {
    guard hasOrder(t) else { return nil }
    return string(t.id)
  }

  package static func string(_ id: TransactionID) -> String {
    var n = id
    var out: [Character] = []
    repeat {
      out.append(digits[Int(n % 36)])
      n /= 36
    } while n > 0
    return "M" + String(out.reversed())
  }

  package static func transactionID(_ order: String) -> TransactionID? {
    guard order.hasPrefix("M"), order.count > 1, order.count <= 14 else { return nil }
    var n: TransactionID = 0
    for ch in order.dropFirst() {
      guard let d = digits.firstIndex(of: ch) else { return nil }
      let (m, o1) = n.multipliedReportingOverflow(by: 36)
      let (s, o2) = m.addingReportingOverflow(TransactionID(d))
      if o1 || o2 { return nil }
      n = s
    }
    return n
  }
}

/// The bearer token check: shape and claims as Apple requires. The ES256 signature cannot be
/// checked without the team's public key, which the App Store holds and storesim does not.
package enum Authentication {
  /// nil when the header carries an acceptable token, else the reason it does not.
  package static func check(_ header: String?, bundleID: String, now: Date) -> String? {
    guard let header, !header.isEmpty else { return "missing Authorization header" }
    guard header.utf8.count > 7,
      header.utf8.prefix(7).map({ (65...90).contains($0) ? $0 + 32 : $0 }) == Array("bearer ".utf8)
    else {
      return "the Authorization header is not a Bearer token"
    }
    let token = header.dropFirst(7).drop { $0 == " " }
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[2].isEmpty else { return "the token is not a compact JWS" }
    guard let headerBytes = base64URL(parts[0]), let h = try? JSONParser.parse(headerBytes) else {
      return "the token header is not base64url JSON"
    }
    guard let payloadBytes = base64URL(parts[1]), let p = try? JSONParser.parse(payloadBytes) else {
      return "the token payload is not base64url JSON"
    }
    guard case .string("ES256") = h["alg"]?.value else { return "the token's alg is not ES256" }
    guard case .string(let kid) = h["kid"]?.value, !kid.isEmpty else { return "the token header has no kid" }
    if let typ = h["typ"], typ.value != .string("JWT") { return "the token's typ is not JWT" }
    guard case .string(let iss) = p["iss"]?.value, !iss.isEmpty else { return "the token has no iss" }
    guard case .string("appstoreconnect-v1") = p["aud"]?.value else {
      return "the token's aud is not appstoreconnect-v1"
    }
    guard case .string(let bid) = p["bid"]?.value else { return "the token has no bid" }
    guard bid == bundleID else { return "the token's bid \(bid) is not the session's bundle id \(bundleID)" }
    guard let exp = seconds(p["exp"]) else { return "the token has no exp" }
    let nowSeconds = now.timeIntervalSince1970
    guard exp > nowSeconds else { return "the token expired" }
    if let iat = seconds(p["iat"]) {
      guard exp - iat <= 3600 else { return "the token's exp is more than an hour after its iat" }
      guard iat <= nowSeconds + 60 else { return "the token's iat is in the future" }
    } else {
      guard exp - nowSeconds <= 3600 else { return "the token's exp is more than an hour away" }
    }
    return nil
  }

  /// The `exp` claim of a bearer token (already checked by `check`).
  package static func expiry(_ header: String) -> Double? {
    let parts = header.dropFirst(7).drop { $0 == " " }.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = base64URL(parts[1]), let p = try? JSONParser.parse(bytes) else { return nil }
    return seconds(p["exp"])
  }

  package static func seconds(_ node: JSONNode?) -> Double? {
    guard let node, case .number(let n) = node.value else { return nil }
    return Double(n)
  }

  package static func base64URL(_ s: Substring) -> [UInt8]? {
    JWS.decodeBase64URL(s)
  }
}
