/// Where a customer is in the state (`state.customers`), typed so that it can never be taken
/// for a subscription's or a transaction's position, or for "no customer" (a store-wide event
/// has no customer handle at all: `nil`). Valid while customers are only appended, which is all
/// the engine ever does to the list.
struct CustomerHandle: Hashable, Sendable {
  let index: Int
}

/// Where a transaction is: its customer, and its position in that customer's transactions.
struct TransactionHandle: Hashable, Sendable {
  let customer: CustomerHandle
  let index: Int
}

extension Array where Element == Customer {
  /// The customer a handle names, read and changed in place.
  subscript(handle: CustomerHandle) -> Customer {
    _read { yield self[handle.index] }
    _modify { yield &self[handle.index] }
  }

  /// A handle for every customer, in order.
  var handles: [CustomerHandle] { indices.map(CustomerHandle.init(index:)) }
}

extension StoreState {
  /// The transaction a handle names, read and changed in place.
  subscript(handle: TransactionHandle) -> Transaction {
    _read { yield customers[handle.customer].transactions[handle.index] }
    _modify { yield &customers[handle.customer].transactions[handle.index] }
  }
}

extension Array where Element == TransactionIndex {
  /// The index of the customer a handle names (one per customer, in the customers' order).
  subscript(handle: CustomerHandle) -> TransactionIndex {
    _read { yield self[handle.index] }
    _modify { yield &self[handle.index] }
  }
}
