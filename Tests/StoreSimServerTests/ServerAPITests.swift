import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimTestSupport

/// The App Store Server API as a pure function: requests in, Apple's statuses and bodies out.
@Suite struct ServerAPITests: ServerAPICalling {
  @Test func transactionInfoAnswersTheSignedTransaction() throws {
    let store = try Self.store()
    let (status, body) = Self.call(store, "GET", "/inApps/v1/transactions/2000000000000002")
    #expect(status == 200)
    let t = Self.decoded(body["signedTransactionInfo"])
    #expect(Self.string(t?["transactionId"]) == "2000000000000002")
    #expect(Self.string(t?["transactionReason"]) == "RENEWAL")
  }

  @Test(arguments: [
    ("/inApps/v1/transactions/9", 404, 4_040_010), ("/inApps/v1/transactions/12ab", 400, 4_000_006),
    ("/inApps/v2/history/9", 404, 4_040_010), ("/inApps/v1/subscriptions/x", 400, 4_000_006),
    ("/inApps/v2/history/2000000000000001?sort=UP", 400, 4_000_021),
    ("/inApps/v2/history/2000000000000001?productType=GIZMO", 400, 4_000_022),
    ("/inApps/v2/history/2000000000000001?revoked=maybe", 400, 4_000_030),
    ("/inApps/v2/history/2000000000000001?inAppOwnershipType=MINE", 400, 4_000_026),
    ("/inApps/v2/history/2000000000000001?revision=nope", 400, 4_000_005),
    ("/inApps/v2/history/2000000000000001?startDate=2&endDate=1", 400, 4_000_013),
    ("/inApps/v1/subscriptions/2000000000000001?status=9", 400, 4_000_031),
    ("/inApps/v2/refund/lookup/77", 404, 4_040_010),
  ])
  func errorsUseApplesStatusesAndCodes(_ target: String, _ status: Int, _ code: Int) throws {
    let (s, body) = Self.call(try Self.store(), "GET", target)
    #expect(s == status)
    #expect(body["errorCode"]?.value == .number(String(code)))
  }

  @Test func historyPagesTwentyAtATimeWithRevisionAndHasMore() throws {
    let store = try Self.store()
    let total = store.allTransactions().count
    #expect(total == 28)
    var seen: [String] = []
    var revision: String? = nil
    var pages = 0
    repeat {
      let target = "/inApps/v2/history/2000000000000001" + (revision.map { "?revision=\($0)" } ?? "")
      let (status, body) = Self.call(store, "GET", target)
      #expect(status == 200)
      let items = Self.array(body["signedTransactions"])
      #expect(items.count <= 20)
      seen += items.compactMap { Self.string(Self.decoded($0)?["transactionId"]) }
      revision = Self.string(body["revision"])
      pages += 1
      if body["hasMore"]?.value != .bool(true) { break }
    } while pages < 10
    #expect(pages == 2)
    #expect(seen == store.allTransactions().map { String($0.id) })
  }

  @Test func historyFilters() throws {
    let store = try Self.store()
    func ids(_ query: String) -> [String] {
      let (_, body) = Self.call(store, "GET", "/inApps/v1/history/2000000000000001?" + query)
      return Self.array(body["signedTransactions"]).compactMap { Self.string(Self.decoded($0)?["productId"]) }
    }
    #expect(ids("productId=pro") == ["pro", "pro", "pro"])
    #expect(ids("productType=AUTO_RENEWABLE&sort=DESCENDING").count == 3)
    #expect(ids("productType=CONSUMABLE").count == 20)
    #expect(ids("subscriptionGroupIdentifier=G1").count == 3)
    #expect(ids("revoked=true").isEmpty)
    #expect(ids("inAppOwnershipType=FAMILY_SHARED").isEmpty)
    let secondRenewal = store.allTransactions()[2].purchaseDate.epochMilliseconds
    #expect(ids("startDate=\(secondRenewal)&productId=pro").count == 1)
    let (_, desc) = Self.call(store, "GET", "/inApps/v2/history/2000000000000001?sort=DESCENDING")
    #expect(Self.string(Self.decoded(Self.array(desc["signedTransactions"]).first)?["productId"]) == "fuel")
  }

