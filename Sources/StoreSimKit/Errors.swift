import Foundation
import StoreSim

/// Errors StoreKit APIs throw, as StoreKit's `StoreKitError`.
public enum StoreKitError: Error, Sendable {
  case unknown
  case userCancelled
  case networkError(URLError)
  case systemError(any Error)
  case notAvailableInStorefront
  case notEntitled
  case unsupported

  /// A simulated error of the `generic` family by case name.
  init(simulated name: String) {
    switch name {
    case "userCancelled": self = .userCancelled
    case "networkError": self = .networkError(URLError(.notConnectedToInternet))
    case "systemError": self = .systemError(SimulatedSystemError())
    case "notAvailableInStorefront": self = .notAvailableInStorefront
    case "notEntitled": self = .notEntitled
    case "unsupported": self = .unsupported
    default: self = .unknown
    }
  }
}

extension StoreKitError: LocalizedError, CustomStringConvertible {
  /// The case name; for `systemError`, the underlying error's own words (such as how to create
  /// a missing session).
  public var description: String {
    switch self {
    case .unknown: return "unknown"
    case .userCancelled: return "userCancelled"
    case .networkError(let error): return "networkError(\(error.code.rawValue))"
    case .systemError(let error): return "\(error)"
    case .notAvailableInStorefront: return "notAvailableInStorefront"
    case .notEntitled: return "notEntitled"
    case .unsupported: return "unsupported"
    }
  }

  public var errorDescription: String? { description }
}

/// The underlying error of a simulated `StoreKitError.systemError`.
public struct SimulatedSystemError: Error, Sendable, Hashable {}

/// Errors of the test controls, as StoreKitTest's `SKTestError`.
public struct SKTestError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: Int, Sendable, Hashable {
    case fileNotFound
    case invalidAction
    case invalidProductIdentifier
    case invalidProductType
    case invalidURL
    case noSubscriptionFound
    case noTransactionFound
    case serviceUnavailable
  }

  public let code: Code
  /// The simulator's one-line explanation.
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "SKTestError.\(code): \(message)" }

  /// Errors are equal when their codes are (the message is for people).
  public static func == (a: SKTestError, b: SKTestError) -> Bool { a.code == b.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension SKTestSession {
  /// The error a test control throws for an engine error.
  static func testError(_ error: StoreError) -> SKTestError {
    let code: SKTestError.Code
    switch error {
    case .productNotFound: code = .invalidProductIdentifier
    case .invalidProductType: code = .invalidProductType
    case .transactionNotFound, .alreadyRefunded, .notRefunded, .cannotRefundFamilyShared: code = .noTransactionFound
    case .noSubscriptionFound, .subscriptionNotActive: code = .noSubscriptionFound
    case .noPendingRequest, .noIssueToResolve, .clockCannotMoveBackward, .purchaseDateInFuture, .customerNotFound,
      .customerExists, .noPriceIncreasePending, .invalidPrice, .duplicateRefundRequest, .noRefundRequest,
      .purchaseNotCompleted, .invalidRefundPercentage:
      code = .invalidAction
    }
    return SKTestError(code, error.description)
  }
}
