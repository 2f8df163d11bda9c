import Foundation

/// The legacy `verifyReceipt` response shape (rule verify-receipt-response-shape).
extension Store {
  /// The `verifyReceipt` status codes storesim can answer with (rule verify-receipt-status-codes).
  public static let receiptStatusCodes: [Int: String] = [
    0: "valid", 21000: "request not an HTTP POST", 21001: "no longer sent",
    21002: "receipt-data malformed or temporary problem", 21003: "receipt could not be authenticated",
    21004: "shared secret does not match", 21005: "receipt server temporarily unavailable",
    21006: "valid but the subscription expired", 21007: "sandbox receipt sent to production",
    21008: "production receipt sent to sandbox", 21009: "internal data access error",
    21010: "account not found or deleted",
  ]

  /// A `verifyReceipt`-shaped response for a customer.
  ///
  /// - Parameters:
  ///   - askedAs: the endpoint the receipt is sent to (`Production` or `Sandbox`); a test or
  ///     sandbox receipt sent to production answers 21007, a production one sent to the sandbox
  ///     21008. Defaults to the endpoint matching the session's environment.
  ///   - forcedStatus: answer with this error status instead (21000–21010, 21100–21199).
  public func receipt(
    customer: CustomerID = .default, askedAs: StoreEnvironment? = nil, forcedStatus: Int? = nil
  ) -> JSONOutput {
    let isProduction = state.environment == .production
    let endpoint = askedAs ?? (isProduction ? .production : .sandbox)
    if let code = forcedStatus, code != 0 {
      var d: [String: JSONOutput] = ["status": .int(Int64(code))]
      if (21100...21199).contains(code) { d["is-retryable"] = .bool(true) }
      return .object(d)
    }
    if !isProduction && endpoint == .production { return .object(["status": .int(21007)]) }
    if isProduction && endpoint != .production { return .object(["status": .int(21008)]) }
    let c = self.customer(customer)
    let list = (c?.transactions ?? []).filter { !($0.productType == .consumable && $0.isFinished && !$0.isRevoked) }
    let receipt = receiptBody(list, isProduction: isProduction)
    var response: [String: JSONOutput] = [
      "status": .int(0),
      "environment": .string(isProduction ? "Production" : "Sandbox"),
      "receipt": .object(receipt),
    ]
    if list.contains(where: { $0.productType == .autoRenewable }) {
      response["latest_receipt_info"] = .array(list.reversed().map { Self.receiptEntry($0, latest: true) })
      response["latest_receipt"] = .string(
        Data(JSONOutput.object(receipt).rendered(pretty: false).utf8).base64EncodedString())
      response["pending_renewal_info"] = .array((c?.subscriptions ?? []).map(Self.pendingRenewalInfo))
    }
    return .object(response)
  }

  /// `receipt`: the app's fields and `in_app`.
  func receiptBody(_ list: [Transaction], isProduction: Bool) -> [String: JSONOutput] {
    var receipt: [String: JSONOutput] = [
      "receipt_type": .string(isProduction ? "Production" : "ProductionSandbox"),
      "adam_id": .int(0), "app_item_id": .int(0),
      "bundle_id": .string(state.bundleID),
      "application_version": .string("1"),
      "original_application_version": .string("1.0"),
      "download_id": .int(state.downloadID ?? 0), "version_external_identifier": .int(0),
      "in_app": .array(list.map { Self.receiptEntry($0, latest: false) }),
    ]
    ReceiptDates.add("receipt_creation_date", state.now, to: &receipt)
    ReceiptDates.add("request_date", state.now, to: &receipt)
    ReceiptDates.add("original_purchase_date", state.startDate, to: &receipt)
    return receipt
  }

