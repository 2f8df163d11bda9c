import Foundation
import StoreSim

/// The renewal-date extension endpoints: one subscription, all active subscribers, and the
/// status of a mass extension.
extension ServerAPI {
  package static func extensionParameters(_ body: RequestBody) throws -> (days: Int, reason: Int, request: String) {
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
  package static func extend(_ r: RouteRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(r["originalTransactionId"], invalid: .invalidOriginalTransactionID)
    let body = try RequestBody(r.body)
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
  package static func massExtend(_ r: RouteRequest, store: Store) throws -> APIResponse {
    let body = try RequestBody(r.body)
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
}
