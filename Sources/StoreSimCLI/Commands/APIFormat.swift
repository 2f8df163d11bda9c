import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimHTTP
import StoreSimServer

/// `--signed` and `--format api`: how `transactions`, `latest` and `status` print what they
/// read, declared once.
struct SignedOrAPIFormat: OptionGroupDeclaration {
  @Flag(help: "print compact JWS (ES256, the session's key; see 'storesim certificate')")
  var signed: Bool
  @Option(
    "<format>", help: "api: the App Store Server API's answer, from the same code serve answers with", parse: apiFormat)
  var format: String?

  /// Whether `--format api` is given.
  var api: Bool { format != nil }

  /// `--signed` and `--format api` exclude each other (the API response already holds signed data).
  func validate(command: String) throws {
    if signed && format != nil {
      throw CLIError.usage(
        "give --signed or --format api, not both (the API response already holds signed data)", command: command)
    }
  }
}

/// `--format api`: the only format there is.
func apiFormat(_ text: String, _ context: ParseContext) throws -> String {
  guard text.lowercased() == "api" else {
    throw CLIError.usage("unknown format '\(text)'; the only format is api", command: context.command)
  }
  return text
}

/// What `--format api` prints: the App Store Server API's answer to a GET on the session,
/// answered by the server's own responder (`ServerAPI.respond`, as `serve` and `storesim api`
/// answer), so the two never disagree (paging by 20, a real `revision`).
enum ServerAPIAnswer {
  /// The JSON body of a GET of `target` (a path with its query); an error answer is refused.
  static func get(_ target: String, store: Store, inv: Invocation) throws -> JSONOutput {
    let request = HTTPRequest(method: "GET", target: target, headers: [:], body: [])
    let response = ServerAPI.respond(request, store: store, now: inv.environment.now(), trusted: true)
    guard (200...299).contains(response.status), let value = response.value else {
      let message = response.value?["errorMessage"].flatMap { v -> String? in
        if case .string(let s) = v { return s }
        return nil
      }
      throw CLIError.failed("the App Store Server API answered \(response.status): \(message ?? response.body)")
    }
    return value
  }

  /// Get Transaction History (v2) of the customer `id` names: one page (the one after
  /// `revision`), or with `keeping` every page in one answer (`hasMore` false, the last page's
  /// revision) holding only the transactions whose ids it names (read from each JWS's payload,
  /// so nothing is signed twice).
  static func history(
    of id: String, productID: String?, revision: String?, keeping: Set<TransactionID>?, store: Store,
    inv: Invocation
  ) throws -> JSONOutput {
    var revision = revision
    var all: [JSONOutput] = []
    while true {
      let query = query([("productId", productID), ("revision", revision)])
      let page = try get("/inApps/v2/history/\(id)\(query)", store: store, inv: inv)
      guard let keeping, case .object(var fields) = page else { return page }
      if case .array(let signed)? = fields["signedTransactions"] {
        all += signed.filter { item in transactionID(of: item).map(keeping.contains) ?? false }
      }
      guard fields["hasMore"] == .bool(true), case .string(let next)? = fields["revision"] else {
        fields["signedTransactions"] = .array(all)
        return .object(fields)
      }
      revision = next
    }
  }

  /// The `transactionId` in a signed transaction's payload.
  private static func transactionID(of item: JSONOutput) -> TransactionID? {
    guard case .string(let jws) = item, let payload = JWS.payload(of: jws),
      case .string(let text)? = (try? JSONParser.parse(payload))?["transactionId"]?.value
    else { return nil }
    return TransactionID(text)
  }

  /// The identifier the API takes for "any transaction id" of `customer`: its `appTransactionId`,
  /// which names the customer whether or not it bought anything. Nil for a customer the session
  /// has not seen.
  static func anyTransactionID(of customer: CustomerID, in store: Store) -> String? {
    store.customer(customer)?.appTransactionID
  }

  /// A query string of name-value pairs (values percent-encoded), with its `?`; empty for none.
  static func query(_ pairs: [(String, String?)]) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
    let items = pairs.compactMap { name, value in
      value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0)" }
    }
    return items.isEmpty ? "" : "?" + items.joined(separator: "&")
  }
}
