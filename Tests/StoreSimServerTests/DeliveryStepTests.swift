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
}
