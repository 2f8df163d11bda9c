import Foundation
import StoreSim

/// The writing endpoints about one purchase: Set App Account Token and Send Consumption
/// Information (v1 and v2).
extension ServerAPI {
  package static func setAppAccountToken(_ r: RouteRequest, store: Store) throws -> APIResponse {
    let id = try transactionID(r["originalTransactionId"], invalid: .invalidOriginalTransactionID)
    let body = try RequestBody(r.body)
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
    return .empty(200, changed)
  }

  package static let deliveryStatusesV2: Set<String> = [
    "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
    "UNDELIVERED_OTHER",
  ]
  package static let refundPreferencesV2: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

  /// Send Consumption Information (v1 and v2 bodies), validated field by field with Apple's
  /// codes; recorded, answering the transaction's pending refund request when there is one.
  package static func consumption(_ r: RouteRequest, store: Store, version: Int) throws -> APIResponse {
    let id = try transactionID(r["transactionId"])
    guard let (customer, _) = find(id, in: store) else { throw APIError.transactionIDNotFound }
    let body = try RequestBody(r.body)
    let consented = APIError(status: 400, code: 4_000_035, message: "Invalid customer consented: it must be true.")
    guard try body.bool("customerConsented", consented, required: true) == true else { throw consented }
    let keys = version == 1 ? try consumptionV1Keys(body) : try consumptionV2Keys(body)
    var fields: [String: String] = [:]
    for k in keys { if let v = body.text(k) { fields[k] = v } }
    var changed = store
    changed.recordConsumption(transactionID: id, customer: customer, version: version, fields: fields)
    return .empty(202, changed)
  }

  /// Checks a `ConsumptionRequest` (v1) body after `customerConsented`; the keys recorded.
  package static func consumptionV1Keys(_ body: RequestBody) throws -> [String] {
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
  package static func consumptionV2Keys(_ body: RequestBody) throws -> [String] {
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
}
