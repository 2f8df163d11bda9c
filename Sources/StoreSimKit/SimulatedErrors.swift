import Foundation
import StoreSim

// MARK: Simulated errors, as StoreKitTest's `FailableStoreKitAPI` and `SKTestFailures`

/// A StoreKit API that `setSimulatedError(_:forAPI:)` can make fail.
public protocol FailableStoreKitAPI: Sendable {
  associatedtype Failure: Sendable
  var engineAPI: StoreKitAPI { get }
  static func simulated(_ failure: Failure) -> SimulatedError
}

/// The errors each failable API accepts.
public enum SKTestFailures {
  public enum LoadProducts: Sendable { case generic(StoreKitError) }
  public enum Purchase: Sendable { case generic(StoreKitError), purchase(Product.PurchaseError) }
  public enum Verification: Sendable { case verification(VerificationResult<Transaction>.VerificationError) }
  public enum AppStoreSync: Sendable { case generic(StoreKitError) }
  public enum SubscriptionStatus: Sendable { case generic(StoreKitError) }
  public enum AppTransaction: Sendable { case generic(StoreKitError) }
  public enum ManageSubscriptions: Sendable { case generic(StoreKitError) }
  public enum RefundRequest: Sendable {
    case generic(StoreKitError), refundRequest(Transaction.RefundRequestError)
  }
  public enum OfferCodeRedeem: Sendable { case generic(StoreKitError) }

  static func generic(_ e: StoreKitError) -> SimulatedError {
    let name: String
    switch e {
    case .unknown: name = "unknown"
    case .userCancelled: name = "userCancelled"
    case .networkError: name = "networkError"
    case .systemError: name = "systemError"
    case .notAvailableInStorefront: name = "notAvailableInStorefront"
    case .notEntitled: name = "notEntitled"
    case .unsupported: name = "unsupported"
    }
    return SimulatedError(family: .generic, name: name)
  }
}

public struct StoreKitLoadProductsAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .loadProducts }
  public static func simulated(_ f: SKTestFailures.LoadProducts) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    }
  }
}

public struct StoreKitPurchaseAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .purchase }
  public static func simulated(_ f: SKTestFailures.Purchase) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    case .purchase(let e): return SimulatedError(family: .purchase, name: String(describing: e))
    }
  }
}

public struct StoreKitVerificationAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .verification }
  public static func simulated(_ f: SKTestFailures.Verification) -> SimulatedError {
    switch f {
    case .verification(let e): return SimulatedError(family: .verification, name: String(describing: e))
    }
  }
}

public struct StoreKitAppStoreSyncAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .appStoreSync }
  public static func simulated(_ f: SKTestFailures.AppStoreSync) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    }
  }
}

public struct StoreKitSubscriptionStatusAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .subscriptionStatus }
  public static func simulated(_ f: SKTestFailures.SubscriptionStatus) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    }
  }
}

extension FailableStoreKitAPI where Self == StoreKitLoadProductsAPI { public static var loadProducts: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitPurchaseAPI { public static var purchase: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitVerificationAPI { public static var verification: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitAppStoreSyncAPI { public static var appStoreSync: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitSubscriptionStatusAPI {
  public static var subscriptionStatus: Self { .init() }
}

public struct StoreKitAppTransactionAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .appTransaction }
  public static func simulated(_ f: SKTestFailures.AppTransaction) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    }
  }
}

public struct StoreKitManageSubscriptionsAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .manageSubscriptions }
  public static func simulated(_ f: SKTestFailures.ManageSubscriptions) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    }
  }
}

public struct StoreKitRefundRequestAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .refundRequest }
  public static func simulated(_ f: SKTestFailures.RefundRequest) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    case .refundRequest(let e): return SimulatedError(family: .refundRequest, name: String(describing: e))
    }
  }
}

public struct StoreKitOfferCodeRedeemAPI: FailableStoreKitAPI {
  public init() {}
  public var engineAPI: StoreKitAPI { .offerCodeRedeem }
  public static func simulated(_ f: SKTestFailures.OfferCodeRedeem) -> SimulatedError {
    switch f {
    case .generic(let e): return SKTestFailures.generic(e)
    }
  }
}

extension FailableStoreKitAPI where Self == StoreKitAppTransactionAPI {
  public static var appTransaction: Self { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitManageSubscriptionsAPI {
  public static var manageSubscriptions: Self { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitRefundRequestAPI {
  public static var refundRequest: Self { .init() }
}
extension FailableStoreKitAPI where Self == StoreKitOfferCodeRedeemAPI {
  public static var offerCodeRedeem: Self { .init() }
}
