import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

@Suite struct StoreMisuseAndSnapshotTests {
  /// A store with some of everything in it.
  func busyStore() throws -> Store {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    _ = try store.buyProduct("car")
    _ = try store.buyProduct(
      "fuel",
      options: PurchaseOptions(quantity: 2, appAccountToken: UUID(uuidString: "11111111-2222-3333-4444-555555555555")))
    _ = try store.buyProduct("monthly")
    try store.advance(by: Fixtures.days(45))
    _ = try store.buyProduct("pro")
    store.settings.askToBuyEnabled = true
    _ = try store.purchase("pass")
    return store
  }

  @Test func wholeStateRoundTripsThroughCodableUnchanged() throws {
    let store = try busyStore()
    let data = try JSONEncoder().encode(store.state)
    let decoded = try JSONDecoder().decode(StoreState.self, from: data)
    #expect(decoded == store.state)
    let restored = Store(state: decoded)
    #expect(restored.currentEntitlements() == store.currentEntitlements())
    #expect(restored.statuses(forGroup: Fixtures.group) == store.statuses(forGroup: Fixtures.group))
  }

  struct MisuseCase: CustomTestStringConvertible, Sendable {
    var name: String
    var expected: StoreError
    var act: @Sendable (inout Store) throws -> Void
    var testDescription: String { name }
  }

  static let misuse: [MisuseCase] = [
    MisuseCase(name: "unknown product", expected: .productNotFound("cra", suggestion: "car")) {
      try $0.purchase("cra")
    },
    MisuseCase(name: "unknown customer", expected: .customerNotFound("nobody")) {
      try $0.purchase("car", customer: "nobody")
    },
    MisuseCase(name: "refund unknown id", expected: .transactionNotFound(42)) { try $0.refund(42) },
    MisuseCase(name: "refund twice", expected: .alreadyRefunded(2_000_000_000_000_001)) {
      try $0.refund(2_000_000_000_000_001)
    },
    MisuseCase(name: "approve with nothing pending", expected: .noPendingRequest("99")) {
      try $0.approveAskToBuyTransaction(identifier: "99")
    },
    MisuseCase(
      name: "clock backwards",
      expected: .clockCannotMoveBackward(
        now: Fixtures.start.addingTimeInterval(Fixtures.days(45)), requested: Fixtures.start)
    ) { try $0.advance(to: Fixtures.start) },
    MisuseCase(
      name: "cancel a consumable", expected: .invalidProductType("fuel", expected: "an auto-renewable subscription")
    ) { try $0.disableAutoRenew(productID: "fuel") },
    MisuseCase(name: "resolve with no issue", expected: .noIssueToResolve("pro")) {
      try $0.resolveIssue(productID: "pro")
    },
    MisuseCase(name: "accept with no increase", expected: .noPriceIncreasePending("pro")) {
      try $0.consentToPriceIncrease(productID: "pro")
    },
    MisuseCase(name: "finish unknown id", expected: .transactionNotFound(7)) { try $0.finish(7) },
  ]

  @Test(arguments: misuse)
  func misuseThrowsATypedErrorAndLeavesTheStateExactlyAsItWas(_ c: MisuseCase) throws {
    var store = try busyStore()
    if c.name == "refund twice" { try store.refund(2_000_000_000_000_001) }
    let before = store.state
    #expect(throws: c.expected) { try c.act(&store) }
    #expect(store.state == before)
  }

