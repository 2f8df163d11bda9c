import Foundation

/// A family-shared subscription in Apple's data: the member's own chain of transactions
/// (`inAppOwnershipType` `FAMILY_SHARED`, its own `originalTransactionId`), which the import
/// keeps apart from the member's own subscription of the same group (docs/import.md).
///
/// The customer who bought it is the one whose own purchase has the web order line item id of a
/// transaction of the chain (`share`). When the data does not hold them, the shared chain gets
/// a stand-in purchaser, `family-purchaser-<the chain's
/// originalTransactionId>`, in the member's family: it holds the subscription, rebuilt from the
/// member's transactions and renewal info under new ids, and the member's transactions are its
/// copies. So the member's statuses hold both subscriptions, and `advance` renews the
/// purchaser's and shares each renewal with the member, as the engine does for any family.
extension ImportLinker {
  /// The prefix of a stand-in purchaser's name.
  static let purchaserPrefix = CustomerID.importedPurchaserPrefix

  /// Whether a transaction is a family member's copy of a subscription.
  func isSharedSubscription(_ t: ImportedItems.Item) -> Bool {
    t.fields.purchase.ownershipType == .familyShared
      && configuration.product(t.fields.purchase.productID)?.subscription != nil
  }

  /// The shared chains of a customer's transactions, by original transaction, oldest first.
  func sharedChains(_ list: [ImportedItems.Item]) -> [[ImportedItems.Item]] {
    let chains = Dictionary(grouping: list.filter(isSharedSubscription), by: \.fields.purchase.originalID)
    return chains.keys.sorted().map { chains[$0]! }
  }

  /// Makes the stand-in purchaser of `chain` (a member's shared chain, already recorded under
  /// `member`), taking new transaction ids from `state`, and ties the member's copies to it.
  /// Returns the purchaser's name.
  func addPurchaser(of chain: [ImportedItems.Item], member: CustomerID, state: inout StoreState) -> CustomerID {
    let sorted = chain.sorted { $0.fields.purchase.id < $1.fields.purchase.id }
    let memberOriginal = sorted[0].fields.purchase.originalID
    let name = CustomerID(Self.purchaserPrefix + String(memberOriginal))
    var ids: [TransactionID: TransactionID] = [:]
    func newID() -> TransactionID {
      defer { state.nextTransactionID += 1 }
      return state.nextTransactionID
    }
    // The original first, whether the data holds it or not.
    let original = newID()
    ids[memberOriginal] = original
    for t in sorted where ids[t.fields.purchase.id] == nil { ids[t.fields.purchase.id] = newID() }
    let transactions = sorted.map { item -> Transaction in
      var f = item.fields
      f.purchase.id = ids[f.purchase.id]!
      f.purchase.originalID = original
      f.purchase.ownershipType = .purchased
      f.purchase.appAccountToken = nil
      if let group = configuration.product(f.purchase.productID)?.subscription?.groupID {
        f.purchase.productType = .autoRenewable
        f.purchase.subscriptionGroupID = group
      }
      f.status.isFinished = true
      f.status.modificationOrder = 0
      return Transaction(fields: f)
    }
    // The subscription as the member's renewal info and status tell it, under the new ids.
    var subscriptions = subscriptions(of: sorted, now: state.now)
    for i in subscriptions.indices {
      subscriptions[i].originalID = original
      subscriptions[i].latestTransactionID = ids[subscriptions[i].latestTransactionID] ?? original
      subscriptions[i].appAccountToken = nil
    }
    guard let mi = state.customers.firstIndex(where: { $0.id == member }) else { return name }
    let family = state.customers[mi].familyID ?? "family-\(member.rawValue)"
    state.customers[mi].familyID = family
    for j in state.customers[mi].transactions.indices {
      let id = state.customers[mi].transactions[j].id
      guard state.customers[mi].transactions[j].originalID == memberOriginal, let theirs = ids[id] else { continue }
      state.customers[mi].transactions[j].sharedFrom = name
      state.customers[mi].transactions[j].sharedTransactionID = theirs
    }
    state.customers.append(
      Customer(
        id: name, transactions: transactions, subscriptions: subscriptions, introductoryOfferUsedGroups: [],
        familyID: family, appTransactionID: String(704_000_000_000_000_000 + UInt64(state.customers.count + 1))))
    return name
  }
}

