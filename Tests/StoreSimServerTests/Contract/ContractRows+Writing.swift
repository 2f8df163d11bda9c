import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer

/// Rows of the table: Set App Account Token, Send Consumption Information (v2 and V1).
extension ServerAPIContractTests {
  static let uuid = "7E3FB20B-4CDB-47CC-936D-99D65F608138"

  static let writingRows: [ContractRow] = {
    let token = "/inApps/v1/transactions/{originalTransactionId}/appAccountToken"
    let v2 = "/inApps/v2/transactions/consumption/{transactionId}"
    let v1 = "/inApps/v1/transactions/consumption/{transactionId}"
    let body = #"{"appAccountToken":"\#(uuid)"}"#
    func put(
      _ endpoint: String, _ entry: String, _ id: String, _ body: String, _ status: Int, _ code: Int?
    )
      -> ContractRow
    {
      let target = endpoint.replacingOccurrences(of: "{originalTransactionId}", with: id)
        .replacingOccurrences(of: "{transactionId}", with: id)
      return R(
        endpoint: endpoint, entry: entry, method: "PUT", target: target, body: body, status: status, errorCode: code)
    }
    return [
      R(
        endpoint: token, entry: "200", method: "PUT", target: "/inApps/v1/transactions/\(any)/appAccountToken",
        body: body, status: 200,
        check: { a, server in
          let chain = try server.store().allTransactions(customer: .default).filter {
            $0.originalID == 2_000_000_000_000_001
          }
          // The current renewal transaction gets it; the past purchase keeps none.
          return a.body.isEmpty && chain.map { $0.appAccountToken?.uuidString } == [nil, uuid]
        }),
      put(token, "4000006", "x", body, 400, 4_000_006),
      put(token, "4000048", appTransactionID, body, 400, 4_000_048),
      put(token, "4000183", any, #"{"appAccountToken":""}"#, 400, 4_000_183),
      put(token, "4000185", kidCopy, body, 400, 4_000_185),
      put(token, "4000187", renewal, body, 400, 4_000_187),
      put(token, "4040005", unknown, body, 404, 4_040_005),

      R(
        endpoint: v2, entry: "202", method: "PUT", target: "/inApps/v2/transactions/consumption/\(coins)",
        body: Self.v2(#","consumptionPercentage":25000,"refundPreference":"GRANT_PRORATED""#), status: 202,
        check: { a, server in
          let record = try server.store().serverRecords.consumption.last
          return a.body.isEmpty && record?.refundRequestID != nil && record?.version == 2
        }),
      put(v2, "4000006", "x", Self.v2(), 400, 4_000_006),
      put(v2, "4000035", coins, Self.v2(consented: "false"), 400, 4_000_035),
      put(v2, "4000036", coins, Self.v2(delivery: "LOST"), 400, 4_000_036),
      put(
        v2, "4000041", coins,
        Self.v2().replacingOccurrences(of: #""sampleContentProvided":false"#, with: #""sampleContentProvided":"no""#),
        400, 4_000_041),
      put(v2, "4000044", coins, Self.v2(#","refundPreference":"MAYBE""#), 400, 4_000_044),
      put(v2, "4000048", appTransactionID, Self.v2(), 400, 4_000_048),
      put(v2, "4000185", kidLifetime, Self.v2(), 400, 4_000_185),
      put(v2, "4000209", any, Self.v2(#","consumptionPercentage":10000"#), 400, 4_000_209),
      put(v2, "ConsumptionPercentageOutOfRangeError", coins, Self.v2(#","consumptionPercentage":100001"#), 400, nil),
      put(
        v2, "UndeliveredConsumptionPercentageNonZeroError", coins,
        Self.v2(#","consumptionPercentage":5000"#, delivery: "UNDELIVERED_OTHER"), 400, nil),
      put(v2, "4040010", unknown, Self.v2(), 404, 4_040_010),

      R(
        endpoint: v1, entry: "202", method: "PUT", target: "/inApps/v1/transactions/consumption/\(coins)",
        body: Self.v1,
        status: 202,
        check: { a, server in
          let record = try server.store().serverRecords.consumption.last
          return a.body.isEmpty && record?.version == 1
        }),
      put(v1, "4000006", "x", Self.v1, 400, 4_000_006),
      put(v1, "4000032", coins, Self.v1("accountTenure", "8"), 400, 4_000_032),
      put(v1, "4000033", coins, Self.v1("appAccountToken", #""nope""#), 400, 4_000_033),
      put(v1, "4000034", coins, Self.v1("consumptionStatus", "4"), 400, 4_000_034),
      put(v1, "4000035", coins, Self.v1("customerConsented", "false"), 400, 4_000_035),
      put(v1, "4000036", coins, Self.v1("deliveryStatus", "6"), 400, 4_000_036),
      put(v1, "4000037", coins, Self.v1("lifetimeDollarsPurchased", "8"), 400, 4_000_037),
      put(v1, "4000038", coins, Self.v1("lifetimeDollarsRefunded", "8"), 400, 4_000_038),
      put(v1, "4000039", coins, Self.v1("platform", "3"), 400, 4_000_039),
      put(v1, "4000040", coins, Self.v1("playTime", "8"), 400, 4_000_040),
      put(v1, "4000041", coins, Self.v1("sampleContentProvided", "1"), 400, 4_000_041),
      put(v1, "4000042", coins, Self.v1("userStatus", "5"), 400, 4_000_042),
      put(v1, "4000044", coins, Self.v1("refundPreference", "4"), 400, 4_000_044),
      // V1 takes consumables and auto-renewable subscriptions only.
      put(v1, "4000047", lifetime, Self.v1, 400, 4_000_047),
      put(v1, "4000048", appTransactionID, Self.v1, 400, 4_000_048),
      put(v1, "4000185", kidLifetime, Self.v1, 400, 4_000_185),
      put(v1, "4040010", unknown, Self.v1, 404, 4_040_010),
    ]
  }()
}