  @Test func outcomesAreValuesNotErrors() throws {
    var store = Fixtures.store()
    #expect(try store.purchase("car", cancel: true).value == .userCancelled)
    #expect(
      try store.purchase("monthly", options: PurchaseOptions(offer: .promotional("nope"))).value
        == .failed(.invalidOfferIdentifier))
    #expect(
      try store.purchase("monthly", options: PurchaseOptions(offer: .promotional("promo.half"))).value
        == .failed(.ineligibleForOffer))
    #expect(store.allTransactions().isEmpty)
  }

  @Test func advanceRunsEventsInTimeOrderAcrossCustomers() throws {
    var store = Fixtures.store()
    try store.addCustomer("b")
    _ = try store.buyProduct("weekly", customer: "b")
    try store.advance(by: 3600)
    _ = try store.buyProduct("basic")
    let events = try store.advance(by: Fixtures.days(40)).events
    let dates = events.map(\.date)
    #expect(dates == dates.sorted())
    #expect(store.notifications[2...].map(\.name).filter { $0 == "DID_RENEW" }.count == 6)  // 5 weekly + 1 monthly
  }

  /// Purchases at instants that are not whole seconds (the 10,000 subscribers of the benchmark
  /// join 259.2 s apart) once lost deadlines whose date did not survive a round trip through
  /// `timeIntervalSince1970`: those subscriptions never renewed or expired.
  @Test func everyDeadlineFiresWhateverInstantItFallsOn() throws {
    var store = Fixtures.store()
    let customers = 400
    for i in 0..<customers {
      try store.addCustomer(CustomerID("c\(i)"))
      try store.advance(to: Fixtures.start.addingTimeInterval(259.2 * Double(i)))
      _ = try store.purchase("monthly", customer: CustomerID("c\(i)"))  // a week's free trial first
    }
    try store.advance(to: UTCCalendar.adding(months: 3, to: Fixtures.start))
    for i in 0..<customers {
      let customer = try #require(store.customer(CustomerID("c\(i)")))
      #expect(customer.transactions.count >= 3, "c\(i) renewed \(customer.transactions.count - 1) times in 3 months")
      #expect(customer.subscriptions.allSatisfy { $0.expirationDate > store.now })
    }
  }

  /// Deadlines run in batches; one long advance must do exactly what many short ones do, even
  /// when a deadline queued during a batch (a renewal every 30 s, grace and billing retry)
  /// comes before the rest of the batch.
  @Test func oneLongAdvanceEqualsManyShortOnes() throws {
    func story() throws -> Store {
      var store = Fixtures.store {
        $0.timeRate = .monthlyRenewalEveryThirtySeconds
        $0.billingGracePeriodIsEnabled = true
      }
      for i in 0..<40 {
        try store.addCustomer(CustomerID("c\(i)"))
        try store.advance(by: 0.75 * Double(i % 9))
        _ = try store.purchase(i % 3 == 0 ? "weekly" : "pro", customer: CustomerID("c\(i)"))
        if i % 5 == 0 { store.settings.shouldEnterBillingRetryOnRenewal.toggle() }
      }
      return store
    }
    var once = try story()
    var stepped = try story()
    let long = try once.advance(by: 600).events
    var short: [StoreEvent] = []
    for _ in 0..<600 {
      short += try stepped.advance(by: 1).events.filter { if case .clockAdvanced = $0.kind { false } else { true } }
    }
    #expect(once.state == stepped.state)
    #expect(long.filter { if case .clockAdvanced = $0.kind { false } else { true } } == short)
    #expect(long.map(\.date) == long.map(\.date).sorted())
    #expect(long.count > 1_000)
  }

  /// Transactions and notifications share storage; a later change must not reach the copy a
  /// notification, an event or a caller already holds.
  @Test func copiesKeepTheValueTheyWereMadeWith() throws {
    var store = Fixtures.store()
    let bought = try store.buyProduct("pro")
    let sent = try #require(store.notifications.last)
    try store.finish(bought.id)
    try store.refund(bought.id)
    let now = try #require(store.customer()?.transaction(bought.id))
    #expect(now.isFinished && now.revocationDate != nil)
    #expect(!bought.isFinished && bought.revocationDate == nil)
    #expect(sent.transaction?.revocationDate == nil && sent.renewalInfo?.willAutoRenew == true)
    #expect(store.notifications.first == sent)
    #expect(store.notifications.last?.transaction?.revocationDate != nil)
    var edited = sent
    edited.notificationType = .test
    #expect(store.notifications.first?.notificationType == .subscribed)
  }

  @Test func interruptedPurchaseIsPendingUntilResolvedThroughUpdates() throws {
    var store = Fixtures.store { $0.interruptedPurchasesEnabled = true }
    let outcome = try store.purchase("car")
    #expect(outcome.value.name == "pending")
    #expect(store.pendingRequests().first?.kind == .interrupted)
    store.settings.interruptedPurchasesEnabled = false
    let events = try store.resolveIssue(productID: "car").events
    #expect(
      events.contains {
        if case .transactionCreated(_, "car", .updates) = $0.kind { return true }; return false
      })
    #expect(store.currentEntitlements().map(\.productID) == ["car"])
  }

  @Test func payAsYouGoIntroCoversEachDiscountedPeriod() throws {
    let offer = SubscriptionOffer(
      type: .introductory, paymentMode: .payAsYouGo, period: SubscriptionPeriod(value: 1, unit: .month), periodCount: 3,
      price: 1)
    let c = StoreConfiguration(
      products: [Fixtures.sub("s", level: 1, period: "P1M", price: 5, intro: offer)],
      subscriptionGroups: [SubscriptionGroup(id: Fixtures.group, name: "G", productIDs: ["s"])])
    var store = Store(configuration: c, start: Fixtures.start)
    _ = try store.buyProduct("s")
    try store.advance(by: Fixtures.days(100))
    let prices = store.allTransactions().map(\.price)
    #expect(prices == [1, 1, 1, 5])
    #expect(store.allTransactions().prefix(3).allSatisfy { $0.offer?.paymentMode == .payAsYouGo })
  }

  @Test func monthlyRenewalsClampToMonthEnds() {
    let jan31 = Date(timeIntervalSince1970: 1_769_817_600)  // 2026-01-31
    #expect(ISO8601.string(UTCCalendar.adding(months: 1, to: jan31)) == "2026-02-28T00:00:00Z")
    #expect(ISO8601.string(UTCCalendar.adding(months: 13, to: jan31)) == "2027-02-28T00:00:00Z")
    #expect(
      ISO8601.string(UTCCalendar.adding(months: 1, to: Date(timeIntervalSince1970: 1_706_659_200)))
        == "2024-02-29T00:00:00Z")
  }
}

/// The store knows who holds each transaction id (the server's lookups by id read this).
@Suite struct TransactionOwnerTests {
  @Test func theStoresIndexNamesTheCustomerWhoHoldsATransaction() throws {
    var store = Fixtures.store()
    try store.addCustomer("b")
    let a = try store.buyProduct("car")
    let b = try store.buyProduct("basic", customer: "b")
    #expect(store.owner(of: a.id)?.customer == .default)
    #expect(store.owner(of: b.id)?.customer == "b")
    #expect(store.owner(of: b.id)?.transaction == b)
    #expect(store.owner(of: 1) == nil)
    // Restored from its state, and after a deletion, the index agrees with the state.
    var restored = Store(state: store.state)
    #expect(restored.owner(of: b.id)?.customer == "b")
    try restored.deleteTransaction(b.id, customer: "b")
    #expect(restored.owner(of: b.id) == nil)
    #expect(restored.customer(withAppTransactionID: store.customer("b")!.appTransactionID) == "b")
  }
}
