import StoreSim
import StoreSimSession

/// The one place a refusal becomes what the command line reports (issue 44, item 6): `CLI.run`
/// maps whatever a command throws through `CLIError(reporting:)`, as swift-argument-parser's
/// `MessageInfo(error:)` does, and so do the few front ends that report an error and carry on
/// (the shell's line, `manage`'s reload, a scenario's check). Nothing else catches a
/// `StoreError` or a `SessionStoreError` to convert it (`ErrorFunnelTests` scans the sources).
extension CLIError {
  /// The CLI form of any error, with the exit code the contract (README, "Exit codes") gives it.
  init(reporting error: any Error) {
    switch error {
    case let error as CLIError: self = error
    case let error as StoreError: self.init(code: error.exitCode, message: error.description)
    case let error as SessionStoreError: self.init(code: error.kind.exitCode, message: error.message)
    default: self.init(code: .failure, message: String(describing: error))
    }
  }
}

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

/// The exit code of each kind of session store refusal.
extension SessionStoreError.Kind {
  var exitCode: ExitCode {
    switch self {
    case .badPath: return .usage
    case .badData: return .dataError
    case .noInput: return .noInput
    case .cannotCreate: return .cannotCreate
    case .ioError: return .ioError
    case .permissionDenied: return .permissionDenied
    case .failed: return .failure
    }
  }
}
