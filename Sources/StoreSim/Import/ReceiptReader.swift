import Foundation

/// Reads a verifyReceipt answer (`latest_receipt_info`, `receipt.in_app`,
/// `pending_renewal_info`): the old API's snake_case names for the same transactions and
/// renewal infos. What a receipt lacks (prices, storefront) stays empty.
struct ReceiptReader {
  let bundleID: String

  func read(_ node: JSONNode, file: String, item: String, response: String, into items: inout ImportedItems) {
    if case .string(let b) = node["receipt"]?["bundle_id"]?.value, b != bundleID {
      items.problems.append(
        ImportProblem(file: file, item: item, message: "is for bundle \(b), not this session's \(bundleID)"))
      return
    }
    if let receipt = node["receipt"], let first = date(receipt, "original_purchase_date_ms") {
      items.appPurchaseDates.append((first, (file, item.isEmpty ? "receipt" : item + ": receipt")))
    }
    var entries: [(String, JSONNode)] = []
    if case .array(let list) = node["latest_receipt_info"]?.value {
      entries += list.enumerated().map { ("latest_receipt_info[\($0)]", $1) }
    }
    if case .array(let list) = node["receipt"]?["in_app"]?.value {
      entries += list.enumerated().map { ("receipt.in_app[\($0)]", $1) }
    }
    for (name, entry) in entries {
      let place = item.isEmpty ? name : "\(item): \(name)"
      guard let id = text(entry, "transaction_id").flatMap({ UInt64($0) }),
        let product = text(entry, "product_id"), let purchased = date(entry, "purchase_date_ms")
      else {
        items.problems.append(
          ImportProblem(file: file, item: place, message: "has no transaction_id, product_id or purchase_date_ms"))
        continue
      }
      var f = Transaction.Fields.blank
      f.purchase.id = id
      f.purchase.originalID = text(entry, "original_transaction_id").flatMap { UInt64($0) } ?? id
      f.purchase.productID = product
      f.purchase.purchaseDate = purchased
      f.purchase.originalPurchaseDate = date(entry, "original_purchase_date_ms") ?? purchased
      f.purchase.webOrderLineItemID = text(entry, "web_order_line_item_id").flatMap { UInt64($0) }
      f.purchase.purchasedQuantity = text(entry, "quantity").flatMap { Int($0) } ?? 1
      f.purchase.appAccountToken = text(entry, "app_account_token").flatMap { UUID(uuidString: $0) }
      if text(entry, "in_app_ownership_type") == "FAMILY_SHARED" { f.purchase.ownershipType = .familyShared }
      f.status.expirationDate = date(entry, "expires_date_ms")
      // A receipt does not say a product's type (the configuration does): one that expires
      // renews; another is taken as a non-consumable (--add-products).
      f.purchase.productType = f.status.expirationDate == nil ? .nonConsumable : .autoRenewable
      f.status.revocationDate = date(entry, "cancellation_date_ms")
      if f.status.revocationDate != nil {
        f.status.revocationReason = text(entry, "cancellation_reason") == "1" ? .developerIssue : .other
      }
      // A later period of the same original purchase is a renewal.
      if f.purchase.originalID != id, f.status.expirationDate != nil { f.purchase.reason = .renewal }
      items.transactions.append(
        ImportedItems.Item(fields: f, signedDate: nil, appTransactionID: nil, response: response, place: (file, place)))
    }
    guard case .array(let pending) = node["pending_renewal_info"]?.value else { return }
    for entry in pending {
      guard let original = text(entry, "original_transaction_id").flatMap({ UInt64($0) }) else { continue }
      var r = RenewalInfo.blank
      r.originalTransactionID = original
      r.currentProductID = text(entry, "product_id") ?? ""
      r.autoRenewProductID = text(entry, "auto_renew_product_id") ?? r.currentProductID
      r.willAutoRenew = text(entry, "auto_renew_status") == "1"
      r.expirationReason = text(entry, "expiration_intent").flatMap { Int($0) }.flatMap {
        ExpirationReason(rawValue: $0)
      }
      r.isInBillingRetry = text(entry, "is_in_billing_retry_period") == "1"
      r.gracePeriodExpirationDate = date(entry, "grace_period_expires_date_ms")
      switch text(entry, "price_consent_status") {
      case "0": r.priceIncreaseStatus = .pending
      case "1": r.priceIncreaseStatus = .agreed
      default: break
      }
      items.renewals.append(ImportedItems.Renewal(info: r, status: nil, response: response, place: (file, item)))
    }
  }

  private func text(_ node: JSONNode, _ key: String) -> String? {
    switch node[key]?.value {
    case .string(let s), .number(let s): s
    default: nil
    }
  }

  private func date(_ node: JSONNode, _ key: String) -> Date? {
    text(node, key).flatMap { Int64($0) }.map { Date(epochMilliseconds: $0) }
  }
}

extension AppleDataReader {
  /// Whether a file's bytes are base64 text (an app receipt as an app sends it), line breaks
  /// aside.
  static func isBase64(_ bytes: [UInt8]) -> Bool {
    var letters = 0
    for b in bytes {
      switch b {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
        letters += 1
      case 10, 13: continue
      default: return false
      }
    }
    return letters > 0
  }

  /// An app receipt, what an app sends to verifyReceipt as `receipt-data`: storesim's (base64
  /// of the receipt's JSON, rule verify-receipt-data-format) or Apple's (a PKCS#7 container,
  /// `AppReceiptContainer`), read as verifyReceipt's `receipt` (its `in_app`).
  mutating func appReceipt(_ text: String, file: String, item: String, response: String) {
    var clean = String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.isWhitespace }))
    if clean.utf8.count % 4 != 0 { clean += String(repeating: "=", count: 4 - clean.utf8.count % 4) }
    guard let data = Data(base64Encoded: clean), !data.isEmpty else {
      return problem(file, item, "is not JSON, a webhook log or a base64 app receipt")
    }
    let bytes = Array(data)
    if let receipt = try? JSONParser.parse(bytes), receipt["in_app"] != nil,
      let node = try? JSONParser.parse(Array(#"{"receipt":"#.utf8) + bytes + [UInt8(ascii: "}")])
    {
      return ReceiptReader(bundleID: bundleID).read(node, file: file, item: item, response: response, into: &items)
    }
    if AppReceiptContainer.isContainer(bytes) {
      let json: [UInt8]
      do {
        json = try AppReceiptContainer.receipt(bytes)
      } catch {
        return problem(file, item, "is an app receipt in Apple's PKCS#7 form that " + error.message)
      }
      guard let node = try? JSONParser.parse(json) else { return problem(file, item, "is an unreadable app receipt") }
      return ReceiptReader(bundleID: bundleID).read(node, file: file, item: item, response: response, into: &items)
    }
    problem(file, item, "is base64, but not an app receipt")
  }
}
