import Foundation

/// Where a customer's transactions are, by product, and how many of the first ones are
/// finished: derived from the state (never saved), so the reads a scenario makes on every line
/// (`finish --all`, entitlements, the latest transaction of a product) cost in proportion to
/// what they look at, not to the whole history.
struct TransactionIndex: Sendable, Equatable {
  /// The products of the customer's transactions, in the order of their first one; a product's
  /// place here is its slot in `positionsBySlot`.
  private(set) var productIDs: [ProductID] = []
  /// The positions in `Customer.transactions` of each product's transactions, oldest first.
  private(set) var positionsBySlot: [[Int]] = []
  /// Slots by product id, once the customer has more products than are compared one by one.
  private var slots: [ProductID: Int] = [:]
  /// The slot of the product appended last: a subscriber's renewals are appended one after
  /// another, and comparing an id with it is cheaper than hashing the id.
  private var lastSlot = -1
  /// Every transaction before this position is finished (transactions are only appended, and
  /// a finished one is never unfinished; a removal rebuilds the index).
  var finishedPrefix = 0
  /// The positions of family-shared subscription transactions, by group.
  var familyShared: [SubscriptionGroupID: [Int]] = [:]

  /// Product ids are compared one by one up to this many products, hashed beyond (as
  /// `StoreConfiguration.position(of:)` does).
  static let scanLimit = 16

  init() {}

  /// The index of a whole history. Each run of one product (a subscriber's renewals come one
  /// after another) is added at once: the same index as appending one at a time, in fewer steps.
  init(_ transactions: [Transaction]) {
    var start = 0
    while start < transactions.count {
      let id = transactions[start].productID
      var end = start + 1
      while end < transactions.count, transactions[end].productID == id { end += 1 }
      positionsBySlot[slot(for: id)].append(contentsOf: start..<end)
      for i in start..<end where transactions[i].ownershipType == .familyShared {
        if let group = transactions[i].subscriptionGroupID { familyShared[group, default: []].append(i) }
      }
      start = end
    }
  }

  /// Reads what `appended` will read (the product ids, and the header and last slot of the
  /// latest product's positions), for `Store.warm`.
  func warmth() -> UInt {
    var sum = UInt(productIDs.count) &+ UInt(positionsBySlot.count)
    if lastSlot >= 0 {
      positionsBySlot.withUnsafeBufferPointer { slots in
        let positions = slots[lastSlot]
        sum &+= UInt(positions.count)
        positions.withUnsafeBufferPointer { p in if let last = p.last { sum &+= UInt(last) } }
      }
      sum &+= UInt(productIDs[lastSlot].utf8.count)
    }
    return sum
  }

  /// Records a transaction appended at `position`.
  mutating func appended(_ t: Transaction, at position: Int) {
    positionsBySlot[slot(for: t.productID)].append(position)
    if t.ownershipType == .familyShared, let group = t.subscriptionGroupID {
      familyShared[group, default: []].append(position)
    }
  }

  /// The positions of a product's transactions, oldest first; nil when there are none.
  func positions(of product: ProductID) -> [Int]? {
    let slot = productIDs.count <= Self.scanLimit ? productIDs.firstIndex(of: product) : slots[product]
    return slot.map { positionsBySlot[$0] }
  }

  /// The product's slot, made when it is new.
  private mutating func slot(for id: ProductID) -> Int {
    if lastSlot >= 0, productIDs[lastSlot] == id { return lastSlot }
    if let slot = productIDs.count <= Self.scanLimit ? productIDs.firstIndex(of: id) : slots[id] {
      lastSlot = slot
      return slot
    }
    lastSlot = productIDs.count
    productIDs.append(id)
    positionsBySlot.append([])
    if productIDs.count > Self.scanLimit {
      if slots.isEmpty {
        for (slot, product) in productIDs.enumerated() { slots[product] = slot }
      } else {
        slots[id] = lastSlot
      }
    }
    return lastSlot
  }
}

extension Store {
  /// Builds every customer's index from the state.
  mutating func rebuildTransactionIndex() {
    transactionIndex = state.customers.map { TransactionIndex($0.transactions) }
    var owners: [TransactionID: CustomerHandle] = [:]
    owners.reserveCapacity(state.customers.reduce(0) { $0 + $1.transactions.count })
    for (i, c) in state.customers.enumerated() {
      for t in c.transactions { owners[t.id] = CustomerHandle(index: i) }
    }
    transactionOwners = owners
  }

  /// The customer who holds transaction `id` (an own purchase, or a family member's copy) and
  /// the transaction, from the store's index.
  public func owner(of id: TransactionID) -> (customer: CustomerID, transaction: Transaction)? {
    guard let ci = transactionOwners[id], let t = state.customers[ci.index].transaction(id) else { return nil }
    return (state.customers[ci.index].id, t)
  }

  /// The customer whose `appTransactionId` this is.
  public func customer(withAppTransactionID id: String) -> CustomerID? {
    state.customers.first { $0.appTransactionID == id }?.id
  }

  /// The positions of a customer's transactions of `product`, oldest first.
  func positions(_ ci: CustomerHandle, of product: ProductID) -> [Int] {
    transactionIndex[ci].positions(of: product) ?? []
  }
}
