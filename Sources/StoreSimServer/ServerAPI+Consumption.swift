import Foundation
import StoreSim

/// The writing endpoints about one purchase: Set App Account Token and Send Consumption
/// Information (v1 and v2).
extension ServerAPI {
  /// Set App Account Token: on a purchase's original transaction id; the token applies to a
  /// one-time purchase, or to a subscription's current renewal transaction and later ones.
  package static func setAppAccountToken(_ r: RouteRequest, _ store: Store) throws -> APIResponse {
    let (_, t) = try singlePurchase(
      r["originalTransactionId"], store, invalid: .invalidTransactionID, notFound: .originalTransactionIDNotFound)
    let body = try RequestBody(r.body)
    guard let text = try body.string("appAccountToken", .invalidAppAccountTokenUUID, required: true),
      let token = UUID(uuidString: text)
    else {
      throw APIError.invalidAppAccountTokenUUID
    }
    if t.ownershipType == .familyShared { throw APIError.familyTransactionNotSupported }
    guard t.originalID == t.id else { throw APIError.transactionIDIsNotOriginalTransactionID }
    var changed = store
    _ = changed.setAppAccountToken(token, originalTransactionID: t.id)
    return .empty(200, changed)
  }

  package static let deliveryStatusesV2: Set<String> = [
    "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
    "UNDELIVERED_OTHER",
  ]
  package static let refundPreferencesV2: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

  /// Send Consumption Information (v1 and v2 bodies), validated field by field with Apple's
  /// codes; recorded, answering the transaction's pending refund request when there is one.
  package static func consumption(_ r: RouteRequest, _ store: Store, version: Int) throws -> APIResponse {
    let (customer, t) = try singlePurchase(r["transactionId"], store)
    if t.ownershipType == .familyShared { throw APIError.familyTransactionNotSupported }
    // V1 takes consumables and auto-renewable subscriptions only (API 1.11).
    if version == 1 && t.productType != .consumable && t.productType != .autoRenewable {
      throw APIError.invalidTransactionTypeNotSupported
    }
    let body = try RequestBody(r.body)
    guard try body.bool("customerConsented", .invalidCustomerConsented, required: true) == true else {
      throw APIError.invalidCustomerConsented
    }
    let keys = version == 1 ? try consumptionV1Keys(body) : try consumptionV2Keys(body, t)
    var fields: [String: String] = [:]
    for k in keys { if let v = body.text(k) { fields[k] = v } }
    var changed = store
    changed.recordConsumption(transactionID: t.id, customer: customer, version: version, fields: fields)
    return .empty(202, changed)
  }

  /// Checks a `ConsumptionRequestV1` body after `customerConsented`; the keys recorded.
  package static func consumptionV1Keys(_ body: RequestBody) throws -> [String] {
    _ = try body.int("consumptionStatus", 0...3, .invalidConsumptionStatus, required: true)
    _ = try body.int("platform", 0...2, .invalidPlatform, required: true)
    _ = try body.bool("sampleContentProvided", .invalidSampleContentProvided, required: true)
    _ = try body.int("deliveryStatus", 0...5, .invalidDeliveryStatus, required: true)
    if let token = try body.string("appAccountToken", .invalidAppAccountToken, required: true), !token.isEmpty,
      UUID(uuidString: token) == nil
    {
      throw APIError.invalidAppAccountToken
    }
    _ = try body.int("accountTenure", 0...7, .invalidAccountTenure, required: true)
    _ = try body.int("playTime", 0...7, .invalidPlayTime, required: true)
    _ = try body.int("lifetimeDollarsRefunded", 0...7, .invalidLifetimeDollarsRefunded, required: true)
    _ = try body.int("lifetimeDollarsPurchased", 0...7, .invalidLifetimeDollarsPurchased, required: true)
    _ = try body.int("userStatus", 0...4, .invalidUserStatus, required: true)
    _ = try body.int("refundPreference", 0...3, .invalidRefundPreference)
    return [
      "customerConsented", "consumptionStatus", "platform", "sampleContentProvided", "deliveryStatus",
      "appAccountToken", "accountTenure",
      "playTime", "lifetimeDollarsRefunded", "lifetimeDollarsPurchased", "userStatus", "refundPreference",
    ]
  }

  /// Checks a `ConsumptionRequest` (v2) body after `customerConsented`; the keys recorded.
  package static func consumptionV2Keys(_ body: RequestBody, _ t: Transaction) throws -> [String] {
    _ = try body.bool("sampleContentProvided", .invalidSampleContentProvided, required: true)
    guard let status = try body.string("deliveryStatus", .invalidDeliveryStatus, required: true),
      deliveryStatusesV2.contains(status)
    else { throw APIError.invalidDeliveryStatus }
    if let p = try body.string("refundPreference", .invalidRefundPreference), !refundPreferencesV2.contains(p) {
      throw APIError.invalidRefundPreference
    }
    if body.has("consumptionPercentage") {
      if t.productType == .autoRenewable { throw APIError.consumptionPercentageAutoRenewable }
      guard let percentage = try? body.int("consumptionPercentage", 0...100_000, .generalBadRequest) else {
        throw APIError.consumptionPercentageOutOfRange
      }
      if status != "DELIVERED" && percentage != 0 { throw APIError.undeliveredConsumptionPercentageNonZero }
    }
    return [
      "customerConsented", "sampleContentProvided", "deliveryStatus", "consumptionPercentage", "refundPreference",
    ]
  }
}
