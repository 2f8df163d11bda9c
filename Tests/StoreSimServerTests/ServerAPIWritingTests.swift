import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimServerTestSupport
@testable import StoreSimTestSupport

/// The writing endpoints: extensions, consumption, app account token, test notifications.
@Suite struct ServerAPIWritingTests: ServerAPICalling {
  typealias T = ServerAPITests

  static func put(_ store: Store, _ target: String, _ body: String, method: String = "PUT") -> APIResponse {
    ServerAPI.respond(
      HTTPRequest(method: method, target: target, headers: ["authorization": T.token()], body: Array(body.utf8)),
      store: store, now: T.wallClock)
  }

  @Test func extendMovesTheRenewalDateAndSendsRenewalExtended() throws {
    let store = try T.store()
    let before = try #require(store.statuses(forGroup: Fixtures.group).first).transaction.expirationDate!
    let r = Self.put(
      store, "/inApps/v1/subscriptions/extend/2000000000000001",
      #"{"extendByDays":10,"extendReasonCode":1,"requestIdentifier":"a"}"#)
    #expect(r.status == 200)
    let changed = try #require(r.changed)
    let after = try #require(changed.statuses(forGroup: Fixtures.group).first).transaction.expirationDate!
    #expect(after.timeIntervalSince(before) == 10 * 86_400)
    #expect(changed.notifications.last?.notificationType == .renewalExtended)
    // The same request identifier does not extend twice.
    let again = Self.put(
      changed, "/inApps/v1/subscriptions/extend/2000000000000001",
      #"{"extendByDays":10,"extendReasonCode":1,"requestIdentifier":"a"}"#)
    #expect(again.changed?.statuses(forGroup: Fixtures.group).first?.transaction.expirationDate == after)
    // A third extension within a year is refused.
    let second = try #require(
      Self.put(
        changed, "/inApps/v1/subscriptions/extend/2000000000000001",
        #"{"extendByDays":1,"extendReasonCode":0,"requestIdentifier":"b"}"#
      ).changed)
    let third = Self.put(
      second, "/inApps/v1/subscriptions/extend/2000000000000001",
      #"{"extendByDays":1,"extendReasonCode":0,"requestIdentifier":"c"}"#)
    #expect(third.status == 403)
    #expect(Self.code(third) == "4030005")
    // Renewals continue from the new date.
    var later = second
    _ = try later.advance(to: after.addingTimeInterval(86_400 + 60))
    #expect(later.allTransactions().last { $0.productID == "pro" }?.purchaseDate == after.addingTimeInterval(86_400))
  }

  @Test(arguments: [
    (#"{"extendByDays":91,"extendReasonCode":1,"requestIdentifier":"a"}"#, "4000009"),
    (#"{"extendByDays":0,"extendReasonCode":1,"requestIdentifier":"a"}"#, "4000009"),
    (#"{"extendByDays":5,"extendReasonCode":4,"requestIdentifier":"a"}"#, "4000010"),
    (#"{"extendByDays":5,"extendReasonCode":1}"#, "4000011"),
    ("[]", "4000000"),
  ])
  func extendValidatesFieldByField(_ body: String, _ code: String) throws {
    #expect(Self.code(Self.put(try T.store(), "/inApps/v1/subscriptions/extend/2000000000000001", body)) == code)
  }

  @Test func extendRefusesUnknownAndInactiveSubscriptions() throws {
    var store = try T.store()
    let body = #"{"extendByDays":5,"extendReasonCode":1,"requestIdentifier":"a"}"#
    #expect(Self.code(Self.put(store, "/inApps/v1/subscriptions/extend/2000000000000099", body)) == "4040005")
    #expect(Self.code(Self.put(store, "/inApps/v1/subscriptions/extend/x1", body)) == "4000008")
    _ = try store.disableAutoRenew(productID: "pro")
    _ = try store.advance(by: 40 * 86_400)
    #expect(Self.code(Self.put(store, "/inApps/v1/subscriptions/extend/2000000000000001", body)) == "4030004")
  }

  static let massID = "5A0D1E4B-3F06-4C9B-9E57-6F6E2C1D0A11"

  @Test func massExtensionAndItsStatus() throws {
    let store = try T.store()
    let r = Self.put(
      store, "/inApps/v1/subscriptions/extend/mass",
      #"{"extendByDays":3,"extendReasonCode":3,"requestIdentifier":"\#(Self.massID)","productId":"pro"}"#,
      method: "POST")
    #expect(r.status == 200)
    let changed = try #require(r.changed)
    let (status, body) = T.call(changed, "GET", "/inApps/v1/subscriptions/extend/mass/pro/\(Self.massID)")
    #expect(status == 200)
    #expect(body["succeededCount"]?.value == .number("1"))
    #expect(body["complete"]?.value == .bool(true))
    #expect(T.call(changed, "GET", "/inApps/v1/subscriptions/extend/mass/pro/other").0 == 404)
    #expect(
      Self.code(
        Self.put(
          store, "/inApps/v1/subscriptions/extend/mass",
          #"{"extendByDays":3,"extendReasonCode":3,"requestIdentifier":"\#(Self.massID)","productId":"car"}"#,
          method: "POST"))
        == "4000023")
  }

  @Test func consumptionIsValidatedAndRecordedAnsweringTheRefundRequest() throws {
    var store = try T.store()
    _ = try store.requestRefund(2_000_000_000_000_004)
    let request = try #require(store.refundRequests().first)
    let v2 = Self.put(
      store, "/inApps/v2/transactions/consumption/2000000000000004",
      #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","consumptionPercentage":50000,"refundPreference":"DECLINE"}"#
    )
    #expect(v2.status == 202)
    let record = try #require(v2.changed?.serverRecords.consumption.first)
    #expect(record.refundRequestID == request.id)
    #expect(record.fields["deliveryStatus"] == #""DELIVERED""#)
    #expect(
      Self.code(
        Self.put(
          store, "/inApps/v2/transactions/consumption/2000000000000004",
          #"{"customerConsented":false,"sampleContentProvided":false,"deliveryStatus":"DELIVERED"}"#)) == "4000035")
    #expect(
      Self.code(
        Self.put(
          store, "/inApps/v2/transactions/consumption/2000000000000004",
          #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"LOST"}"#)) == "4000036")
    let v1 =
      #"{"customerConsented":true,"consumptionStatus":1,"platform":1,"sampleContentProvided":true,"deliveryStatus":0,"appAccountToken":"","accountTenure":2,"playTime":3,"lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":4,"userStatus":1,"refundPreference":2}"#
    #expect(Self.put(store, "/inApps/v1/transactions/consumption/2000000000000004", v1).status == 202)
    #expect(
      Self.code(
        Self.put(
          store, "/inApps/v1/transactions/consumption/2000000000000004",
          v1.replacingOccurrences(of: #""platform":1"#, with: #""platform":7"#))) == "4000039")
    #expect(
      Self.code(
        Self.put(
          store, "/inApps/v1/transactions/consumption/2000000000000004",
          v1.replacingOccurrences(of: #""playTime":3"#, with: #""playTime":8"#))) == "4000040")
    #expect(Self.code(Self.put(store, "/inApps/v1/transactions/consumption/9", v1)) == "4040010")
  }

  /// Apple's page: the token applies to the current renewal transaction and later renewals,
  /// not to past transactions.
  @Test func appAccountTokenIsSetOnTheCurrentRenewalAndLaterOnesNotPastOnes() throws {
    let store = try T.store()
    let uuid = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
    let r = Self.put(
      store, "/inApps/v1/transactions/2000000000000001/appAccountToken", #"{"appAccountToken":"\#(uuid)"}"#)
    #expect(r.status == 200)
    var changed = try #require(r.changed)
    let pro = changed.allTransactions().filter { $0.productID == "pro" }
    #expect(pro.map { $0.appAccountToken?.uuidString } == [nil, nil, uuid])
    _ = try changed.advance(by: 31 * 86_400)
    #expect(changed.allTransactions().last { $0.productID == "pro" }?.appAccountToken?.uuidString == uuid)
    #expect(
      Self.code(Self.put(store, "/inApps/v1/transactions/2000000000000001/appAccountToken", #"{"appAccountToken":""}"#))
        == "4000183")
    #expect(
      Self.code(
        Self.put(store, "/inApps/v1/transactions/2000000000000002/appAccountToken", #"{"appAccountToken":"\#(uuid)"}"#))
        == "4000187")
    #expect(
      Self.code(
        Self.put(store, "/inApps/v1/transactions/2000000000000001/appAccountToken", #"{"appAccountToken":"nope"}"#))
        == "4000183")
  }

  @Test func testNotificationNeedsADeliveryURLAndIsFoundByItsToken() throws {
    var store = try T.store()
    #expect(Self.code(Self.put(store, "/inApps/v1/notifications/test", "", method: "POST")) == "4040007")
    store.setDeliveryURL("http://127.0.0.1:9/")
    let r = Self.put(store, "/inApps/v1/notifications/test", "", method: "POST")
    #expect(r.status == 200)
    let changed = try #require(r.changed)
    #expect(changed.notifications.last?.notificationType == .test)
    let token = try #require(T.string(try JSONParser.parse(Array(r.body.utf8))["testNotificationToken"]))
    // No attempt yet: Apple's "status isn't yet available".
    #expect(T.call(changed, "GET", "/inApps/v1/notifications/test/\(token)").0 == 404)
    var attempted = changed
    attempted.recordDelivery(
      NotificationDelivery(
        index: attempted.notifications.count - 1, url: "http://127.0.0.1:9/", httpStatus: 200, error: nil,
        date: attempted.now))
    let (status, body) = T.call(attempted, "GET", "/inApps/v1/notifications/test/\(token)")
    #expect(status == 200)
    #expect(T.array(body["sendAttempts"]).count == 1)
    #expect(T.string(body["firstSendAttemptResult"]) == "SUCCESS")
    #expect(T.call(changed, "GET", "/inApps/v1/notifications/test/unknown").0 == 404)
  }
}
