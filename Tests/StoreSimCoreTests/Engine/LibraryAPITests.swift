import Foundation
import StoreSim
import Testing

@testable import StoreSimTestSupport

/// `Store` driven as a user's tests drive it: every mutating call returns an `Outcome` (a value
/// and the events it caused), customers are `CustomerID`s, and the helpers a test needs
/// (`outcome.transaction`, `buyProduct`, notification names) come from the library.
@Suite struct LibraryAPITests {
  @Test func purchaseReturnsItsResultAndEvents() throws {
    var store = Fixtures.store()
    let outcome = try store.purchase("monthly")
    let t = try #require(outcome.transaction)
    guard case .success(let same, nil) = outcome.value else {
      Issue.record("expected success, got \(outcome.value.name)")
      return
    }
    #expect(same == t)
    #expect(outcome.events.first?.kind == .transactionCreated(t.id, "monthly", delivery: .purchaseResult))
    #expect(outcome.events.allSatisfy { $0.customer == .default && $0.date == store.now })
    #expect(outcome.notificationNames == ["SUBSCRIBED/INITIAL_BUY"])
    #expect(store.lastNotification?.name == "SUBSCRIBED/INITIAL_BUY")
  }

  @Test func callsWithNothingToReturnStillReportTheirEvents() throws {
    var store = Fixtures.store()
    let t = try store.buyProduct("car")
    let finished: Outcome<Void> = try store.finish(t.id)
    #expect(finished.events.isEmpty)
    #expect(store.unfinishedTransactions().isEmpty)
    let refunded: Outcome<Void> = try store.refund(t.id)
    #expect(refunded.events.first?.kind == .transactionRevoked(t.id, "car"))
    #expect(refunded.notificationNames == ["REFUND"])
    let reversed = try store.reverseRefund(t.id)
    #expect(reversed.notificationNames == ["REFUND_REVERSED"])
  }

  @Test func valuesComeBackInTheOutcome() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("fuel")
    _ = try store.buyProduct("car")
    #expect(try store.finishAll().value == 2)
    #expect(try store.finishAll().value == 0)
    let car = try #require(store.latestTransaction(for: "car"))
    let request = try store.requestRefund(car.id).value
    #expect(request.transactionID == car.id)
    #expect(try store.declineRefundRequest(request.id).value == car.id)
    #expect(store.setAppAccountToken(UUID(), originalTransactionID: car.id).value)
    #expect(!store.setAppAccountToken(UUID(), originalTransactionID: 1).value)
  }

  @Test func advancingTheClockReportsWhatHappenedOnTheWay() throws {
    var store = Fixtures.store()
    let t = try store.buyProduct("basic")
    let advanced = try store.advance(by: Fixtures.days(31))
    #expect(advanced.notificationNames == ["DID_RENEW"])
    #expect(advanced.events.last?.kind == .clockAdvanced(to: store.now))
    #expect(advanced.events.last?.customer == nil)  // store-wide
    let next = try store.advanceToNextEvent()
    #expect(next.value == store.now)
    #expect(t.expirationDate == UTCCalendar.adding(months: 1, to: Fixtures.start))
    #expect(next.value == UTCCalendar.adding(months: 2, to: Fixtures.start))
    var empty = Fixtures.store()
    let nothing = try empty.advanceToNextEvent()
    #expect(nothing.value == nil && nothing.events.isEmpty)
    #expect(throws: StoreError.clockCannotMoveBackward(now: store.now, requested: Fixtures.start)) {
      try store.advance(to: Fixtures.start)
    }
  }

  @Test func customersAreNamedByCustomerID() throws {
    var store = Fixtures.store()
    let alice: CustomerID = "alice"
    try store.addCustomer(alice)
    #expect(store.customerIDs == [.default, alice])
    #expect(throws: StoreError.customerExists(alice)) { try store.addCustomer("alice") }
    #expect(throws: StoreError.customerNotFound("bob")) { try store.purchase("car", customer: "bob") }
    #expect(StoreError.customerNotFound("bob").description == "no customer named 'bob'")
    let outcome = try store.purchase("car", customer: alice)
    #expect(outcome.events.allSatisfy { $0.customer == alice })
    #expect(store.customer(alice)?.id == alice)
    #expect(store.allTransactions(customer: alice).count == 1)
    #expect(store.allTransactions().isEmpty)
    #expect("\(alice)" == "alice")
    let encoded = try JSONEncoder().encode(alice)
    #expect(String(decoding: encoded, as: UTF8.self) == "\"alice\"")
    #expect(try JSONDecoder().decode(CustomerID.self, from: encoded) == alice)
  }

  @Test func buyProductThrowsWhenThePurchaseDoesNotComplete() throws {
    var store = Fixtures.store { $0.askToBuyEnabled = true }
    #expect(throws: StoreError.purchaseNotCompleted("car", .pending(requestID: "1"))) {
      try store.buyProduct("car")
    }
    #expect(
      StoreError.purchaseNotCompleted("car", .pending(requestID: "1")).description
        == "the purchase of 'car' did not complete: pending")
    let approved = try store.approveAskToBuyTransaction()
    #expect(approved.value.productID == "car")
    #expect(approved.events.first?.kind == .transactionCreated(approved.value.id, "car", delivery: .updates))
    #expect(throws: StoreError.productNotFound("cart", suggestion: "car")) { try store.buyProduct("cart") }
  }

  @Test func notificationNamesAreTypeSlashSubtype() {
    #expect(ServerNotification.name(.didRenew, nil) == "DID_RENEW")
    #expect(
      ServerNotification.name(.didChangeRenewalStatus, .autoRenewDisabled)
        == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
  }
}

