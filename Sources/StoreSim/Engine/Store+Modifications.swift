import Foundation

extension Store {
  /// Gives the transaction at (`ci`, `ti`) the next place in the order of changes (see
  /// `Transaction.modificationOrder`): called when it is created and whenever it changes.
  mutating func markModified(_ ci: CustomerHandle, _ ti: Int) {
    state.customers[ci].transactions[ti].modificationOrder = nextModificationOrder()
  }

  /// `markModified` for the transaction a handle names.
  mutating func markModified(_ handle: TransactionHandle) { markModified(handle.customer, handle.index) }

  /// Takes the next place in the order of changes.
  mutating func nextModificationOrder() -> UInt64 {
    let next = (state.lastModificationOrder ?? 0) + 1
    state.lastModificationOrder = next
    return next
  }

  /// `markModified` for the last transaction of customer `ci` with this id.
  mutating func markModified(_ ci: CustomerHandle, id: TransactionID) {
    if let ti = state.customers[ci].transactions.lastIndex(where: { $0.id == id }) { markModified(ci, ti) }
  }

  /// The last place given in the order of changes (0 before any).
  package var lastModificationOrder: UInt64 { state.lastModificationOrder ?? 0 }
}
