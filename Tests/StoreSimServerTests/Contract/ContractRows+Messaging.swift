import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer
@testable import StoreSimServerTestSupport

/// Rows of the table: the Retention Messaging API under /inApps/v1/messaging.
extension ServerAPIContractTests {
  static let messagingRows: [ContractRow] = {
    let base = "/inApps/v1/messaging"
    let image = base + "/image/{imageIdentifier}"
    let message = base + "/message/{messageIdentifier}"
    let defaults = base + "/default/{productId}/{locale}"
    let url = base + "/realtime/url"
    let test = base + "/performanceTest"
    let result = base + "/performanceTest/result/{requestId}"
    let img = "0E6B7C1A-2B3C-4D5E-8F90-A1B2C3D4E5F6"
    let bullet = "0E6B7C1A-2B3C-4D5E-8F90-A1B2C3D4E5F7"
    let msg = "1E6B7C1A-2B3C-4D5E-8F90-A1B2C3D4E5F6"
    let full = RetentionEndpointTests.png(3840, 400)
    let monthly = "com.example.premium.monthly"
    let plain = #"{"header":"h","body":"b"}"#
    let pictured = #"{"header":"h","body":"b","image":{"imageIdentifier":"\#(img)","altText":"a"}}"#
    let pointsTo = #"{"messageIdentifier":"\#(msg)"}"#
    let realtime = #"{"realtimeURL":"http://127.0.0.1:9/retention"}"#
    /// Uploads the full-size image and the bullet-point image straight into the session.
    let images: @Sendable (LiveServer) throws -> Void = { server in
      try server.change { store in
        store.updateRetentionMessaging {
          $0.images = [
            RetentionImage(identifier: img, size: "FULL_SIZE", state: .approved, width: 3840, height: 400),
            RetentionImage(identifier: bullet, size: "BULLET_POINT", state: .approved, width: 1024, height: 1024),
          ]
        }
      }
    }
    func messageRow(_ entry: String, _ body: String, _ status: Int, _ code: Int?) -> ContractRow {
      R(
        endpoint: message, entry: entry, method: "PUT", target: "\(base)/message/\(msg)", body: body, status: status,
        errorCode: code, prepare: images)
    }
    func fill(_ images: Bool) -> @Sendable (LiveServer) throws -> Void {
      { server in
        try server.change { store in
          store.updateRetentionMessaging { m in
            for i in 0..<RetentionMessaging.itemLimit {
              let id = ServerAPI.identifier("00000002", i)
              if images {
                m.images.append(
                  RetentionImage(identifier: id, size: "FULL_SIZE", state: .approved, width: 3840, height: 400))
              } else {
                m.messages.append(
                  RetentionMessage(
                    identifier: id, header: "h", body: "b", image: nil, headerPosition: nil, bulletPoints: [],
                    state: .approved))
              }
            }
          }
        }
      }
    }
    let long = { (n: Int) in String(repeating: "x", count: n) }
    let bullets = { (n: Int, text: String) in
      #"{"header":"h","body":"b","bulletPoints":["#
        + Array(repeating: #"{"text":"\#(text)","imageIdentifier":"\#(bullet)","altText":"a"}"#, count: n).joined(
          separator: ",") + "]}"
    }
    let withMessage: [(String, String, String?)] = [("PUT", "\(base)/message/\(msg)", plain)]
    return [
      // Upload Image
      R(
        endpoint: image, entry: "200", method: "PUT", target: "\(base)/image/\(img)?imageSize=FULL_SIZE", png: full,
        status: 200,
        check: { _, server in try server.store().retentionMessaging.image(img)?.state == .approved }),
      R(
        endpoint: image, entry: "4000000", method: "PUT", target: "\(base)/image/x", png: full, status: 400,
        errorCode: 4_000_000),
      R(
        endpoint: image, entry: "4000161", method: "PUT", target: "\(base)/image/\(img)",
        png: RetentionEndpointTests.png(100, 100), status: 400, errorCode: 4_000_161),
      R(
        endpoint: image, entry: "4000216", method: "PUT", target: "\(base)/image/\(img)?imageSize=SMALL", png: full,
        status: 400, errorCode: 4_000_216),
      R(
        endpoint: image, entry: "4030014", method: "PUT", target: "\(base)/image/\(img)", png: full, status: 403,
        errorCode: 4_030_014, prepare: fill(true)),
      R(
        endpoint: image, entry: "4090000", method: "PUT", target: "\(base)/image/\(img.lowercased())", png: full,
        status: 409, errorCode: 4_090_000, prepare: images),
      // Delete Image
      R(
        endpoint: image, entry: "200", method: "DELETE", target: "\(base)/image/\(img)", status: 200,
        check: { _, server in try server.store().retentionMessaging.image(img) == nil }, prepare: images),
      R(
        endpoint: image, entry: "4030019", method: "DELETE", target: "\(base)/image/\(img)",
        setup: [("PUT", "\(base)/message/\(msg)", pictured)], status: 403, errorCode: 4_030_019, prepare: images),
      R(
        endpoint: image, entry: "4040014", method: "DELETE", target: "\(base)/image/\(img)", status: 404,
        errorCode: 4_040_014),
      // Get Image List
      R(
        endpoint: base + "/image/list", entry: "200", method: "GET", target: base + "/image/list", status: 200,
        check: { a, _ in
          a.body.contains(#""imageIdentifier":"\#(img.lowercased())","imageSize":"FULL_SIZE","imageState":"APPROVED""#)
        }, prepare: images),
      // Upload Message
      messageRow("200", pictured, 200, nil),
      R(
        endpoint: message, entry: "4000000", method: "PUT", target: "\(base)/message/\(msg)", body: #"{"body":"b"}"#,
        status: 400, errorCode: 4_000_000),
      messageRow("4000162", #"{"header":"\#(long(67))","body":"b"}"#, 400, 4_000_162),
      messageRow("4000163", #"{"header":"h","body":"\#(long(145))"}"#, 400, 4_000_163),
      messageRow(
        "4000175", #"{"header":"h","body":"b","image":{"imageIdentifier":"\#(img)","altText":"\#(long(151))"}}"#, 400,
        4_000_175),
      messageRow(
        "4000216", #"{"header":"h","body":"b","image":{"imageIdentifier":"\#(bullet)","altText":"a"}}"#, 400, 4_000_216),
      messageRow("4000218", bullets(6, "t"), 400, 4_000_218),
      messageRow("4000219", bullets(1, long(67)), 400, 4_000_219),
      messageRow("4000224", #"{"header":"h","body":"b","headerPosition":"ABOVE_IMAGE"}"#, 400, 4_000_224),
      R(
        endpoint: message, entry: "4030016", method: "PUT", target: "\(base)/message/\(msg)", body: plain, status: 403,
        errorCode: 4_030_016, prepare: fill(false)),
      R(
        endpoint: message, entry: "4040014", method: "PUT", target: "\(base)/message/\(msg)", body: pictured,
        status: 404, errorCode: 4_040_014),
      R(
        endpoint: message, entry: "4090001", method: "PUT", target: "\(base)/message/\(msg)", body: plain,
        setup: withMessage, status: 409, errorCode: 4_090_001),
      // Delete Message
      R(
        endpoint: message, entry: "200", method: "DELETE", target: "\(base)/message/\(msg)", setup: withMessage,
        status: 200, check: { _, server in try server.store().retentionMessaging.messages.isEmpty }),
      R(
        endpoint: message, entry: "4040015", method: "DELETE", target: "\(base)/message/\(msg)", status: 404,
        errorCode: 4_040_015),
      // Get Message List
      R(
        endpoint: base + "/message/list", entry: "200", method: "GET", target: base + "/message/list",
        setup: withMessage, status: 200,
        check: { a, _ in
          a.body == #"{"messageIdentifiers":[{"messageIdentifier":"\#(msg.lowercased())","messageState":"APPROVED"}]}"#
        }),
      // Configure Default Message
      R(
        endpoint: defaults, entry: "200", method: "PUT", target: "\(base)/default/\(monthly)/en-US", body: pointsTo,
        setup: withMessage, status: 200,
        check: { _, server in
          try server.store().retentionMessaging.defaultMessage(productID: monthly, locale: "en-US") != nil
        }),
      R(
        endpoint: defaults, entry: "4000000", method: "PUT", target: "\(base)/default/\(monthly)/en-US",
        body: #"{"messageIdentifier":"m"}"#, status: 400, errorCode: 4_000_000),
      R(
        endpoint: defaults, entry: "4000023", method: "PUT", target: "\(base)/default/com.example.coins.100/en-US",
        body: pointsTo, status: 400, errorCode: 4_000_023),
      R(
        endpoint: defaults, entry: "4000164", method: "PUT", target: "\(base)/default/\(monthly)/english",
        body: pointsTo, status: 400, errorCode: 4_000_164),
      R(
        endpoint: defaults, entry: "4030017", method: "PUT", target: "\(base)/default/\(monthly)/en-US", body: pointsTo,
        status: 403, errorCode: 4_030_017,
        prepare: { server in
          try server.change { store in
            store.updateRetentionMessaging {
              $0.messages = [
                RetentionMessage(
                  identifier: msg, header: "h", body: "b", image: nil, headerPosition: nil, bulletPoints: [],
                  state: .pending)
              ]
            }
          }
        }),
      R(
        endpoint: defaults, entry: "4030018", method: "PUT", target: "\(base)/default/\(monthly)/en-US", body: pointsTo,
        status: 403, errorCode: 4_030_018,
        prepare: { server in
          try server.change { store in
            store.updateRetentionMessaging {
              $0.images = [
                RetentionImage(identifier: img, size: "FULL_SIZE", state: .rejected, width: 3840, height: 400)
              ]
              $0.messages = [
                RetentionMessage(
                  identifier: msg, header: "h", body: "b",
                  image: RetentionMessageImage(imageIdentifier: img, altText: "a"), headerPosition: nil,
                  bulletPoints: [], state: .approved)
              ]
            }
          }
        }),
      R(
        endpoint: defaults, entry: "4040015", method: "PUT", target: "\(base)/default/\(monthly)/en-US", body: pointsTo,
        status: 404, errorCode: 4_040_015),
      // Get Default Message
      R(
        endpoint: defaults, entry: "200", method: "GET", target: "\(base)/default/\(monthly)/en-US",
        setup: withMessage + [("PUT", "\(base)/default/\(monthly)/en-US", pointsTo)], status: 200,
        check: { a, _ in a.body == #"{"messageIdentifier":"\#(msg.lowercased())"}"# }),
      R(
        endpoint: defaults, entry: "4000023", method: "GET", target: "\(base)/default/nope/en-US", status: 400,
        errorCode: 4_000_023),
      R(
        endpoint: defaults, entry: "4000164", method: "GET", target: "\(base)/default/\(monthly)/e", status: 400,
        errorCode: 4_000_164),
      R(
        endpoint: defaults, entry: "4040020", method: "GET", target: "\(base)/default/\(monthly)/en-US", status: 404,
        errorCode: 4_040_020),
      // Delete Default Message
      R(
        endpoint: defaults, entry: "200", method: "DELETE", target: "\(base)/default/\(monthly)/en-US",
        setup: withMessage + [("PUT", "\(base)/default/\(monthly)/en-US", pointsTo)], status: 200,
        check: { _, server in try server.store().retentionMessaging.defaultMessages.isEmpty }),
      R(
        endpoint: defaults, entry: "4000023", method: "DELETE", target: "\(base)/default/nope/en-US", status: 400,
        errorCode: 4_000_023),
      R(
        endpoint: defaults, entry: "4000164", method: "DELETE", target: "\(base)/default/\(monthly)/e", status: 400,
        errorCode: 4_000_164),
      R(
        endpoint: defaults, entry: "4040020", method: "DELETE", target: "\(base)/default/\(monthly)/en-US", status: 404,
        errorCode: 4_040_020),
      // Configure, Get and Delete Realtime URL
      R(
        endpoint: url, entry: "200", method: "PUT", target: url, body: realtime, status: 200,
        check: { _, server in try server.store().retentionMessaging.realtimeURL == "http://127.0.0.1:9/retention" }),
      R(
        endpoint: url, entry: "4000215", method: "PUT", target: url, body: #"{"realtimeURL":"http://example.com/"}"#,
        status: 400, errorCode: 4_000_215),
      R(
        endpoint: url, entry: "4030026", method: "PUT", target: url, body: realtime, status: 403, errorCode: 4_030_026,
        prepare: { server in
          try server.change { store in
            store.state.environment = .production
            store.updateRetentionMessaging {
              $0.realtimeURL = "https://example.com/active"
              $0.performanceTests.append(
                RetentionPerformanceTest(
                  requestID: "x", originalTransactionID: 1, target: "https://example.com/active",
                  maxConcurrentRequests: 1, totalRequests: 1, totalDuration: 1, responseTimeThreshold: 700,
                  successRateThreshold: 90, result: "PASS", successRate: 100, responseTimes: [1], failures: [:]))
            }
          }
        }),
      R(
        endpoint: url, entry: "200", method: "GET", target: url, setup: [("PUT", url, realtime)], status: 200,
        check: { a, _ in a.body == #"{"realtimeURL":"http://127.0.0.1:9/retention"}"# }),
      R(endpoint: url, entry: "4040021", method: "GET", target: url, status: 404, errorCode: 4_040_021),
      R(
        endpoint: url, entry: "200", method: "DELETE", target: url, setup: [("PUT", url, realtime)], status: 200,
        check: { _, server in try server.store().retentionMessaging.realtimeURL == nil }),
      // Initiate Performance Test (port 9 refuses: every request fails, the test answers FAIL)
      R(
        endpoint: test, entry: "200", method: "POST", target: test, body: #"{"originalTransactionId":"\#(any)"}"#,
        setup: [("PUT", url, realtime)], status: 200,
        check: { a, server in
          let result = try server.store().retentionMessaging.performanceTests.first?.result
          return a.json?["requestId"] != nil && a.json?["config"]?["totalRequests"] != nil && result == "FAIL"
        }),
      R(
        endpoint: test, entry: "4000006", method: "POST", target: test, body: #"{"originalTransactionId":"x"}"#,
        status: 400, errorCode: 4_000_006),
      R(
        endpoint: test, entry: "4000048", method: "POST", target: test,
        body: #"{"originalTransactionId":"\#(appTransactionID)"}"#, status: 400, errorCode: 4_000_048),
      R(
        endpoint: test, entry: "4000185", method: "POST", target: test,
        body: #"{"originalTransactionId":"\#(kidCopy)"}"#,
        status: 400, errorCode: 4_000_185),
      R(
        endpoint: test, entry: "4000187", method: "POST", target: test,
        body: #"{"originalTransactionId":"\#(renewal)"}"#,
        status: 400, errorCode: 4_000_187),
      R(
        endpoint: test, entry: "4000211", method: "POST", target: test, body: #"{"originalTransactionId":"\#(any)"}"#,
        status: 400, errorCode: 4_000_211),
      // Get Performance Test Results
      R(
        endpoint: result, entry: "200", method: "GET", target: "",
        setup: [("PUT", url, realtime), ("POST", test, #"{"originalTransactionId":"\#(any)"}"#)], status: 200,
        check: { a, _ in ServerAPICall.string(a.json?["result"]) == "FAIL" && a.json?["failures"] != nil },
        resolve: { answers in test + "/result/" + (ServerAPICall.string(answers.last?.json?["requestId"]) ?? "none") }),
      R(
        endpoint: result, entry: "4000212", method: "GET", target: test + "/result/r1", status: 400,
        errorCode: 4_000_212),
      R(
        endpoint: result, entry: "4040018", method: "GET", target: test + "/result/\(uuid)", status: 404,
        errorCode: 4_040_018),
    ]
  }()
}