  @Test func statusesWithFilters() throws {
    let store = try Self.store()
    let (status, body) = Self.call(store, "GET", "/inApps/v1/subscriptions/2000000000000005")
    #expect(status == 200)
    let groups = Self.array(body["data"])
    #expect(groups.count == 1)
    let last = Self.array(groups.first?["lastTransactions"])
    #expect(last.first?["status"]?.value == .number("1"))
    #expect(Self.string(Self.decoded(last.first?["signedRenewalInfo"])?["productId"]) == "pro")
    let (_, expired) = Self.call(store, "GET", "/inApps/v1/subscriptions/2000000000000005?status=2&status=5")
    #expect(Self.array(expired["data"]).isEmpty)
  }

  @Test func refundHistoryListsRefundedTransactions() throws {
    var store = try Self.store()
    _ = try store.refund(2_000_000_000_000_004)
    let (status, body) = Self.call(store, "GET", "/inApps/v2/refund/lookup/2000000000000001")
    #expect(status == 200)
    let items = Self.array(body["signedTransactions"])
    #expect(items.count == 1)
    #expect(Self.decoded(items.first)?["revocationDate"] != nil)
    #expect(body["hasMore"]?.value == .bool(false))
  }

  @Test func orderLookupFindsPurchasesByTheirOrderID() throws {
    var store = try Self.store()
    store.state.environment = .production
    let purchase = store.allTransactions()[0]
    let order = try #require(OrderID.of(purchase))
    #expect(OrderID.transactionID(order) == purchase.id)
    #expect(OrderID.of(store.allTransactions()[1]) == nil)  // a renewal has no order of its own
    let (status, body) = Self.call(store, "GET", "/inApps/v1/lookup/\(order)")
    #expect(status == 200)
    #expect(body["status"]?.value == .number("0"))
    #expect(Self.array(body["signedTransactions"]).count == 1)
    let (_, missing) = Self.call(store, "GET", "/inApps/v1/lookup/MNOPE")
    #expect(missing["status"]?.value == .number("1"))
  }

  // order-lookup-is-production-only
  @Test(arguments: [StoreEnvironment.sandbox, .xcode, .localTesting])
  func orderLookupIsProductionOnly(_ environment: StoreEnvironment) throws {
    var store = try Self.store()
    store.state.environment = environment
    let order = try #require(OrderID.of(store.allTransactions()[0]))
    let (status, body) = Self.call(store, "GET", "/inApps/v1/lookup/\(order)")
    #expect(status == 200)
    #expect(body["status"]?.value == .number("1"))
    #expect(body["signedTransactions"] == nil)
  }

  // production-answers-carry-the-app-apple-id
  @Test func productionAnswersCarryTheAppAppleID() throws {
    for (environment, id) in [(StoreEnvironment.production, Int64(1_234_567_890)), (.sandbox, 1_234_567_890)] {
      var store = try Self.store()
      store.state.environment = environment
      store.useSigning(nil, appAppleID: id)
      let expected: JSONValue? = environment == .production ? .number("1234567890") : nil
      for target in [
        "/inApps/v2/history/2000000000000001", "/inApps/v1/history/2000000000000001",
        "/inApps/v1/subscriptions/2000000000000001",
      ] {
        let (status, body) = Self.call(store, "GET", target)
        #expect(status == 200)
        #expect(body["appAppleId"]?.value == expected, "\(environment) \(target)")
        #expect(body["bundleId"] != nil)
      }
    }
  }

  @Test(arguments: [
    ("missing", nil as String?), ("not bearer", "Basic abc"), ("HS256", token(alg: "HS256")),
    ("no kid", token(kid: nil)),
    ("other bundle", token(bid: "com.other")), ("wrong audience", token(aud: "someone")),
    ("expired", token(exp: 1_800_000_000 - 1)), ("over an hour", token(iat: 1_800_000_000, exp: 1_800_000_000 + 3601)),
    ("garbage", "Bearer a.b.c"),
  ])
  func badTokensAnswer401(_ name: String, _ auth: String?) throws {
    var headers: [String: String] = [:]
    if let auth { headers["authorization"] = auth }
    let r = ServerAPI.respond(
      HTTPRequest(method: "GET", target: "/inApps/v1/transactions/2000000000000001", headers: headers),
      store: try Self.store(), now: Self.wallClock)
    #expect(r.status == 401, "\(name)")
    // Apple's 401 is not JSON: its client reads no errorCode from it.
    #expect(r.contentType.hasPrefix("text/plain"))
    #expect(r.body.hasPrefix("Unauthenticated\n"))
    #expect(!r.body.contains("errorCode"))
    // The way forward for someone trying curl (issue 44, item 7).
    #expect(r.body.contains("storesim token"))
  }

