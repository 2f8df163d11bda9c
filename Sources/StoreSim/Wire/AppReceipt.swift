import Foundation

/// The app receipt as storesim writes it: what an app sends to `verifyReceipt` as
/// `receipt-data`. Apple's is a base64 PKCS#7 container; storesim's is base64 (standard
/// alphabet) of the compact JSON of the response's `receipt` object, the same bytes as
/// `latest_receipt`. It is read back by `bundle_id` (the app), `receipt_type` (`Production`
/// for a production receipt, `ProductionSandbox` for every other environment) and the
/// `transaction_id`s of `in_app`, which name the customer: transaction ids are unique in a
/// session, so the customer who owns them is the receipt's (an empty `in_app`: the default
/// customer). Rule verify-receipt-data-format.
public struct AppReceipt: Sendable, Equatable {
  /// The app's bundle id.
  public var bundleID: String
  /// Whether the receipt is a production one (`receipt_type` `Production`).
  public var isProduction: Bool
  /// The transaction ids of `in_app`, in order.
  public var transactionIDs: [TransactionID]
  /// `download_id`: the session that issued the receipt (0 when absent). Rule
  /// verify-receipt-tied-to-session.
  public var downloadID: Int64

  /// Reads `receipt-data`: base64 (line breaks ignored, padding optional) of a JSON object
  /// with a string `bundle_id`, a string `receipt_type` and an array `in_app` of objects whose
  /// `transaction_id` is a string of digits. nil when it is anything else. Line breaks are
  /// dropped as Unicode scalars: CR LF is one `Character`, so a `Character` filter would keep it
  /// (Foundation's `lineLength64Characters` with `endLineWithCarriageReturn` writes CR LF).
  public init?(data: String) {
    var scalars = String.UnicodeScalarView()
    scalars.append(contentsOf: data.unicodeScalars.lazy.filter { $0 != "\r" && $0 != "\n" })
    var text = String(scalars)
    if text.utf8.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.utf8.count % 4) }
    guard let bytes = Data(base64Encoded: text), let node = try? JSONParser.parse(Array(bytes)),
      case .string(let bundle)? = node["bundle_id"]?.value, !bundle.isEmpty,
      case .string(let type)? = node["receipt_type"]?.value,
      case .array(let items)? = node["in_app"]?.value
    else { return nil }
    var ids: [TransactionID] = []
    for item in items {
      guard case .string(let id)? = item["transaction_id"]?.value, let n = TransactionID(id) else { return nil }
      ids.append(n)
    }
    bundleID = bundle
    isProduction = type == "Production"
    transactionIDs = ids
    switch node["download_id"]?.value {
    case .number(let digits)?: downloadID = Int64(digits) ?? -1
    case nil: downloadID = 0
    default: downloadID = -1
    }
  }
}

extension Store {
  /// Ties the session's app receipts to it (`download_id`, rule verify-receipt-tied-to-session):
  /// a receipt another session issued, even of the same app with the same transaction ids,
  /// then cannot be authenticated. The caller picks the value (the core draws no random numbers).
  package mutating func tieReceipts(toDownload id: Int64) {
    state.downloadID = id
  }

  /// A customer's app receipt as an app holds it (`receipt-data`, see `AppReceipt`).
  public func appReceiptData(customer: CustomerID = .default) -> String {
    let receipt = self.receipt(customer: customer)["receipt"] ?? .object([:])
    return Data(receipt.rendered(pretty: false).utf8).base64EncodedString()
  }

  /// The customer an app receipt belongs to: the owner of its first transaction the session
  /// knows, the default customer for a receipt without transactions; nil when none is found.
  public func customer(of receipt: AppReceipt) -> CustomerID? {
    guard !receipt.transactionIDs.isEmpty else { return customer(.default) == nil ? nil : .default }
    for id in receipt.transactionIDs {
      if let owner = state.customers.first(where: { $0.transaction(id) != nil }) { return owner.id }
    }
    return nil
  }
}
