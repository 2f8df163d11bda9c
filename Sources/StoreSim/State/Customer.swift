import Foundation

/// One Apple Account of the session.
public struct Customer: Sendable, Hashable, Codable, Identifiable {
  /// The customer's name (`--customer`).
  public package(set) var id: CustomerID
  /// Every transaction of this customer, in creation order (deleted ones removed).
  public package(set) var transactions: [Transaction]
  /// Own subscriptions, one per group ever subscribed.
  public package(set) var subscriptions: [SubscriptionState]
  /// Groups whose introductory offer this customer has used.
  public package(set) var introductoryOfferUsedGroups: Set<SubscriptionGroupID>
  /// The family this customer belongs to, if any.
  public package(set) var familyID: String?
  /// The app transaction id of this customer.
  public package(set) var appTransactionID: String

  enum CodingKeys: String, CodingKey {
    case id = "name"
    case transactions, subscriptions, introductoryOfferUsedGroups, familyID, appTransactionID
  }

  /// The own subscription state for a group.
  public func subscription(_ group: SubscriptionGroupID) -> SubscriptionState? {
    subscriptions.first { $0.groupID == group }
  }

  /// The transaction with an id. Transactions are stored in the order their ids were given,
  /// so it is found by halving (then, for a history stored out of order, by a walk).
  public func transaction(_ id: TransactionID) -> Transaction? {
    var low = 0
    var high = transactions.count
    while low < high {
      let mid = (low + high) / 2
      if transactions[mid].id < id { low = mid + 1 } else { high = mid }
    }
    if low < transactions.count, transactions[low].id == id {
      var last = low
      while last + 1 < transactions.count, transactions[last + 1].id == id { last += 1 }
      return transactions[last]
    }
    return transactions.last { $0.id == id }
  }

  /// Every stored field, in declaration order (for the session codec).
  package init(
    id: CustomerID, transactions: [Transaction], subscriptions: [SubscriptionState],
    introductoryOfferUsedGroups: Set<SubscriptionGroupID>, familyID: String?, appTransactionID: String
  ) {
    self.id = id
    self.transactions = transactions
    self.subscriptions = subscriptions
    self.introductoryOfferUsedGroups = introductoryOfferUsedGroups
    self.familyID = familyID
    self.appTransactionID = appTransactionID
  }
}
