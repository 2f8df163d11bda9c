import Foundation

/// Where a customer's transactions are, by product, and how many of the first ones are
/// finished: derived from the state (never saved), so the reads a scenario makes on every line
/// (`finish --all`, entitlements, the latest transaction of a product) cost in proportion to
/// what they look at, not to the whole history.
struct TransactionIndex: Sendable {
  /// The positions in `Customer.transactions` of each product's transactions, oldest first.
  var byProduct: [ProductID: [Int]] = [:]
  /// Every transaction before this position is finished (transactions are only appended, and
  /// a finished one is never unfinished; a removal rebuilds the index).
  var finishedPrefix = 0
  /// The positions of family-shared subscription transactions, by group.
  var familyShared: [SubscriptionGroupID: [Int]] = [:]

  init() {}

  init(_ transactions: [Transaction]) {
    for (i, t) in transactions.enumerated() { appended(t, at: i) }
  }

  /// Records a transaction appended at `position`.
  mutating func appended(_ t: Transaction, at position: Int) {
    byProduct[t.productID, default: []].append(position)
    if t.ownershipType == .familyShared, let group = t.subscriptionGroupID {
      familyShared[group, default: []].append(position)
    }
  }
}

extension Store {
  /// Builds every customer's index from the state.
  mutating func rebuildTransactionIndex() {
    transactionIndex = state.customers.map { TransactionIndex($0.transactions) }
  }

  /// The positions of a customer's transactions of `product`, oldest first.
  func positions(_ ci: CustomerHandle, of product: ProductID) -> [Int] {
    transactionIndex[ci].byProduct[product] ?? []
  }
}
