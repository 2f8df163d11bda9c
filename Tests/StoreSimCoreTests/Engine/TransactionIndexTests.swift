import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimTestSupport

/// The per-customer transaction index (issue 25, item 5: a scenario's per-line reads do not
/// walk the whole history): after every kind of change, the reads through the index answer
/// what a walk over the history answers, and what a store rebuilt from the state answers.
@Suite struct TransactionIndexTests {
  /// The reads that go through the index, for one customer.
  struct Reads: Equatable {
    var entitlements: [TransactionID]
    var entitled: [ProductID]
    var latest: [ProductID: TransactionID]
    var statuses: [String]

    init(_ store: Store, _ customer: CustomerID) {
      entitlements = store.currentEntitlements(customer: customer).map(\.id)
      let products = store.configuration.products.map(\.id)
      entitled = products.filter { store.isEntitled(to: $0, customer: customer) }
      var latest: [ProductID: TransactionID] = [:]
      for p in products { latest[p] = store.latestTransaction(for: p, customer: customer)?.id }
      self.latest = latest
      statuses = store.statuses(forGroup: Fixtures.group, customer: customer).map {
        "\($0.transaction.id) \($0.state.rawValue) \($0.isFamilyShared)"
      }
    }
  }

  /// Checks the index against a walk over the history and against a rebuilt store.
  func check(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) {
    let rebuilt = Store(state: store.state)
    for customer in store.customerIDs {
      let reads = Reads(store, customer)
      #expect(reads == Reads(rebuilt, customer), "\(customer)", sourceLocation: sourceLocation)
      // The walks the index replaces.
      let all = store.allTransactions(customer: customer)
      for p in store.configuration.products.map(\.id) {
        #expect(reads.latest[p] == all.last { $0.productID == p }?.id, sourceLocation: sourceLocation)
        #expect(
          reads.entitled.contains(p) == store.currentEntitlements(customer: customer).contains { $0.productID == p },
          sourceLocation: sourceLocation)
      }
      for t in store.customer(customer)?.transactions ?? [] {
        #expect(store.customer(customer)?.transaction(t.id) == t, sourceLocation: sourceLocation)
      }
    }
  }

  @Test func readsAgreeWithTheHistoryAfterEveryKindOfChange() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    _ = try store.purchase("car")
    _ = try store.purchase("fuel")
    _ = try store.purchase("pass")
    _ = try store.purchase("monthly")
    check(store)
    _ = try store.advance(by: Fixtures.days(40))
    _ = try store.purchase("fuel")
    check(store)
    let fuel = try #require(store.latestTransaction(for: "fuel")).id
    let open = store.unfinishedTransactions().count
    #expect(open > 2)
    #expect(try store.finishAll().value == open)
    #expect(try store.finishAll().value == 0)
    check(store)
    let car = try #require(store.latestTransaction(for: "car")).id
    try store.refund(car)
    check(store)
    try store.deleteTransaction(fuel)
    _ = try store.purchase("fuel")
    #expect(try store.finishAll().value == 1)
    check(store)
    try store.removeFamilyMember("kid")
    check(store)
    store.clearTransactions()
    _ = try store.purchase("car")
    #expect(try store.finishAll().value == 1)
    check(store)
  }

  /// The index made from a whole history at load (a run of one product added at once) is the
  /// one made by appending each transaction as it happened, family copies included.
  @Test func anIndexMadeAtLoadIsTheOneMadeByAppending() throws {
    var store = Fixtures.store()
    try store.addFamilyMember("kid")
    for product in ["fuel", "fuel", "car", "monthly", "fuel", "pass", "fuel"] { _ = try store.purchase(product) }
    _ = try store.advance(by: Fixtures.days(100))
    _ = try store.purchase("fuel")
    var shared = 0
    for customer in store.customerIDs {
      let transactions = try #require(store.customer(customer)).transactions
      var appended = TransactionIndex()
      for (i, t) in transactions.enumerated() { appended.appended(t, at: i) }
      #expect(TransactionIndex(transactions) == appended, "\(customer)")
      shared += appended.familyShared.values.reduce(0) { $0 + $1.count }
    }
    #expect(shared > 1)
  }

  /// Past `scanLimit` products a customer's products are hashed rather than compared one by
  /// one: each product's positions still come back, oldest first.
  @Test func positionsAreFoundPastTheProductsComparedOneByOne() {
    let ids = (0..<(TransactionIndex.scanLimit + 5)).map { "p\($0)" }
    var transactions: [Transaction] = []
    for _ in 0..<3 {
      for id in ids {
        var fields = Transaction.Fields.blank
        fields.purchase.productID = id
        transactions.append(Transaction(fields: fields))
      }
    }
    var appended = TransactionIndex()
    for (i, t) in transactions.enumerated() { appended.appended(t, at: i) }
    #expect(TransactionIndex(transactions) == appended)
    for (k, id) in ids.enumerated() {
      #expect(appended.positions(of: id) == [k, k + ids.count, k + 2 * ids.count])
    }
    #expect(appended.positions(of: "none") == nil)
  }

  @Test func finishAllOnlyLooksPastWhatItFinishedBefore() throws {
    var store = Fixtures.store()
    for _ in 0..<5 { _ = try store.purchase("fuel") }
    #expect(try store.finishAll().value == 5)
    _ = try store.purchase("fuel")
    // A transaction finished on its own before `finish --all` is not counted again.
    let last = try #require(store.customer()?.transactions.last).id
    try store.finish(last)
    _ = try store.purchase("car")
    #expect(try store.finishAll().value == 1)
    #expect(store.unfinishedTransactions().isEmpty)
  }

  /// `Store.warm` reads ahead what a renewal will read, an empty index included, and reading
  /// changes nothing; a deadline of a customer that is gone is skipped.
  @Test func warmingABatchReadsWithoutChangingTheStore() throws {
    #expect(TransactionIndex().warmth() == 0)
    var store = Fixtures.store()
    _ = try store.purchase("monthly")
    let ci = try #require(store.state.customers.handles.first)
    let before = store.state
    _ = store.warm([Store.Due(date: store.now, rank: 2, customer: ci, subscription: 0)])
    #expect(store.state == before)
    #expect(store.transactionIndex[ci.index].warmth() != 0)
    let gone = Store.Due(date: store.now, rank: 2, customer: CustomerHandle(index: 99), subscription: 0)
    #expect(store.warm([gone]) == 0)
  }

  /// A record's `warmth` reads every cache line its fields take: changing any one line of the
  /// fields changes what is read.
  @Test func aRecordIsReadAheadOnEveryCacheLine() {
    let base = CopyOnWrite(FiveLines())
    for line in 0..<5 {
      var changed = base.fields
      changed.set(line: line, to: 1)
      #expect(CopyOnWrite(changed).warmth() != base.warmth(), "line \(line)")
    }
  }
}

/// Five cache lines (64 bytes each) of fields.
private struct FiveLines: Sendable, Hashable {
  struct Line: Sendable, Hashable { var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0 }
  var l0 = Line(), l1 = Line(), l2 = Line(), l3 = Line(), l4 = Line()

  mutating func set(line: Int, to value: Int) {
    let all = Line(a: value, b: value, c: value, d: value, e: value, f: value, g: value, h: value)
    switch line {
    case 0: l0 = all
    case 1: l1 = all
    case 2: l2 = all
    case 3: l3 = all
    default: l4 = all
    }
  }
}