/// README's "The library" example, line for line, with what its comments claim.
@Suite struct ReadmeLibraryExampleTests {
  @Test func theReadmeExampleRunsAndItsCommentsHold() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../../Configurations/AppleSample.storekit")
    let bytes = try Data(contentsOf: url)
    let someDate = Date(timeIntervalSince1970: 1_767_225_600)

    let loaded = try ConfigurationReader.read(bytes)
    var store = Store(configuration: loaded.configuration, start: someDate)
    let outcome = try store.purchase("subscription.pro")
    #expect(outcome.value.name == "purchased")
    try store.addCustomer("alice")
    #expect(store.customerIDs.contains(.default))
    let t = try store.buyProduct("consumable.fuel.octane87", customer: "alice")
    let finished: Outcome<Void> = try store.finish(t.id, customer: "alice")
    #expect(finished.events.isEmpty)
    let renewed = try store.advance(by: 59 * 86_400)
    #expect(renewed.notificationNames == ["DID_RENEW"])
    #expect(store.currentEntitlements().map(\.productID) == ["subscription.pro"])
    #expect(!store.statuses(forGroup: "5A1E6001").isEmpty)
    #expect(store.lastNotification?.name == "DID_RENEW")
  }
}

/// The library's public surface is the list in `docs/library-api.md`, no more and no less.
@Suite struct LibraryAPISurfaceTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")
    .standardizedFileURL

  /// The names of `public` top-level declarations in `Sources/StoreSim`.
  static func declaredPublicNames() throws -> Set<String> {
    let folder = root.appendingPathComponent("Sources/StoreSim")
    let pattern = try Regex(#"^public (?:final |indirect )*(?:struct|enum|class|protocol|typealias|actor|func) (\w+)"#)
    var names = Set<String>()
    let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      for line in text.split(separator: "\n") {
        if let match = try pattern.firstMatch(in: String(line)), let name = match.output[1].substring {
          names.insert(String(name))
        }
      }
    }
    return names
  }

  /// The names listed in `docs/library-api.md` (lines "- `Name`").
  static func documentedNames() throws -> Set<String> {
    let text = try String(contentsOf: root.appendingPathComponent("docs/library-api.md"), encoding: .utf8)
    return Set(
      text.split(separator: "\n").compactMap { line -> String? in
        guard line.hasPrefix("- `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
        return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
      })
  }

  @Test func everyPublicNameIsDocumentedAndEveryDocumentedNameIsPublic() throws {
    let declared = try Self.declaredPublicNames()
    let documented = try Self.documentedNames()
    #expect(declared.count > 40)
    #expect(declared.subtracting(documented).sorted() == [], "public but not in docs/library-api.md")
    #expect(documented.subtracting(declared).sorted() == [], "in docs/library-api.md but not public")
  }

  @Test func infrastructureIsNotPublic() throws {
    let declared = try Self.declaredPublicNames()
    for name in [
      "StateCodec", "JSONParser", "JWS", "SHA256", "ISO8601", "UTCCalendar", "PriceFormatter", "ServerRecords",
    ] {
      #expect(!declared.contains(name), "\(name) is infrastructure")
    }
  }
}
