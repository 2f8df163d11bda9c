import Foundation
import StoreSim

/// Get Transaction History (v1 and v2) and Get Refund History: the customer's transactions in
/// the order they were last modified, 20 a page, continued by a `revision`.
extension ServerAPI {
  package static let productTypes: [String: ProductType] = [
    "AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewable, "CONSUMABLE": .consumable,
    "NON_CONSUMABLE": .nonConsumable,
  ]

  /// The filters of a history request, read from its query.
  struct HistoryFilter {
    var startDate: Date?
    var endDate: Date?
    var products: Set<String>
    var types: Set<ProductType>
    var groups: Set<String>
    var ownership: OwnershipType?
    var revoked: Bool?
    var descending: Bool

    init(_ r: RouteRequest) throws {
      startDate = try r.value("startDate").map { try date($0, invalid: .invalidStartDate) }
      endDate = try r.value("endDate").map { try date($0, invalid: .invalidEndDate) }
      if let s = startDate, let e = endDate, s >= e { throw APIError.startDateAfterEndDate }
      products = Set(r.values("productId"))
      if products.contains("") { throw APIError.invalidProductID }
      types = try Set(
        r.values("productType").map { v in
          guard let t = productTypes[v] else { throw APIError.invalidProductType }
          return t
        })
      groups = Set(r.values("subscriptionGroupIdentifier"))
      if groups.contains("") { throw APIError.invalidSubscriptionGroupIdentifier }
      ownership = try r.value("inAppOwnershipType").map { v in
        guard let o = OwnershipType(rawValue: v) else { throw APIError.invalidInAppOwnershipType }
        return o
      }
      revoked = try r.value("revoked").map { try boolean($0, invalid: .invalidRevoked) }
      // The deprecated `excludeRevoked=true` is `revoked=false`.
      if let exclude = try r.value("excludeRevoked").map({ try boolean($0, invalid: .invalidExcludeRevoked) }),
        exclude, revoked == nil
      {
        revoked = false
      }
      switch r.value("sort") ?? "ASCENDING" {
      case "ASCENDING": descending = false
      case "DESCENDING": descending = true
      default: throw APIError.invalidSort
      }
    }

    func includes(_ t: Transaction) -> Bool {
      if let s = startDate, t.purchaseDate < s { return false }
      if let e = endDate, t.purchaseDate >= e { return false }
      if !products.isEmpty && !products.contains(t.productID) { return false }
      if !types.isEmpty && !types.contains(t.productType) { return false }
      if !groups.isEmpty && !groups.contains(t.subscriptionGroupID ?? "") { return false }
      if let ownership, t.ownershipType != ownership { return false }
      if let revoked, t.isRevoked != revoked { return false }
      return true
    }
  }

  /// `true`/`false` in any case (Apple's Python library sends `True`/`False`).
  static func boolean(_ text: String, invalid: APIError) throws -> Bool {
    switch text.lowercased() {
    case "true": return true
    case "false": return false
    default: throw invalid
    }
  }

  /// Get Transaction History: v2 lists transactions in every state; v1 leaves out consumables
  /// the app finished (unless refunded or revoked).
  package static func history(_ r: RouteRequest, _ store: Store, version: Int) throws -> APIResponse {
    let customer = try customer(r["transactionId"], store)
    let filter = try HistoryFilter(r)
    let all = store.customer(customer)?.transactions ?? []
    let list = all.filter { t in
      if version == 1 && t.productType == .consumable && t.isFinished && !t.isRevoked { return false }
      return filter.includes(t)
    }
    let query = r.http.query.filter { $0.0 != "revision" }.map { "\($0.0)=\($0.1)" }.sorted()
    let scope = "history|" + query.joined(separator: "&")
    let (page, revision, hasMore) = try Revision.page(
      list, token: r.value("revision"), scope: scope, descending: filter.descending, store: store)
    return .json(
      .object([
        "revision": .string(revision),
        "bundleId": .string(store.state.bundleID),
        "appAppleId": store.state.productionAppAppleID,
        "environment": .string(store.state.environment.rawValue),
        "hasMore": .bool(hasMore),
        "signedTransactions": .array(page.map { .string(store.signed($0, customer: customer)) }),
      ]))
  }

