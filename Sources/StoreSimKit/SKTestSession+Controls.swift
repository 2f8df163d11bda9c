import Foundation
import StoreSim

// Controls beyond StoreKitTest's: answering the app's refund requests and the versions of the
// app transaction.
extension SKTestSession {
  /// Not in StoreKitTest: the transactions (by identifier) whose refund the app requested with
  /// `beginRefundRequest(in:)` and the App Store has not answered yet, oldest first.
  public var pendingRefundRequests: [UInt] {
    core.read { store in store.refundRequests(customer: core.customer).map { UInt($0.transactionID) } }
  }

  /// Not in StoreKitTest: the App Store grants the refund the app requested for a transaction;
  /// the refunded transaction reaches `Transaction.updates` (as with `refundTransaction`).
  public func approveRefundRequestForTransaction(identifier: UInt) throws {
    let request = try refundRequestID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in try store.approveRefundRequest(request) }
  }

  /// Not in StoreKitTest: the App Store declines the refund the app requested for a transaction
  /// (`REFUND_DECLINED`); the transaction stays as it is.
  public func declineRefundRequestForTransaction(identifier: UInt) throws {
    let request = try refundRequestID(of: identifier)
    try control { (store: inout Store) throws(StoreError) in try store.declineRefundRequest(request) }
  }

  private func refundRequestID(of identifier: UInt) throws -> String {
    let found = core.read { store in
      store.refundRequests(customer: core.customer).first { $0.transactionID == TransactionID(identifier) }?.id
    }
    guard let found else { throw SKTestError(.noTransactionFound, "no refund request for transaction \(identifier)") }
    return found
  }

  /// Not in StoreKitTest: `AppTransaction.appVersion` ("1" unless set).
  public var appVersion: String {
    get { core.appVersions.app }
    set { core.appVersions.app = newValue }
  }

  /// Not in StoreKitTest: `AppTransaction.originalAppVersion`, the version the customer first
  /// downloaded ("1" unless set).
  public var originalAppVersion: String {
    get { core.appVersions.original }
    set { core.appVersions.original = newValue }
  }
}
