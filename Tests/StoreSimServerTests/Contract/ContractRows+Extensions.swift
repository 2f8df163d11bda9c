import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer
@testable import StoreSimServerTestSupport

/// Rows of the table: renewal-date extensions (one, all, status).
extension ServerAPIContractTests {
  static let extensionRows: [ContractRow] = {
    let one = "/inApps/v1/subscriptions/extend/{originalTransactionId}"
    let all = "/inApps/v1/subscriptions/extend/mass"
    let status = "/inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}"
    func put(_ entry: String, _ id: String, _ body: String, _ status: Int, _ code: Int?) -> ContractRow {
      R(
        endpoint: one, entry: entry, method: "PUT", target: "/inApps/v1/subscriptions/extend/\(id)", body: body,
        status: status, errorCode: code)
    }
    func post(_ code: Int, _ body: String) -> ContractRow {
      R(endpoint: all, entry: String(code), method: "POST", target: all, body: body, status: 400, errorCode: code)
    }
    let statusTarget = "/inApps/v1/subscriptions/extend/mass/com.example.premium.monthly/"
    return [
      R(
        endpoint: one, entry: "200", method: "PUT", target: "/inApps/v1/subscriptions/extend/\(any)", body: extend(),
        status: 200,
        check: { a, server in
          let store = try server.store()
          // 2026-02-08 (the renewal's expiry) plus 5 days.
          return a.json?["effectiveDate"]?.value == .number("1770940800000")
            && store.notifications.contains { $0.notificationType == .renewalExtended }
        }),
      put("4000008", "x", extend(), 400, 4_000_008),
      put("4000009", any, extend(91), 400, 4_000_009),
      put("4000010", any, extend(reason: 4), 400, 4_000_010),
      put("4000011", any, #"{"extendByDays":5,"extendReasonCode":1}"#, 400, 4_000_011),
      // In a free trial: Apple extends paid periods only.
      put("4030004", trial, extend(), 403, 4_030_004),
      R(
        endpoint: one, entry: "4030005", method: "PUT", target: "/inApps/v1/subscriptions/extend/\(any)",
        body: extend(request: "r3"),
        setup: [
          ("PUT", "/inApps/v1/subscriptions/extend/\(any)", extend(request: "r1")),
          ("PUT", "/inApps/v1/subscriptions/extend/\(any)", extend(request: "r2")),
        ], status: 403, errorCode: 4_030_005),
      put("4030007", kidCopy, extend(), 403, 4_030_007),
      put("4040005", unknown, extend(), 404, 4_040_005),

      R(
        endpoint: all, entry: "200", method: "POST", target: all, body: massBody(), status: 200,
        check: { a, server in
          let store = try server.store()
          let summary = store.notifications.last
          return ServerAPICall.string(a.json?["requestIdentifier"]) == mass
            && summary?.notificationType == .renewalExtension && summary?.subtype == .summary
            && store.serverRecords.massExtensions.first?.succeeded == 1
        }),
      post(4_000_009, massBody(0)),
      post(4_000_010, massBody().replacingOccurrences(of: #""extendReasonCode":3"#, with: #""extendReasonCode":9"#)),
      post(4_000_011, massBody(request: "outage-1")),
      post(4_000_023, massBody(product: "com.example.premium.lifetime")),
      post(4_000_027, massBody().replacingOccurrences(of: "}", with: #","storefrontCountryCodes":[]}"#)),
      post(4_000_028, massBody().replacingOccurrences(of: "}", with: #","storefrontCountryCodes":["us"]}"#)),

      R(
        endpoint: status, entry: "200", method: "GET", target: statusTarget + mass, setup: [("POST", all, massBody())],
        status: 200,
        check: { a, _ in a.json?["complete"]?.value == .bool(true) && a.json?["succeededCount"]?.value == .number("1") }
      ),
      R(
        endpoint: status, entry: "4000011", method: "GET", target: statusTarget + String(repeating: "r", count: 129),
        status: 400, errorCode: 4_000_011),
      R(
        endpoint: status, entry: "4000023", method: "GET", target: "/inApps/v1/subscriptions/extend/mass/nope/\(mass)",
        status: 400, errorCode: 4_000_023),
      R(
        endpoint: status, entry: "4040009", method: "GET", target: statusTarget + mass, status: 404,
        errorCode: 4_040_009),
    ]
  }()
}
