import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// Issue 47's fidelity rules that live in the core, each test named after its rule in
/// docs/rules.md.
@Suite struct AuditRuleTests {
  static func value(_ payload: JSONOutput, _ key: String) -> JSONOutput? {
    if case .object(let fields) = payload { return fields[key] ?? nil }
    return nil
  }

  // extension-moves-the-family-copies
  @Test func extensionMovesTheFamilyCopies() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let sub = try store.buyProduct("pro")
    let copy = try #require(store.currentEntitlements(customer: "kid").first)
    #expect(copy.ownershipType == .familyShared && copy.expirationDate == sub.expirationDate)
    let mark = store.notifications.count
    let extended = try store.extendRenewalDate(
      originalTransactionID: sub.id, days: 10, reason: 1, requestIdentifier: "r1"
    ).value
    let newDate = try #require(sub.expirationDate).addingTimeInterval(10 * 86_400)
    #expect(extended.effectiveDate == newDate)
    // The member's copy, their entitlement and their status move with the organizer's.
    let moved = try #require(store.currentEntitlements(customer: "kid").first)
    #expect(moved.id == copy.id && moved.expirationDate == newDate)
    let status = try #require(store.statuses(forGroup: Fixtures.group, customer: "kid").first)
    #expect(status.transaction.expirationDate == newDate)
    // Past the old expiry the member still has access; each side is told of the extension.
    _ = try store.advance(by: 31 * 86_400 + 3_600)
    #expect(store.currentEntitlements(customer: "kid").count == 1)
    let told = store.notifications[mark...].filter { $0.notificationType == .renewalExtended }
    #expect(told.map(\.customer) == [.default, "kid"])
    #expect(told.last?.transaction?.ownershipType == .familyShared)
    #expect(told.last?.transaction?.expirationDate == newDate)
  }

  // extension-moves-the-family-copies: the mass extension too
  @Test func extensionMovesTheFamilyCopiesInAMassExtension() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    let sub = try store.buyProduct("pro")
    _ = store.massExtendRenewalDate(productID: "pro", days: 5, reason: 0, requestIdentifier: "m1", storefronts: nil)
    let newDate = try #require(sub.expirationDate).addingTimeInterval(5 * 86_400)
    #expect(store.currentEntitlements(customer: "kid").first?.expirationDate == newDate)
  }

  // realtime-request-fields: the session's appAppleId when one is set
  @Test func realtimeRequestFieldsCarryTheSessionsAppAppleID() throws {
    for (environment, id) in [(StoreEnvironment.production, Int64(1_234_567_890)), (.sandbox, 42), (.xcode, nil)] {
      var store = Fixtures.store(environment: environment)
      store.useSigning(nil, appAppleID: id)
      _ = try store.buyProduct("pro")
      let call = store.retentionCall(try store.retentionTarget(productID: "pro", customer: .default), locale: "en-US")
      #expect(Self.value(store.realtimeRequestPayload(call), "appAppleId") == .int(id ?? 0), "\(environment)")
    }
  }

  // production-realtime-url-is-set-tested-then-active
  @Test func productionRealtimeURLIsSetTestedThenActive() throws {
    var store = Fixtures.store(environment: .production)
    let url = "https://example.com/retention"
    store.updateRetentionMessaging { $0.realtimeURL = url }
    #expect(store.activeRealtimeURL == nil)
    _ = try store.buyProduct("pro")
    let target = try store.retentionTarget(productID: "pro", customer: .default)
    #expect(store.retentionCall(target, locale: "en-US").url == nil)
    let waiting = store.decide(store.retentionCall(target, locale: "en-US"), answer: .notConfigured)
    #expect(waiting.outcome == "realtime URL not active: no passing performance test")
    store.updateRetentionMessaging { $0.performanceTests.append(Self.test(of: "https://other.example/", "PASS")) }
    #expect(store.activeRealtimeURL == nil)  // a pass of another URL does not activate this one
    store.updateRetentionMessaging { $0.performanceTests.append(Self.test(of: url, "FAIL")) }
    #expect(store.activeRealtimeURL == nil)
    store.updateRetentionMessaging { $0.performanceTests.append(Self.test(of: url, "PASS")) }
    #expect(store.activeRealtimeURL == url)
    // Elsewhere the configured URL is called at once.
    var sandbox = Fixtures.store(environment: .sandbox)
    sandbox.updateRetentionMessaging { $0.realtimeURL = url }
    #expect(sandbox.activeRealtimeURL == url)
  }

  static func test(of url: String, _ result: String) -> RetentionPerformanceTest {
    RetentionPerformanceTest(
      requestID: "t", originalTransactionID: 1, target: url, maxConcurrentRequests: 1, totalRequests: 1,
      totalDuration: 1, responseTimeThreshold: 700, successRateThreshold: 90, result: result,
      successRate: result == "PASS" ? 100 : 0, responseTimes: [1], failures: [:])
  }
}
