import Foundation

/// An Ask to Buy request or an interrupted purchase awaiting action (an `SKTestTransaction`
/// without a StoreKit 2 transaction yet).
public struct PendingRequest: Sendable, Hashable, Codable, Identifiable {
  /// Why it waits.
  public enum Kind: String, Sendable, Hashable, Codable {
    /// Waiting for a parent's approval (`pendingAskToBuyConfirmation`).
    case askToBuy
    /// Interrupted by a purchase issue (`hasPurchaseIssue`).
    case interrupted
  }

  /// Request id (`SKTestTransaction.identifier`).
  public package(set) var id: String
  /// Why it waits.
  public package(set) var kind: Kind
  /// The customer who asked.
  public package(set) var customer: CustomerID
  /// The product asked for.
  public package(set) var productID: ProductID
  /// The purchase options.
  public package(set) var options: PurchaseOptions
  /// When it was asked.
  public package(set) var date: Date
}

/// Why a customer asked for a refund, as `consumptionRequestReason` (raw values: the wire strings).
public enum ConsumptionRequestReason: String, Sendable, Hashable, Codable, CaseIterable {
  /// The customer didn't mean to buy.
  case unintendedPurchase = "UNINTENDED_PURCHASE"
  /// The purchase was not delivered or did not work.
  case fulfillmentIssue = "FULFILLMENT_ISSUE"
  /// The customer is not satisfied.
  case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE"
  /// A legal reason.
  case legal = "LEGAL"
  /// Another reason.
  case other = "OTHER"
}

/// A refund the customer asked for and the App Store has not answered yet (rule
/// refund-requests-wait-for-an-answer).
public struct RefundRequest: Sendable, Hashable, Codable, Identifiable {
  /// Request id (shares the numbering of Ask to Buy requests).
  public package(set) var id: String
  /// The customer who asked.
  public package(set) var customer: CustomerID
  /// The transaction to refund.
  public package(set) var transactionID: TransactionID
  /// Its product.
  public package(set) var productID: ProductID
  /// The customer's reason.
  public package(set) var reason: ConsumptionRequestReason
  /// When it was asked.
  public package(set) var date: Date
}
