import Foundation

/// Why the store refused a command: misuse, never a purchase outcome (except
/// `purchaseNotCompleted`, thrown by `buyProduct` only). The state is unchanged.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The product is not in the configuration.
  case productNotFound(ProductID, suggestion: ProductID?)
  /// The product exists but is of the wrong type for the command.
  case invalidProductType(ProductID, expected: String)
  /// No transaction has this id (for this customer).
  case transactionNotFound(TransactionID)
  /// The customer has no subscription in the product's group.
  case noSubscriptionFound(ProductID)
  /// The subscription has ended, so the command does not apply.
  case subscriptionNotActive(ProductID)
  /// No pending Ask to Buy request (with this id).
  case noPendingRequest(String?)
  /// Nothing to resolve: no interrupted purchase and no billing issue for the product.
  case noIssueToResolve(ProductID)
  /// The transaction was already refunded or revoked.
  case alreadyRefunded(TransactionID)
  /// Family-shared transactions are revoked through the purchaser, not refunded.
  case cannotRefundFamilyShared(TransactionID)
  /// The clock only moves forward.
  case clockCannotMoveBackward(now: Date, requested: Date)
  /// A back-dated purchase cannot be in the future.
  case purchaseDateInFuture(Date)
  /// No customer has this name.
  case customerNotFound(CustomerID)
  /// The customer already exists.
  case customerExists(CustomerID)
  /// No price increase is pending to accept or decline.
  case noPriceIncreasePending(ProductID)
  /// A price must be more than zero.
  case invalidPrice(Decimal)
  /// The transaction already has a refund request waiting for an answer.
  case duplicateRefundRequest(TransactionID)
  /// No refund request has this id.
  case noRefundRequest(String)
  /// Only a refunded transaction's refund can be reversed.
  case notRefunded(TransactionID)
  /// A prorated refund's share (milliunits of a percent) must be more than 0 and less than 100000.
  case invalidRefundPercentage(UInt64)
  /// `buyProduct` got no transaction: the purchase is pending, was cancelled or failed (unlike
  /// the other cases, the store holds what that outcome left, e.g. a pending request).
  case purchaseNotCompleted(ProductID, PurchaseResult)

  /// One lowercase line naming the thing involved.
  public var description: String {
    switch self {
    case .productNotFound(let id, let s):
      return "product '\(id)' is not in the configuration" + (s.map { "; did you mean '\($0)'?" } ?? "")
    case .invalidProductType(let id, let expected): return "product '\(id)' is not \(expected)"
    case .transactionNotFound(let id): return "no transaction with id \(id)"
    case .noSubscriptionFound(let id): return "no subscription to '\(id)' or its group"
    case .subscriptionNotActive(let id): return "the subscription to '\(id)' has ended"
    case .noPendingRequest(let id):
      return id.map { "no pending request with id '\($0)'" } ?? "no pending Ask to Buy request"
    case .noIssueToResolve(let id):
      return "nothing to resolve for '\(id)': no interrupted purchase and no billing issue"
    case .alreadyRefunded(let id): return "transaction \(id) was already refunded or revoked"
    case .cannotRefundFamilyShared(let id):
      return "transaction \(id) is family shared; refund the purchaser's transaction instead"
    case .clockCannotMoveBackward(let now, let requested):
      return "the clock cannot move backward from \(ISO8601.string(now)) to \(ISO8601.string(requested))"
    case .purchaseDateInFuture(let date): return "purchase date \(ISO8601.string(date)) is in the future"
    case .customerNotFound(let name): return "no customer named '\(name)'"
    case .customerExists(let name): return "customer '\(name)' already exists"
    case .noPriceIncreasePending(let id): return "no price increase is pending for '\(id)'"
    case .invalidPrice(let p): return "price \(p) must be more than zero"
    case .duplicateRefundRequest(let id): return "transaction \(id) already has a refund request waiting for an answer"
    case .noRefundRequest(let id): return "no refund request with id '\(id)'"
    case .notRefunded(let id): return "transaction \(id) was not refunded, so there is no refund to reverse"
    case .invalidRefundPercentage(let p):
      return "refund percentage \(p) milliunits is outside 1...99999 (a whole refund has no percentage)"
    case .purchaseNotCompleted(let id, let result):
      if case .failed(let error) = result { return "the purchase of '\(id)' failed: \(error)" }
      return "the purchase of '\(id)' did not complete: \(result.name)"
    }
  }
}
