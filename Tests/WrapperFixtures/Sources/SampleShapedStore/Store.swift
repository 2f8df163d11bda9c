import StoreKit

// An app's store written in the pattern of Apple's sample "Implementing a store in your app
// using the StoreKit API" (our own code, not a copy): a plain class made once per app launch,
// whose `Transaction.updates` listener is started in `init` in `Task.detached` and is never
// cancelled while the app runs (the task holds the store), products requested in a `Task {}`
// in `init`, and what the customer owns read again from `Transaction.currentEntitlements` each
// time a transaction arrives. It also counts the updates its listener handled, so that tests
// can see the listener did its work.

public enum StoreError: Error {
  case failedVerification
}

/// A transaction the listener handled, as the app saw it.
public struct HandledUpdate: Equatable, Sendable {
  public let productID: String
  public let id: UInt64
  public let originalID: UInt64
  public let isRevoked: Bool

  /// A renewal of an auto-renewable subscription (not its first purchase).
  public var isRenewal: Bool { id != originalID }
}

public final class Store {
  @MainActor public private(set) var cars: [Product] = []
  @MainActor public private(set) var fuel: [Product] = []
  @MainActor public private(set) var subscriptions: [Product] = []
  @MainActor public private(set) var nonRenewables: [Product] = []

  @MainActor public private(set) var purchasedCars: [Product] = []
  @MainActor public private(set) var purchasedSubscriptions: [Product] = []
  @MainActor public private(set) var purchasedNonRenewableSubscriptions: [Product] = []
  @MainActor public private(set) var subscriptionGroupStatus: Product.SubscriptionInfo.RenewalState?

  /// Every transaction the updates listener handled, in order.
  @MainActor public private(set) var handledUpdates: [HandledUpdate] = []
  /// How many transactions the updates listener handled.
  @MainActor public var updatesHandled: Int { handledUpdates.count }

  /// The app's `Transaction.updates` loop, for the life of the store.
  var updateListenerTask: Task<Void, Error>?

  /// Entitlement refreshes started and the newest one applied: a refresh that started before
  /// another one applied its result is older and is dropped (the reads of
  /// `currentEntitlements` of two refreshes can interleave on the main actor).
  @MainActor private var refreshesStarted = 0
  @MainActor private var newestRefreshApplied = 0

  private let productIDs: [String]

  public static let allProductIDs = [
    "nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar",
    "consumable.fuel.octane87", "consumable.fuel.octane89", "consumable.fuel.octane91",
    "subscription.standard", "subscription.premium", "subscription.pro", "nonRenewing.standard",
  ]

  public init(productIDs: [String] = Store.allProductIDs) {
    self.productIDs = productIDs
    // Listen first, so that no transaction made while products load is missed.
    updateListenerTask = listenForTransactions()
    Task {
      await requestProducts()
      await updateCustomerProductStatus()
    }
  }

  deinit {
    updateListenerTask?.cancel()
  }

  func listenForTransactions() -> Task<Void, Error> {
    Task.detached {
      // Transactions that do not come from a call to `purchase(_:)` in the app: purchases made
      // outside the app, approved Ask to Buy requests, refunds, renewals.
      for await result in Transaction.updates {
        do {
          let transaction = try self.checkVerified(result)
          await self.updateCustomerProductStatus()
          await transaction.finish()
          await self.noteHandled(transaction)
        } catch {
          // The app does not deliver content for a transaction that failed verification.
        }
      }
    }
  }

  @MainActor private func noteHandled(_ transaction: Transaction) {
    handledUpdates.append(
      HandledUpdate(
        productID: transaction.productID, id: transaction.id, originalID: transaction.originalID,
        isRevoked: transaction.revocationDate != nil))
  }

  @MainActor public func requestProducts() async {
    do {
      let storeProducts = try await Product.products(for: productIDs)
      var newCars: [Product] = []
      var newFuel: [Product] = []
      var newSubscriptions: [Product] = []
      var newNonRenewables: [Product] = []
      for product in storeProducts {
        switch product.type {
        case .consumable: newFuel.append(product)
        case .nonConsumable: newCars.append(product)
        case .autoRenewable: newSubscriptions.append(product)
        case .nonRenewable: newNonRenewables.append(product)
        default: break
        }
      }
      cars = Self.sortedByPrice(newCars)
      fuel = Self.sortedByPrice(newFuel)
      subscriptions = Self.sortedByPrice(newSubscriptions)
      nonRenewables = Self.sortedByPrice(newNonRenewables)
    } catch {
      // The products stay empty; the app shows that the store is unavailable.
    }
  }

  /// Buys a product in the app; the transaction, or nil when the customer cancelled or the
  /// purchase waits for approval (Ask to Buy: it arrives later, on `Transaction.updates`).
  public func purchase(_ product: Product) async throws -> Transaction? {
    switch try await product.purchase() {
    case .success(let verification):
      let transaction = try checkVerified(verification)
      await updateCustomerProductStatus()
      await transaction.finish()
      return transaction
    case .userCancelled, .pending:
      return nil
    @unknown default:
      return nil
    }
  }

  @MainActor public func isPurchased(_ product: Product) -> Bool {
    switch product.type {
    case .nonConsumable: return purchasedCars.contains(product)
    case .autoRenewable: return purchasedSubscriptions.contains(product)
    case .nonRenewable: return purchasedNonRenewableSubscriptions.contains(product)
    default: return false
    }
  }

  func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
    switch result {
    case .unverified:
      throw StoreError.failedVerification
    case .verified(let safe):
      return safe
    }
  }

  @MainActor public func updateCustomerProductStatus() async {
    refreshesStarted += 1
    let refresh = refreshesStarted
    var ownedCars: [Product] = []
    var ownedSubscriptions: [Product] = []
    var ownedNonRenewables: [Product] = []
    for await result in Transaction.currentEntitlements {
      guard let transaction = try? checkVerified(result) else { continue }
      switch transaction.productType {
      case .nonConsumable:
        if let car = cars.first(where: { $0.id == transaction.productID }) { ownedCars.append(car) }
      case .nonRenewable:
        // The app's own rule: a non-renewing subscription lasts a year from its purchase.
        let end = Calendar(identifier: .gregorian).date(byAdding: .year, value: 1, to: transaction.purchaseDate)
        if let end, Date() < end, let product = nonRenewables.first(where: { $0.id == transaction.productID }) {
          ownedNonRenewables.append(product)
        }
      case .autoRenewable:
        if let product = subscriptions.first(where: { $0.id == transaction.productID }) {
          ownedSubscriptions.append(product)
        }
      default:
        break
      }
    }
    let status = try? await subscriptions.first?.subscription?.status.first?.state
    guard refresh > newestRefreshApplied else { return }
    newestRefreshApplied = refresh
    purchasedCars = ownedCars
    purchasedSubscriptions = ownedSubscriptions
    purchasedNonRenewableSubscriptions = ownedNonRenewables
    subscriptionGroupStatus = status
  }

  static func sortedByPrice(_ products: [Product]) -> [Product] {
    products.sorted { $0.price < $1.price }
  }
}
