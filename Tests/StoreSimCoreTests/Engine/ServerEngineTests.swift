import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// The engine behind issue 27: the order of changes, the app account token, extension
/// eligibility and the mass extension's SUMMARY, and how the session file keeps them.
@Suite struct ServerEngineTests {
  static func premium() throws -> Store {
    try Fixtures.store(configurationNamed: "Premium.storekit")
  }

  @Test func everyChangeTakesTheNextPlaceInTheOrderOfChanges() throws {
    var store = try Self.premium()
    try store.purchase("com.example.coins.100")
    try store.purchase("com.example.premium.lifetime")
    let (coins, lifetime) = (store.allTransactions()[0], store.allTransactions()[1])
    #expect(coins.modificationOrder == 1 && lifetime.modificationOrder == 2)
    _ = try store.refund(coins.id)
    #expect(store.allTransactions().first { $0.id == coins.id }?.modificationOrder == 3)
    #expect(store.lastModificationOrder == 3)
    // Finishing is not a change Apple's history reports.
    _ = try store.finish(lifetime.id)
    #expect(store.lastModificationOrder == 3)
  }

  @Test func anAppAccountTokenReachesTheCurrentRenewalAndLaterOnesOnly() throws {
    var store = try Self.premium()
    try store.purchase("com.example.premium.monthly")
    _ = try store.advance(by: 8 * 86_400)
    let token = UUID()
    #expect(store.setAppAccountToken(token, originalTransactionID: store.allTransactions()[0].id).value)
    _ = try store.advance(by: 31 * 86_400)
    #expect(store.allTransactions().map { $0.appAccountToken } == [nil, token, token])
  }

  @Test func onlyPaidPeriodsOfAutoRenewablesAreExtended() throws {
    var store = try Self.premium()
    try store.purchase("com.example.premium.monthly")
    try store.purchase("com.example.premium.lifetime")
    let (trial, lifetime) = (store.allTransactions()[0].id, store.allTransactions()[1].id)
    #expect(throws: ExtensionRefusal.freeOfferPeriod) {
      try store.extendRenewalDate(originalTransactionID: trial, days: 1, reason: 0, requestIdentifier: "a")
    }
    #expect(throws: ExtensionRefusal.notAutoRenewable) {
      try store.extendRenewalDate(originalTransactionID: lifetime, days: 1, reason: 0, requestIdentifier: "b")
    }
    _ = try store.advance(by: 8 * 86_400)
    #expect(throws: Never.self) {
      try store.extendRenewalDate(originalTransactionID: trial, days: 1, reason: 0, requestIdentifier: "c")
    }
  }
}
