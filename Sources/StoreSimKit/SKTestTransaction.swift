import Foundation

/// A record of the test environment, as StoreKitTest's `SKTestTransaction`.
public struct SKTestTransaction: Hashable, Sendable {
  /// `SKPaymentTransactionState`.
  public enum State: Hashable, Sendable { case purchasing, purchased, failed, restored, deferred }

  public let identifier: UInt
  public let originalTransactionIdentifier: UInt
  public let productIdentifier: String
  public let state: State
  public let purchaseDate: Date
  public let expirationDate: Date?
  public let cancelDate: Date?
  public let autoRenewingEnabled: Bool
  public let hasPurchaseIssue: Bool
  public let isPendingPriceIncreaseConsent: Bool
  public let pendingAskToBuyConfirmation: Bool
}
