import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer

/// Rows of the table: Get Transaction History, v1 and v2 (the same parameters and codes).
extension ServerAPIContractTests {
  static let historyRows: [ContractRow] = [1, 2].flatMap { version -> [ContractRow] in
    let endpoint = "/inApps/v\(version)/history/{transactionId}"
    let base = "/inApps/v\(version)/history/\(any)"
    func refused(_ code: Int, _ query: String) -> ContractRow {
      R(
        endpoint: endpoint, entry: String(code), method: "GET", target: base + "?" + query, status: 400, errorCode: code
      )
    }
    return [
      // v2 lists a consumable the app finished; v1 leaves it out (Apple's difference).
      R(
        endpoint: endpoint, entry: "200", method: "GET", target: "/inApps/v\(version)/history/\(appTransactionID)",
        setup: [("POST", "/inApps/v1/transactions/\(coins)/finish", "")], status: 200,
        check: { a, _ in
          let ids = history(a)
          return ids.contains(refunded) && ids.contains(coins) == (version == 2) && a.json?["revision"] != nil
            && a.json?["hasMore"]?.value == .bool(false)
        }),
      refused(4_000_005, "revision=nope"),
      R(
        endpoint: endpoint, entry: "4000006", method: "GET", target: "/inApps/v\(version)/history/x", status: 400,
        errorCode: 4_000_006),
      refused(4_000_013, "startDate=1767225600000&endDate=1767225600000"),
      refused(4_000_015, "startDate=yesterday"),
      refused(4_000_016, "endDate=tomorrow"),
      refused(4_000_021, "sort=UP"),
      refused(4_000_022, "productType=GIZMO"),
      refused(4_000_023, "productId="),
      refused(4_000_024, "subscriptionGroupIdentifier="),
      refused(4_000_025, "excludeRevoked=maybe"),
      refused(4_000_026, "inAppOwnershipType=MINE"),
      refused(4_000_030, "revoked=maybe"),
      R(
        endpoint: endpoint, entry: "4040010", method: "GET", target: "/inApps/v\(version)/history/\(unknown)",
        status: 404, errorCode: 4_040_010),
    ]
  }
}
