import Foundation
import StoreSim

extension Transaction {
  /// How the customer left the refund request sheet.
  public enum RefundRequestStatus: Sendable, Hashable {
    /// The request was sent; the App Store answers it later (`SKTestSession`'s
    /// `approveRefundRequestForTransaction` / `declineRefundRequestForTransaction`).
    case success
    case userCancelled
  }

  /// Errors of a refund request.
  public enum RefundRequestError: Error, Sendable, Hashable {
    case duplicateRequest
    case failed

    init(simulated name: String) { self = name == "duplicateRequest" ? .duplicateRequest : .failed }
  }

  /// The refund request sheet for this transaction: the customer sends the request (`.success`)
  /// and it waits for the test's answer. Throws a simulated `.refundRequest` error;
  /// `.duplicateRequest` while a request for it is open. The scene is not used.
  public func beginRefundRequest<Scene>(in scene: Scene) async throws -> RefundRequestStatus {
    try Self.requestRefund(id, core: core)
  }

  /// The refund request sheet for a transaction of the session in reach.
  public static func beginRefundRequest<Scene>(
    for transactionID: UInt64, in scene: Scene
  ) async throws -> RefundRequestStatus {
    try requestRefund(transactionID, core: SessionResolver.require("Transaction.beginRefundRequest(for:in:)"))
  }

  static func requestRefund(_ id: UInt64, core: SessionCore) throws -> RefundRequestStatus {
    if let error = core.read({ $0.settings.simulatedError(forAPI: .refundRequest) }) {
      if error.family == .refundRequest { throw RefundRequestError(simulated: error.name) }
      throw StoreKitError(simulated: error.name)
    }
    do {
      _ = try core.mutate { (store: inout Store) throws(StoreError) in
        try store.requestRefund(TransactionID(id), customer: core.customer)
      }
    } catch {
      if case .duplicateRefundRequest = error { throw RefundRequestError.duplicateRequest }
      throw RefundRequestError.failed
    }
    return .success
  }
}
