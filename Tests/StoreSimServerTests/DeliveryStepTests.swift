import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimServer
@testable import StoreSimTestSupport

/// Delivery is one step (plan, send, record): `Delivery.deliver` posts what was planned with
/// no lock held and only then asks for the store to record on, once.
@Suite struct DeliveryStepTests {
  /// A session with a delivery URL that fails every attempt without the network (port 0 is
  /// refused by the URL check), and the notifications of one purchase planned.
  static func planned() throws -> (Store, PlannedDeliveries) {
    var store = Fixtures.store()
    store.setDeliveryURL("http://127.0.0.1:0/notifications")
    let before = store.notifications.count
    _ = try store.buyProduct("car")
    return (store, Delivery.planned(store, since: before))
  }

  @Test func deliveryRecordsEveryAttemptOnceAfterSendingIt() throws {
    var (store, planned) = try Self.planned()
    try #require(!planned.isEmpty)
    var recordings = 0
    let records = Delivery.deliver(planned) { record in
      recordings += 1
      return record(&store)
    }
    #expect(recordings == 1)
    let pending = planned.plan.pending
    #expect(records.map(\.index) == pending.map(\.index))
    #expect(records.allSatisfy { !$0.succeeded && $0.error != nil })
    #expect(store.undelivered(to: pending[0].url).failed == pending.map(\.index))
  }

  @Test func nothingPlannedIsNeitherSentNorRecorded() throws {
    var recordings = 0
    let records = Delivery.deliver(PlannedDeliveries(Fixtures.store(), indexes: [], to: "http://127.0.0.1:9/")) { _ in
      recordings += 1
      return []
    }
    #expect(records.isEmpty && recordings == 0)
  }

  /// The `notifications` command delivers by itself: a change it makes plans nothing.
  @Test func theNotificationsCommandPlansNoAutomaticDelivery() throws {
    let (store, planned) = try Self.planned()
    #expect(Delivery.planned(store, since: 0, skip: true).isEmpty)
    #expect(!Delivery.planned(store, since: 0).isEmpty && !planned.isEmpty)
  }

  /// A change's warnings name each undelivered notification once (its last attempt), at most
  /// twenty, then how many more; one delivered by a later retry of the change is not named.
  @Test func warningsNameEachUndeliveredNotificationOnceAndAtMostTwenty() {
    func attempt(_ index: Int, _ status: Int) -> NotificationDelivery {
      NotificationDelivery(
        index: index, url: "http://127.0.0.1:9/", httpStatus: status, error: nil, date: Date(timeIntervalSince1970: 0),
        result: status == 200 ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
    }
    let records = (0..<25).flatMap { [attempt($0, 500), attempt($0, 500)] } + [attempt(30, 500), attempt(30, 200)]
    let lines = Delivery.undeliveredWarnings(records)
    #expect(lines.count == 21)
    #expect(lines.first?.hasPrefix("notification #0 was not delivered") == true)
    #expect(lines.last == "5 more notifications were not delivered; see 'storesim notifications'")
    #expect(!lines.contains { $0.contains("#30 ") })
  }
}