  @Test func goodTokensWithAndWithoutIatAreAccepted() throws {
    let store = try Self.store()
    #expect(
      Self.call(
        store, "GET", "/inApps/v1/transactions/2000000000000001",
        auth: Self.token(iat: 1_800_000_000 - 10, exp: 1_800_000_000 + 3000)
      ).0 == 200)
    #expect(Self.call(store, "GET", "/inApps/v1/transactions/2000000000000001", auth: Self.token()).0 == 200)
  }

  @Test func unknownPathsAndMethods() throws {
    let store = try Self.store()
    let (missing, missingBody) = Self.call(store, "GET", "/inApps/v1/nothing/1")
    #expect(missing == 404)
    #expect(missingBody["errorCode"] == nil)
    let (wrongMethod, wrongBody) = Self.call(store, "DELETE", "/inApps/v1/transactions/2000000000000001")
    #expect(wrongMethod == 405)
    #expect(wrongBody["errorCode"] == nil)
  }

  /// Every notification of the store with one delivery attempt (Apple lists only the
  /// notifications it attempted to send).
  static func attempted(_ store: Store, succeeded: Bool = true) -> Store {
    var s = store
    for i in s.notifications.indices {
      s.recordDelivery(
        NotificationDelivery(
          index: i, url: "http://127.0.0.1:9/", httpStatus: succeeded ? 200 : 500, error: nil, date: s.now))
    }
    return s
  }

  @Test func notificationHistoryFiltersAndPages() throws {
    var store = try Self.store()
    let all = store.notifications.count
    #expect(all >= 3)
    #expect(
      Self.array(
        Self.call(
          store, "POST", "/inApps/v1/notifications/history",
          body: #"{"startDate":\#(store.now.epochMilliseconds - 86_400_000),"endDate":9999999999999}"#
        ).1["notificationHistory"]
      ).isEmpty)
    store = Self.attempted(store)
    let start = store.now.epochMilliseconds - 29 * 86_400_000
    let (status, body) = Self.call(
      store, "POST", "/inApps/v1/notifications/history", body: #"{"startDate":\#(start),"endDate":9999999999999}"#)
    #expect(status == 200)
    let recent = store.notifications.filter { $0.signedDate.epochMilliseconds >= start }.count
    #expect(recent >= 1)
    #expect(Self.array(body["notificationHistory"]).count == min(recent, 20))
    let (_, renewals) = Self.call(
      store, "POST", "/inApps/v1/notifications/history",
      body: #"{"startDate":\#(start),"endDate":9999999999999,"notificationType":"DID_RENEW"}"#)
    #expect(
      Self.array(renewals["notificationHistory"]).count
        == store.notifications.filter { $0.notificationType == .didRenew && $0.signedDate.epochMilliseconds >= start }
        .count)
    #expect(Self.call(store, "POST", "/inApps/v1/notifications/history", body: #"{"endDate":1}"#).0 == 400)
    #expect(Self.call(store, "POST", "/inApps/v1/notifications/history", body: "nope").0 == 400)
  }
}

@Suite struct Base64URLTests {
  @Test func encodingAndDecodingMatchFoundationForEveryLength() {
    for length in 0..<70 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
      let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
      #expect(JWS.base64URL(bytes) == expected)
      #expect(JWS.decodeBase64URL(expected) == bytes)
      #expect(JWS.decodeBase64URL(Data(bytes).base64EncodedString()) == bytes)
    }
    #expect(JWS.decodeBase64URL("a") == nil)
    #expect(JWS.decodeBase64URL("ab!c") == nil)
  }
}
