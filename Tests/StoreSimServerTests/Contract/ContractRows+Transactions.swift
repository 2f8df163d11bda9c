import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer
@testable import StoreSimServerTestSupport

/// Rows of the table: transaction info, finish, statuses, order lookup, refund history (v1,
/// v2), app transaction info.
extension ServerAPIContractTests {
  typealias R = ContractRow

  static let transactionRows: [ContractRow] = {
    let info = "/inApps/v1/transactions/{transactionId}"
    let finish = "/inApps/v1/transactions/{transactionId}/finish"
    let statuses = "/inApps/v1/subscriptions/{transactionId}"
    let lookup = "/inApps/v1/lookup/{orderId}"
    let refunds = "/inApps/v2/refund/lookup/{transactionId}"
    let refundsV1 = "/inApps/v1/refund/lookup/{originalTransactionId}"
    let app = "/inApps/v1/transactions/appTransactions/{transactionId}"
    return [
      R(
        endpoint: info, entry: "200", method: "GET", target: "/inApps/v1/transactions/\(lifetime)", status: 200,
        check: { a, _ in ServerAPICall.string(decoded(a.json?["signedTransactionInfo"])?["transactionId"]) == lifetime
        }
      ),
      R(
        endpoint: info, entry: "4000006", method: "GET", target: "/inApps/v1/transactions/12ab", status: 400,
        errorCode: 4_000_006),
      R(
        endpoint: info, entry: "4000048", method: "GET", target: "/inApps/v1/transactions/\(appTransactionID)",
        status: 400,
        errorCode: 4_000_048),
      R(
        endpoint: info, entry: "4040010", method: "GET", target: "/inApps/v1/transactions/\(unknown)", status: 404,
        errorCode: 4_040_010),

      R(
        endpoint: finish, entry: "200", method: "POST", target: "/inApps/v1/transactions/\(coins)/finish", body: "",
        status: 200,
        check: { a, server in
          let t = try server.store().allTransactions(customer: .default).first { String($0.id) == coins }
          return a.body.isEmpty && t == nil  // a finished consumable leaves Transaction.all
        }),
      R(
        endpoint: finish, entry: "4000006", method: "POST", target: "/inApps/v1/transactions/x/finish", body: "",
        status: 400, errorCode: 4_000_006),
      R(
        endpoint: finish, entry: "4000048", method: "POST",
        target: "/inApps/v1/transactions/\(appTransactionID)/finish",
        body: "", status: 400, errorCode: 4_000_048),
      R(
        endpoint: finish, entry: "4040010", method: "POST", target: "/inApps/v1/transactions/\(unknown)/finish",
        body: "",
        status: 404, errorCode: 4_040_010),

      R(
        endpoint: statuses, entry: "200", method: "GET", target: "/inApps/v1/subscriptions/\(appTransactionID)",
        status: 200, check: { a, _ in ServerAPICall.array(a.json?["data"]).count == 1 }),
      R(
        endpoint: statuses, entry: "4000006", method: "GET", target: "/inApps/v1/subscriptions/x", status: 400,
        errorCode: 4_000_006),
      R(
        endpoint: statuses, entry: "4000031", method: "GET", target: "/inApps/v1/subscriptions/\(any)?status=9",
        status: 400, errorCode: 4_000_031),
      R(
        endpoint: statuses, entry: "4040010", method: "GET", target: "/inApps/v1/subscriptions/\(unknown)", status: 404,
        errorCode: 4_040_010),

      R(
        endpoint: lookup, entry: "200", method: "GET",
        target: "/inApps/v1/lookup/\(OrderID.string(TransactionID(lifetime)!))", status: 200,
        check: { a, _ in
          a.json?["status"]?.value == .number("0") && ServerAPICall.array(a.json?["signedTransactions"]).count == 1
        },
        prepare: { server in try server.change { $0.state.environment = .production } }),
      R(
        endpoint: lookup, entry: "200 (status 1)", method: "GET", target: "/inApps/v1/lookup/MNOSUCHORDER", status: 200,
        check: { a, _ in a.json?["status"]?.value == .number("1") && a.json?["signedTransactions"] == nil }),

      R(
        endpoint: refunds, entry: "200", method: "GET", target: "/inApps/v2/refund/lookup/\(appTransactionID)",
        status: 200, check: { a, _ in history(a) == [refunded] && a.json?["revision"] != nil }),
      R(
        endpoint: refunds, entry: "4000005", method: "GET", target: "/inApps/v2/refund/lookup/\(any)?revision=nope",
        status: 400, errorCode: 4_000_005),
      R(
        endpoint: refunds, entry: "4000006", method: "GET", target: "/inApps/v2/refund/lookup/x", status: 400,
        errorCode: 4_000_006),
      R(
        endpoint: refunds, entry: "4040010", method: "GET", target: "/inApps/v2/refund/lookup/\(unknown)", status: 404,
        errorCode: 4_040_010),

      R(
        endpoint: refundsV1, entry: "200", method: "GET", target: "/inApps/v1/refund/lookup/\(lifetime)", status: 200,
        check: { a, _ in history(a) == [refunded] && a.json?["revision"] == nil }),
      R(
        endpoint: refundsV1, entry: "4000008", method: "GET", target: "/inApps/v1/refund/lookup/x", status: 400,
        errorCode: 4_000_008),
      R(
        endpoint: refundsV1, entry: "4040005", method: "GET", target: "/inApps/v1/refund/lookup/\(renewal)",
        status: 404,
        errorCode: 4_040_005),

      R(
        endpoint: app, entry: "200", method: "GET", target: "/inApps/v1/transactions/appTransactions/\(renewal)",
        status: 200,
        check: { a, _ in
          ServerAPICall.string(decoded(a.json?["signedAppTransactionInfo"])?["appTransactionId"]) == appTransactionID
        }),
      R(
        endpoint: app, entry: "4000006", method: "GET", target: "/inApps/v1/transactions/appTransactions/x",
        status: 400,
        errorCode: 4_000_006),
      R(
        endpoint: app, entry: "4040010", method: "GET", target: "/inApps/v1/transactions/appTransactions/\(unknown)",
        status: 404, errorCode: 4_040_010),
    ]
  }()
}