  /// Get Refund History: the customer's refunded transactions in the order they were
  /// refunded, 20 a page; the last page's revision, kept, later returns only refunds since.
  package static func refundHistory(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let customer = try customer(r["transactionId"], store)
    let list = (store.customer(customer)?.transactions ?? []).filter { $0.isRevoked && !$0.isFamilyRevocation }
    let (page, revision, hasMore) = try Revision.page(
      list, token: r.value("revision"), scope: "refunds", descending: false, store: store)
    return .json(
      .object([
        "signedTransactions": .array(page.map { .string(store.signed($0, customer: customer)) }),
        "revision": .string(revision),
        "hasMore": .bool(hasMore),
      ]))
  }

  /// Revision tokens over the order of changes (`Transaction.modificationOrder`, Apple's
  /// "recently modified date", ties broken by transaction id): a token names where the next
  /// page starts, so a kept revision returns every transaction changed since, with its new data.
  ///
  /// Ascending, `A.<digest>.<order>.<id>`: the transactions after (order, id). The last page's
  /// token starts after the last change the store had then.
  /// Descending, `D.<digest>.<from>.<order>.<id>.<next>`: the transactions before (order, id)
  /// (order 18446744073709551615: no bound) whose order is at least `from`, newest first; `next` is where the
  /// walk's kept revision starts once it reaches its end (after the last change the store had
  /// when the walk began).
  /// `<digest>` ties a token to the query it continues: another query's token is refused (4000005).
  enum Revision {
    typealias Key = (order: UInt64, id: TransactionID)

    static func key(_ t: Transaction) -> Key { (t.modificationOrder, t.id) }

    static func page(
      _ list: [Transaction], token: String?, scope: String, descending: Bool, store: Store
    ) throws -> (items: [Transaction], revision: String, hasMore: Bool) {
      let tag = digest(scope)
      let latest = store.lastModificationOrder + 1
      var after: Key = (0, 0)
      let unbounded = UInt64.max
      var before: Key = (unbounded, 0)
      var from: UInt64 = 0
      var next = latest
      if let token {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let numbers = parts.dropFirst(2).compactMap { UInt64($0) }
        guard parts.count == (descending ? 6 : 4), numbers.count == parts.count - 2,
          parts[0] == (descending ? "D" : "A"), parts[1] == tag
        else {
          throw APIError.invalidRequestRevision
        }
        if descending {
          (from, before, next) = (numbers[0], (numbers[1], numbers[2]), numbers[3])
          guard from <= latest, next <= latest, before.order == unbounded || before.order <= latest else {
            throw APIError.invalidRequestRevision
          }
          // A walk that starts again (from its newest end) takes its end point now.
          if before.order == unbounded { next = latest }
        } else {
          after = (numbers[0], numbers[1])
          guard after.order < latest else { throw APIError.invalidRequestRevision }
        }
      }
      var matching = list.filter { t in
        let k = key(t)
        if descending {
          return t.modificationOrder >= from && k < before
        }
        return k > after
      }
      matching.sort { key($0) < key($1) }
      if descending { matching.reverse() }
      let items = Array(matching.prefix(pageSize))
      let hasMore = matching.count > items.count
      let revision: String
      if let last = items.last, hasMore {
        revision =
          descending
          ? "D.\(tag).\(from).\(last.modificationOrder).\(last.id).\(next)"
          : "A.\(tag).\(last.modificationOrder).\(last.id)"
      } else {
        // The end: a kept revision returns what changes after this answer.
        revision = descending ? "D.\(tag).\(next).\(unbounded).0.\(next)" : "A.\(tag).\(latest - 1).\(UInt64.max)"
      }
      return (items, revision, hasMore)
    }
  }
}
