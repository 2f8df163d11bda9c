import Foundation

extension Store {
  /// Gives the transaction the next place in the order of changes (see
  /// `Transaction.modificationOrder`): called when it is created and whenever it changes.
  mutating func markModified(_ handle: TransactionHandle) {
    state[handle].modificationOrder = nextModificationOrder()
  }

  /// `markModified` for transaction `ti` of customer `ci`.
  mutating func markModified(_ ci: CustomerHandle, _ ti: Int) {
    markModified(TransactionHandle(customer: ci, index: ti))
  }

  /// Takes the next place in the order of changes.
  mutating func nextModificationOrder() -> UInt64 {
    let next = (state.lastModificationOrder ?? 0) + 1
    state.lastModificationOrder = next
    return next
  }

  /// The last place given in the order of changes (0 before any).
  package var lastModificationOrder: UInt64 { state.lastModificationOrder ?? 0 }
}
