// An app-side store class written the way Apple's "Implementing a store in your app using the
// StoreKit API" sample writes its `Store` (our own code, not a copy): products split by type and
// sorted by price, a `Transaction.updates` listener started at init, purchases with
// verification, entitlements refreshed from `currentEntitlements`, the highest service level
// over the group's statuses, and the app's own one-year rule for the non-renewing subscription.
//
// In an app the import would be the `#if canImport(StoreKit)` switch of the README; this file
// always uses StoreSimKit so that it runs the same on macOS and Linux.
import Foundation
import StoreSimKit

typealias RenewalInfo = Product.SubscriptionInfo.RenewalInfo
typealias RenewalState = Product.SubscriptionInfo.RenewalState

enum SampleStoreError: Error {
  case failedVerification
}

/// The subscription service levels of the group; a lower group level is a higher service.
enum ServiceEntitlement: Int, Comparable {
  case notEntitled = 0
  case pro = 1
  case premium = 2
  case standard = 3

  init?(for product: Product) {
    guard let subscription = product.subscription else { return nil }
    self.init(rawValue: subscription.groupLevel)
  }

  static func < (lhs: ServiceEntitlement, rhs: ServiceEntitlement) -> Bool {
    // Level 1 is the top service; `notEntitled` is below everything.
    func rank(_ e: ServiceEntitlement) -> Int { e == .notEntitled ? Int.max : e.rawValue }
    return rank(lhs) > rank(rhs)
  }
}

@MainActor
final class SampleStore {
  private(set) var cars: [Product] = []
  private(set) var fuel: [Product] = []
  private(set) var subscriptions: [Product] = []
  private(set) var nonRenewables: [Product] = []

  private(set) var purchasedCars: [Product] = []
  private(set) var purchasedNonRenewableSubscriptions: [Product] = []
  private(set) var purchasedSubscriptions: [Product] = []
  private(set) var subscriptionGroupStatus: Product.SubscriptionInfo.Status?
  /// Fuel bought, by product id (consumables are counted by the app, not by StoreKit).
  private(set) var fuelCount: [String: Int] = [:]
  /// How many transactions the listener handled (for tests to see it worked).
  private(set) var updatesHandled = 0

  private var updateListenerTask: Task<Void, Error>?
  /// The initial load, so callers can wait for it.
  private(set) var initialLoad: Task<Void, Never>?

  private let productIDs: [String]
  /// The app's clock for its own rules: `Date.init` in the app, the session's clock in tests.
  private let now: @Sendable () -> Date

  init(productIDs: [String] = SampleStore.defaultProductIDs, now: @escaping @Sendable () -> Date = { Date() }) {
    self.productIDs = productIDs
    self.now = now
    // Start the listener first so that no transaction is missed.
    updateListenerTask = listenForTransactions()
    initialLoad = Task {
      await requestProducts()
      await updateCustomerProductStatus()
    }
  }

  deinit {
    updateListenerTask?.cancel()
  }

  /// Ends the listener (its task holds the store, so dropping the store does not end it).
  func stopListening() {
    updateListenerTask?.cancel()
  }

  static let defaultProductIDs = [
    "nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar",
    "consumable.fuel.octane87", "consumable.fuel.octane89", "consumable.fuel.octane91",
    "subscription.standard", "subscription.premium", "subscription.pro", "nonRenewing.standard",
  ]

  func listenForTransactions() -> Task<Void, Error> {
    // As Apple's sample writes it: `Transaction.updates` read inside the detached task.
    return Task.detached {
      // Transactions that don't come from a direct call to `purchase()`.
      for await result in Transaction.updates {
        do {
          let transaction = try self.checkVerified(result)
          await self.handle(transaction)
          await self.updateCustomerProductStatus()
          await transaction.finish()
          await self.noteHandled()
        } catch {
          // A transaction that failed verification is not delivered to the customer.
        }
      }
    }
  }

  private func noteHandled() { updatesHandled += 1 }

  /// Consumables are not in `currentEntitlements`: count them when they arrive.
  private func handle(_ transaction: Transaction) {
    if transaction.productType == .consumable, transaction.revocationDate == nil {
      fuelCount[transaction.productID, default: 0] += transaction.purchasedQuantity
    }
  }

