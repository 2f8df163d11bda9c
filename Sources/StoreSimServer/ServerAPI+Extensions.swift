import Foundation
import StoreSim

/// The renewal-date extension endpoints: one subscription, all active subscribers, and the
/// status of a mass extension.
extension ServerAPI {
  /// At most this many storefront codes in a mass extension (more than the App Store's
  /// storefronts); duplicates count once.
  package static let maxStorefrontCountryCodes = 200

  package static func extensionParameters(_ body: RequestBody) throws -> (days: Int, reason: Int, request: String) {
    let days = try body.int("extendByDays", 1...90, .invalidExtendByDays, required: true)!
    let reason = try body.int("extendReasonCode", 0...3, .invalidExtendReasonCode, required: true)!
    guard let request = try body.string("requestIdentifier", .invalidRequestIdentifier, required: true),
      !request.isEmpty, request.utf8.count <= 128
    else {
      throw APIError.invalidRequestIdentifier
    }
    return (days, reason, request)
  }

  /// Extend a Subscription Renewal Date (RENEWAL_EXTENDED): 1–90 days, reason 0–3, at most two
  /// per subscription in 365 days, active paid periods only, never a family member's copy.
  package static func extend(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
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
        throw APIError.subscriptionExtensionIneligible.saying(
          "Forbidden - subscription state ineligible for extension: it is not active (expired, revoked, in billing retry or grace period)."
        )
      case .freeOfferPeriod:
        throw APIError.subscriptionExtensionIneligible.saying(
          "Forbidden - subscription state ineligible for extension: it is in a free offer period; only paid periods are extended."
        )
      case .notAutoRenewable:
        throw APIError.subscriptionExtensionIneligible.saying(
          "Forbidden - subscription state ineligible for extension: the purchase is not an auto-renewable subscription."
        )
      case .maximumReached: throw APIError.subscriptionMaxExtension
      case .familyShared: throw APIError.familySharedSubscriptionExtensionIneligible
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

  /// Extend Subscription Renewal Dates for All Active Subscribers: storesim completes it at
  /// once (RENEWAL_EXTENDED for each subscription extended, RENEWAL_EXTENSION/FAILURE for each
  /// that could not be, then RENEWAL_EXTENSION/SUMMARY). The request identifier must be a UUID.
  package static func massExtend(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let body = try RequestBody(r.body)
    let (days, reason, request) = try extensionParameters(body)
    guard UUID(uuidString: request) != nil else {
      throw APIError.invalidRequestIdentifier.saying("Invalid request identifier: a mass extension needs a UUID.")
    }
    guard let product = try body.string("productId", .invalidProductID, required: true),
      let p = store.configuration.product(product), p.type == .autoRenewable
    else {
      throw APIError.invalidProductID
    }
    let storefronts = try storefrontCountryCodes(body)
    var changed = store
    changed.massExtendRenewalDate(
      productID: product, days: days, reason: reason, requestIdentifier: request, storefronts: storefronts)
    var response = APIResponse.json(.object(["requestIdentifier": .string(request)]))
    response.changed = changed
    return response
  }

  /// `storefrontCountryCodes`: nil when absent (every storefront); each an ISO 3166-1 alpha-3
  /// code; duplicates merged, in first-seen order; at most `maxStorefrontCountryCodes`.
  static func storefrontCountryCodes(_ body: RequestBody) throws -> [String]? {
    guard let node = body.node["storefrontCountryCodes"], node.value != .null else { return nil }
    guard case .array(let items) = node.value else { throw APIError.invalidStorefrontCountryCode }
    if items.isEmpty { throw APIError.invalidEmptyStorefrontCountryCodeList }
    var codes: [String] = []
    var seen: Set<String> = []
    for item in items {
      guard case .string(let code) = item.value, code.utf8.count == 3, code.utf8.allSatisfy({ (65...90).contains($0) })
      else {
        throw APIError.invalidStorefrontCountryCode
      }
      if seen.insert(code).inserted { codes.append(code) }
      if codes.count > maxStorefrontCountryCodes {
        throw APIError.invalidStorefrontCountryCode.saying(
          "Invalid request. More than \(maxStorefrontCountryCodes) storefront country codes.")
      }
    }
    return codes
  }

  /// Get Status of Subscription Renewal Date Extensions.
  package static func massExtendStatus(
    productID: String, requestIdentifier: String, _ store: Store
  ) throws
    -> APIResponse
  {
    guard store.configuration.product(productID)?.type == .autoRenewable else { throw APIError.invalidProductID }
    guard requestIdentifier.utf8.count <= 128 else { throw APIError.invalidRequestIdentifier }
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
