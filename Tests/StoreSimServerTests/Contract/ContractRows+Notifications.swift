import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer
@testable import StoreSimServerTestSupport

/// Rows of the table: notification history, test notifications and their status.
extension ServerAPIContractTests {
  static let notificationRows: [ContractRow] = {
    let history = "/inApps/v1/notifications/history"
    let test = "/inApps/v1/notifications/test"
    let status = "/inApps/v1/notifications/test/{testNotificationToken}"
    func refused(_ entry: String, _ code: Int, _ body: String, query: String = "") -> ContractRow {
      R(
        endpoint: history, entry: entry, method: "POST", target: history + query, body: body, status: 400,
        errorCode: code)
    }
    let day = 86_400_000
    return [
      R(
        endpoint: history, entry: "200", method: "POST", target: history, body: notes(), status: 200,
        check: { a, _ in
          let items = ServerAPICall.array(a.json?["notificationHistory"])
          return !items.isEmpty
            && items.allSatisfy {
              ServerAPICall.array($0["sendAttempts"]).count == 1 && $0["firstSendAttemptResult"] != nil
                && $0["sendAttemptResult"] == nil
            }
        }),
      refused("4000006", 4_000_006, notes(#","transactionId":"x""#)),
      refused("4000012", 4_000_012, notes(start: 1_767_225_600_000 + 8 * day - 31 * day)),
      refused("4000013", 4_000_013, notes(start: start, end: start)),
      refused("4000014", 4_000_014, notes(), query: "?paginationToken=nope"),
      refused("4000015", 4_000_015, #"{"endDate":\#(end)}"#),
      refused("4000016", 4_000_016, #"{"startDate":\#(start),"endDate":"soon"}"#),
      refused("4000018", 4_000_018, notes(#","notificationSubtype":"INITIAL_BUY""#)),
      refused("4000019", 4_000_019, notes(#","transactionId":"\#(any)","notificationType":"SUBSCRIBED""#)),
      R(
        endpoint: history, entry: "4040010", method: "POST", target: history,
        body: notes(#","transactionId":"\#(unknown)""#), status: 404, errorCode: 4_040_010),

      R(
        endpoint: test, entry: "200", method: "POST", target: test, body: "", status: 200,
        check: { a, server in
          let last = try server.store().notifications.last
          return ServerAPICall.string(a.json?["testNotificationToken"]) != nil && last?.notificationType == .test
        }),
      R(
        endpoint: test, entry: "4040007", method: "POST", target: test, body: "", status: 404, errorCode: 4_040_007,
        prepare: { server in try server.change { $0.setDeliveryURL(nil) } }),

      R(
        endpoint: status, entry: "200", method: "GET", target: "", setup: [("POST", test, "")], status: 200,
        check: { a, _ in
          ServerAPICall.array(a.json?["sendAttempts"]).count == 1 && a.json?["signedPayload"] != nil
        },
        resolve: { answers in
          test + "/" + (ServerAPICall.string(answers.first?.json?["testNotificationToken"]) ?? "none")
        }),
      R(
        endpoint: status, entry: "4000020", method: "GET", target: test + "/" + String(repeating: "t", count: 129),
        status: 400, errorCode: 4_000_020),
      R(
        endpoint: status, entry: "4040008", method: "GET", target: test + "/unknown", status: 404, errorCode: 4_040_008),
    ]
  }()
}