  func requestProducts() async {
    do {
      let storeProducts = try await Product.products(for: productIDs)
      var newCars: [Product] = []
      var newSubscriptions: [Product] = []
      var newNonRenewables: [Product] = []
      var newFuel: [Product] = []
      for product in storeProducts {
        switch product.type {
        case .consumable: newFuel.append(product)
        case .nonConsumable: newCars.append(product)
        case .autoRenewable: newSubscriptions.append(product)
        case .nonRenewable: newNonRenewables.append(product)
        default: break
        }
      }
      cars = sortByPrice(newCars)
      subscriptions = sortByPrice(newSubscriptions)
      nonRenewables = sortByPrice(newNonRenewables)
      fuel = sortByPrice(newFuel)
    } catch {
      // Products stay empty; the app shows its failure state.
    }
  }

  func purchase(_ product: Product, options: Set<Product.PurchaseOption> = []) async throws -> Transaction? {
    let result = try await product.purchase(options: options)
    switch result {
    case .success(let verification):
      let transaction = try checkVerified(verification)
      handle(transaction)
      await updateCustomerProductStatus()
      await transaction.finish()
      return transaction
    case .userCancelled, .pending:
      return nil
    }
  }

  func isPurchased(_ product: Product) async throws -> Bool {
    switch product.type {
    case .nonRenewable: return purchasedNonRenewableSubscriptions.contains(product)
    case .nonConsumable: return purchasedCars.contains(product)
    case .autoRenewable: return purchasedSubscriptions.contains(product)
    default: return false
    }
  }

  nonisolated func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
    switch result {
    case .unverified: throw SampleStoreError.failedVerification
    case .verified(let safe): return safe
    }
  }

  func updateCustomerProductStatus() async {
    var purchasedCars: [Product] = []
    var purchasedSubscriptions: [Product] = []
    var purchasedNonRenewableSubscriptions: [Product] = []

    for await result in Transaction.currentEntitlements {
      do {
        let transaction = try checkVerified(result)
        switch transaction.productType {
        case .nonConsumable:
          if let car = cars.first(where: { $0.id == transaction.productID }) { purchasedCars.append(car) }
        case .nonRenewable:
          // Non-renewing subscriptions have no expiration date: the app decides. This one lasts
          // a year from its purchase.
          if let nonRenewable = nonRenewables.first(where: { $0.id == transaction.productID }),
            transaction.productID == "nonRenewing.standard"
          {
            let expirationDate = Calendar(identifier: .gregorian).date(
              byAdding: DateComponents(year: 1), to: transaction.purchaseDate)!
            if now() < expirationDate { purchasedNonRenewableSubscriptions.append(nonRenewable) }
          }
        case .autoRenewable:
          if let subscription = subscriptions.first(where: { $0.id == transaction.productID }) {
            purchasedSubscriptions.append(subscription)
          }
        default:
          break
        }
      } catch {
        // Unverified entitlements are ignored.
      }
    }

    self.purchasedCars = purchasedCars
    self.purchasedNonRenewableSubscriptions = purchasedNonRenewableSubscriptions
    self.purchasedSubscriptions = purchasedSubscriptions

    // The highest service level over the group's statuses (a customer can hold several through
    // Family Sharing).
    let statuses = (try? await subscriptions.first?.subscription?.status) ?? []
    subscriptionGroupStatus =
      statuses
      .filter { $0.state == .subscribed || $0.state == .inGracePeriod }
      .max { serviceLevel(of: $0) < serviceLevel(of: $1) }
      ?? statuses.first
  }

  /// The service level a status gives, from its transaction's product.
  func serviceLevel(of status: Product.SubscriptionInfo.Status) -> ServiceEntitlement {
    guard let transaction = try? checkVerified(status.transaction),
      let product = subscriptions.first(where: { $0.id == transaction.productID })
    else { return .notEntitled }
    return ServiceEntitlement(for: product) ?? .notEntitled
  }

  /// The service the customer gets now.
  var serviceEntitlement: ServiceEntitlement {
    guard let status = subscriptionGroupStatus, status.state == .subscribed || status.state == .inGracePeriod else {
      return .notEntitled
    }
    return serviceLevel(of: status)
  }

  func sortByPrice(_ products: [Product]) -> [Product] {
    products.sorted { $0.price < $1.price }
  }
}
