import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

/// How each refusal of the store maps onto the exit-code contract (§3 of the product spec):
/// a command line naming something that does not exist, or a value that does not fit what it
/// names, is a usage error (64); what the store answered about an existing thing (the state
/// refuses it, the purchase did not go through) is 1.
extension StoreError {
  var exitCode: ExitCode {
    switch self {
    case .productNotFound, .transactionNotFound, .customerNotFound, .noRefundRequest, .invalidProductType,
      .invalidPrice, .invalidRefundPercentage:
      return .usage
    case .noPendingRequest(let id):
      return id == nil ? .failure : .usage
    case .noSubscriptionFound, .subscriptionNotActive, .noIssueToResolve, .alreadyRefunded, .cannotRefundFamilyShared,
      .clockCannotMoveBackward, .purchaseDateInFuture, .customerExists, .noPriceIncreasePending,
      .duplicateRefundRequest,
      .notRefunded, .purchaseNotCompleted:
      return .failure
    }
  }
}

extension CLIError {
  /// The CLI form of a store refusal, with the exit code the contract gives it.
  init(_ error: StoreError) {
    self.init(code: error.exitCode, message: error.description)
  }
}

extension ExitCode {
  /// The stable name of the code in JSON error objects (`{"error", "code", "exitCode"}`).
  var name: String {
    switch self {
    case .success: return "ok"
    case .failure: return "refused"
    case .usage: return "usage"
    case .dataError: return "badData"
    case .noInput: return "noInput"
    case .cannotCreate: return "cannotCreate"
    case .ioError: return "ioError"
    case .permissionDenied: return "permissionDenied"
    }
  }

  /// One line for the README and `--help`: every code and what it means.
  static let table: [(ExitCode, String)] = [
    (.success, "success"),
    (.failure, "the store answered no (failed, cancelled, ineligible, refused by the state); a scenario failed"),
    (.usage, "usage: unknown command, option, product, transaction, request, customer or setting; bad value"),
    (.dataError, "bad data: unreadable configuration, scenario or session file; a scenario with errors"),
    (.noInput, "a named input file or the session does not exist"),
    (.cannotCreate, "a file cannot be created"),
    (.ioError, "input/output error: disk full, closed output"),
    (.permissionDenied, "permission denied"),
  ]
}