/// A purchase (not a family copy) a shared chain may be the copy of: its customer, id and group.
typealias ImportedPurchase = (customer: CustomerID, id: TransactionID, group: SubscriptionGroupID?)

extension ImportLinker {
  /// The purchases (not family copies) of `imported` transactions, by web order line item id.
  /// Only the data's own: a session's own purchases number their web order line items as
  /// storesim's do everywhere, so they say nothing about the data's family.
  func purchasesByWebOrder(_ state: StoreState, imported: Set<TransactionID>) -> [UInt64: ImportedPurchase] {
    var out: [UInt64: ImportedPurchase] = [:]
    for c in state.customers {
      for t in c.transactions where t.ownershipType == .purchased && imported.contains(t.id) {
        if let w = t.webOrderLineItemID { out[w] = (c.id, t.id, group(t.productID)) }
      }
    }
    return out
  }

  private func group(_ product: ProductID) -> SubscriptionGroupID? {
    configuration.product(product)?.subscription?.groupID
  }

  /// The customer who bought a member's shared chain: a family member's copy of a subscription
  /// period has the web order line item id of the purchaser's own transaction for it, in the
  /// same group.
  func purchaser(
    of chain: [ImportedItems.Item], member: CustomerID, in purchases: [UInt64: ImportedPurchase]
  ) -> CustomerID? {
    for t in chain {
      if let w = t.fields.purchase.webOrderLineItemID, let p = purchases[w], p.customer != member,
        p.group == group(t.fields.purchase.productID)
      {
        return p.customer
      }
    }
    return nil
  }

  /// Adds a stand-in purchaser's purchases, so that another member's copies find it too.
  func addPurchases(of name: CustomerID, state: StoreState, to purchases: inout [UInt64: ImportedPurchase]) {
    guard let c = state.customers.last(where: { $0.id == name }) else { return }
    for t in c.transactions {
      if let w = t.webOrderLineItemID, purchases[w] == nil { purchases[w] = (name, t.id, group(t.productID)) }
    }
  }

  /// Ties a member's shared chain to its purchaser's purchases, both in one family.
  func share(
    _ chain: [ImportedItems.Item], member: CustomerID, from owner: CustomerID,
    purchases: [UInt64: ImportedPurchase], state: inout StoreState
  ) {
    guard let mi = state.customers.firstIndex(where: { $0.id == member }),
      let oi = state.customers.firstIndex(where: { $0.id == owner })
    else { return }
    let family = state.customers[oi].familyID ?? state.customers[mi].familyID ?? "family-\(owner.rawValue)"
    // A member already in another family brings it along: one family.
    if let old = state.customers[mi].familyID, old != family {
      for i in state.customers.indices where state.customers[i].familyID == old { state.customers[i].familyID = family }
    }
    state.customers[oi].familyID = family
    state.customers[mi].familyID = family
    let original = chain[0].fields.purchase.originalID
    for j in state.customers[mi].transactions.indices where state.customers[mi].transactions[j].originalID == original {
      state.customers[mi].transactions[j].sharedFrom = owner
      if let w = state.customers[mi].transactions[j].webOrderLineItemID, let p = purchases[w], p.customer == owner {
        state.customers[mi].transactions[j].sharedTransactionID = p.id
      }
    }
  }
}

extension CustomerID {
  /// The prefix of the name of an imported family-shared subscription's stand-in purchaser.
  package static let importedPurchaserPrefix = "family-purchaser-"

  /// Whether this is the stand-in purchaser of an imported family-shared subscription (its data
  /// is rebuilt from the member's; `import --scenario` leaves it out).
  package var isImportedPurchaser: Bool { rawValue.hasPrefix(Self.importedPurchaserPrefix) }
}
