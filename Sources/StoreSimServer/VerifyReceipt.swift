import Foundation
import StoreSim
import StoreSimHTTP

/// `POST /verifyReceipt`, Apple's legacy receipt validation, over a session: a pure function
/// of the request and the store. The production endpoint is `/verifyReceipt`; the sandbox one
/// is `/sandbox/verifyReceipt` (or `/verifyReceipt` asked with `Host: sandbox.itunes.apple.com`),
/// so a server's two base URLs are `http://HOST:PORT` and `http://HOST:PORT/sandbox`.
/// Every answer is HTTP 200; the outcome is the JSON `status` (rule verify-receipt-endpoint).
package enum VerifyReceipt {
  /// The endpoint a request asks (production or sandbox); nil when it is not a verifyReceipt request.
  package static func endpoint(_ request: HTTPRequest) -> StoreEnvironment? {
    switch request.path {
    case sandboxPath: return .sandbox
    case productionPath:
      let host = request.headers["host"]?.lowercased() ?? ""
      return host.hasPrefix("sandbox.") ? .sandbox : .production
    default: return nil
    }
  }

  static let productionPath = "/verifyReceipt"
  static let sandboxPath = "/sandbox/verifyReceipt"

  /// Whether a request target (path and query) asks either endpoint, without making a request
  /// of it (the server asks this of every request whose head has arrived).
  package static func isEndpoint(target: String) -> Bool {
    let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
    return path == productionPath || path == sandboxPath
  }

  /// The answer to a verifyReceipt request at `endpoint`. With a `sharedSecret`, the request's
  /// `password` must be it (missing: 21003, another: 21004); without one it is not checked.
  package static func answer(
    _ request: HTTPRequest, store: Store, endpoint: StoreEnvironment, sharedSecret: String?
  ) -> APIResponse {
    let response: JSONOutput
    switch verify(request, store: store, endpoint: endpoint, sharedSecret: sharedSecret) {
    case .failure(let status): response = .object(["status": .int(Int64(status.code))])
    case .success(let valid): response = valid
    }
    return APIResponse(status: 200, body: response.rendered(pretty: false))
  }

  /// The largest request body taken for a session of `transactions` transactions: 1 MiB plus
  /// 4 KiB per transaction (rule verify-receipt-takes-every-receipt-it-issued).
  package static func bodyLimit(transactions: Int) -> Int {
    (1 << 20) + 4096 * max(0, transactions)
  }

  /// A verifyReceipt status other than 0.
  package struct Status: Error, Equatable {
    package var code: Int
    /// 21000: not a POST, or the body is not a JSON object.
    package static let badRequest = Status(code: 21000)
    /// 21002: `receipt-data` missing or not a storesim receipt.
    package static let malformed = Status(code: 21002)
    /// 21003: the receipt is another app's or another session's, or the shared secret is missing.
    package static let notAuthenticated = Status(code: 21003)
    /// 21004: the shared secret is not the app's.
    package static let wrongSecret = Status(code: 21004)
    /// 21007: a sandbox receipt sent to production.
    package static let sandboxAtProduction = Status(code: 21007)
    /// 21008: a production receipt sent to the sandbox.
    package static let productionAtSandbox = Status(code: 21008)
    /// 21010: no customer of the session owns the receipt's transactions.
    package static let accountNotFound = Status(code: 21010)
  }

  /// The checks in the order the answer is decided: the request, the receipt's form, its
  /// environment against the endpoint's, the app, the shared secret, the customer.
  static func verify(
    _ request: HTTPRequest, store: Store, endpoint: StoreEnvironment, sharedSecret: String?
  ) -> Result<JSONOutput, Status> {
    guard request.method == "POST", let body = try? JSONParser.parse(request.body), body.members != nil else {
      return .failure(.badRequest)
    }
    guard case .string(let data)? = body["receipt-data"]?.value, let receipt = AppReceipt(data: data) else {
      return .failure(.malformed)
    }
    if !receipt.isProduction && endpoint == .production { return .failure(.sandboxAtProduction) }
    if receipt.isProduction && endpoint != .production { return .failure(.productionAtSandbox) }
    // Another app's receipt, or another session's (rule verify-receipt-tied-to-session).
    guard receipt.bundleID == store.state.bundleID, receipt.downloadID == store.state.downloadID ?? 0 else {
      return .failure(.notAuthenticated)
    }
    if let sharedSecret {
      guard case .string(let password)? = body["password"]?.value, !password.isEmpty else {
        return .failure(.notAuthenticated)
      }
      guard password == sharedSecret else { return .failure(.wrongSecret) }
    }
    guard let customer = store.customer(of: receipt) else { return .failure(.accountNotFound) }
    var response = store.receipt(customer: customer, askedAs: endpoint)
    if excludeOldTransactions(body["exclude-old-transactions"]?.value) {
      response = latestOnly(response)
    }
    return .success(response)
  }

  /// `exclude-old-transactions`: true (or the string "true"); anything else is false.
  static func excludeOldTransactions(_ value: JSONValue?) -> Bool {
    switch value {
    case .bool(let b)?: return b
    case .string(let s)?: return s.lowercased() == "true"
    default: return false
    }
  }

  /// `latest_receipt_info` with only the newest transaction of each auto-renewable
  /// subscription (entries with an `expires_date`, by `original_transaction_id`); other
  /// purchases stay, `receipt.in_app` is unchanged.
  static func latestOnly(_ response: JSONOutput) -> JSONOutput {
    guard case .object(var fields) = response, case .array(let entries)? = fields["latest_receipt_info"] else {
      return response
    }
    var seen: Set<String> = []
    let kept = entries.filter { entry in
      guard entry["expires_date"] != nil, case .string(let original)? = entry["original_transaction_id"] else {
        return true
      }
      return seen.insert(original).inserted
    }
    fields["latest_receipt_info"] = .array(kept)
    return .object(fields)
  }
}