  /// One transaction of `in_app` or (`latest`) `latest_receipt_info`.
  static func receiptEntry(_ t: Transaction, latest: Bool) -> JSONOutput {
    var d: [String: JSONOutput] = [
      "quantity": .string(String(t.purchasedQuantity)),
      "product_id": .string(t.productID),
      "transaction_id": .string(String(t.id)),
      "original_transaction_id": .string(String(t.originalID)),
      "is_trial_period": .string(
        t.offer?.type == .introductory && t.offer?.paymentMode == .freeTrial ? "true" : "false"),
      "in_app_ownership_type": .string(t.ownershipType.rawValue),
    ]
    ReceiptDates.add("purchase_date", t.purchaseDate, to: &d)
    ReceiptDates.add("original_purchase_date", t.originalPurchaseDate, to: &d)
    if t.productType == .autoRenewable {
      d["is_in_intro_offer_period"] = .string(
        t.offer?.type == .introductory && t.offer?.paymentMode != .freeTrial ? "true" : "false")
      if let e = t.expirationDate { ReceiptDates.add("expires_date", e, to: &d) }
      if let w = t.webOrderLineItemID { d["web_order_line_item_id"] = .string(String(w)) }
      if latest, let g = t.subscriptionGroupID { d["subscription_group_identifier"] = .string(g) }
    }
    if t.isUpgraded { d["is_upgraded"] = .string("true") }
    // Rule receipt-cancellation-only-for-non-consumables-and-subscriptions: a refunded
    // consumable carries no cancellation date in the receipt.
    if let r = t.revocationDate, t.productType != .consumable {
      ReceiptDates.add("cancellation_date", r, to: &d)
      d["cancellation_reason"] = .string(t.revocationReason == .developerIssue ? "1" : "0")
    }
    if let o = t.offer, o.type == .promotional, let id = o.id { d["promotional_offer_id"] = .string(id) }
    if let o = t.offer, o.type == .code, let id = o.id { d["offer_code_ref_name"] = .string(id) }
    if let token = t.appAccountToken { d["app_account_token"] = .string(token.uuidString.lowercased()) }
    return .object(d)
  }

  /// One subscription of `pending_renewal_info`.
  static func pendingRenewalInfo(_ sub: SubscriptionState) -> JSONOutput {
    var d: [String: JSONOutput] = [
      "original_transaction_id": .string(String(sub.originalID)),
      "product_id": .string(sub.currentProductID),
      "auto_renew_product_id": .string(sub.autoRenewProductID),
      "auto_renew_status": .string(sub.willAutoRenew ? "1" : "0"),
    ]
    // Rule receipt-pending-renewal-info-follows-renewal-info: during billing retry the entry
    // says why the subscription expired (2, a billing error), as the renewal info does; once
    // it has ended another way (a cancel during grace) the grace and retry fields go.
    if sub.isExpired || sub.isInBillingRetry, let reason = sub.expirationReason {
      d["expiration_intent"] = .string(String(reason.rawValue))
    }
    if sub.expirationReason == .billingError {
      d["is_in_billing_retry_period"] = .string(sub.isInBillingRetry ? "1" : "0")
    }
    if let grace = sub.gracePeriodExpirationDate {
      ReceiptDates.add("grace_period_expires_date", grace, to: &d)
    }
    switch sub.priceIncreaseStatus {
    case .pending: d["price_consent_status"] = .string("0")
    case .agreed: d["price_consent_status"] = .string("1")
    case .noIncreasePending: break
    }
    if let o = sub.pendingOffer, o.type == .promotional, let id = o.id { d["promotional_offer_id"] = .string(id) }
    if let o = sub.pendingOffer, o.type == .code, let id = o.id { d["offer_code_ref_name"] = .string(id) }
    return .object(d)
  }
}

/// The receipt date triple: `X` (GMT), `X_ms`, `X_pst` (America/Los_Angeles, with US DST).
enum ReceiptDates {
  static func add(_ key: String, _ date: Date, to d: inout [String: JSONOutput]) {
    let ms = date.epochMilliseconds
    d[key] = .string(format(ms) + " Etc/GMT")
    d[key + "_ms"] = .string(String(ms))
    d[key + "_pst"] = .string(format(ms + pacificOffsetMs(ms)) + " America/Los_Angeles")
  }

  static func format(_ ms: Int64) -> String {
    let iso = ISO8601.string(Date(epochMilliseconds: ms - ms % 1000))
    return iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
  }

  /// UTC offset of Los Angeles: −7 h from the second Sunday of March 10:00 UTC to the first
  /// Sunday of November 09:00 UTC, −8 h otherwise (rules since 2007).
  static func pacificOffsetMs(_ ms: Int64) -> Int64 {
    let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
    let (year, _, _) = UTCCalendar.civil(fromDays: days)
    func nthSunday(_ month: Int64, _ n: Int64) -> Int64 {
      let first = UTCCalendar.daysFromCivil(year: year, month: month, day: 1)
      let weekday = (first + 4) % 7  // 0 = Sunday; 1970-01-01 was a Thursday
      let offset = (7 - (weekday < 0 ? weekday + 7 : weekday)) % 7
      return first + offset + (n - 1) * 7
    }
    let start = nthSunday(3, 2) * 86_400_000 + 10 * 3_600_000
    let end = nthSunday(11, 1) * 86_400_000 + 9 * 3_600_000
    return (ms >= start && ms < end ? -7 : -8) * 3_600_000
  }
}
