// The proof's app code: a store class written the way Apple's "Implementing a store in your app
// using the StoreKit API" sample writes its `Store` (our own code, not a copy), compiled here
// with one change, the import: `import StoreKit` in the app, `import StoreSimKit` in its tests.
//
// Products are split by type and sorted by price; the `Transaction.updates` listener starts in
// `Task.detached` from `init`; purchases are verified and finished; entitlements come from
// `Transaction.currentEntitlements`; the subscription status is the highest service level over
// the group's statuses; the non-renewing subscription lasts a year by the app's own rule,
// checked against `Date()`. `ObservableObject` and `@Published` are left out: Combine is not on
// Linux, and nothing here depends on them.
import Foundation
import StoreSimKit

enum DemoStoreError: Error {
  case failedVerification
}

/// The navigation service levels of the subscription group, lowest first.
enum DemoServiceLevel: Int, Comparable {
  case none = 0
  case standard = 1
  case premium = 2
  case pro = 3

  static func < (lhs: DemoServiceLevel, rhs: DemoServiceLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

@MainActor
final class DemoStore {
  private(set) var cars: [Product] = []
  private(set) var fuel: [Product] = []
  private(set) var subscriptions: [Product] = []
  private(set) var nonRenewables: [Product] = []

  private(set) var purchasedCars: [Product] = []
  private(set) var purchasedNonRenewableSubscriptions: [Product] = []
  private(set) var purchasedSubscriptions: [Product] = []
  private(set) var subscriptionGroupStatus: Product.SubscriptionInfo.RenewalState?

  var updateListenerTask: Task<Void, Error>?

  /// The products the app sells, with the emoji it shows for each.
  static let productIDToEmoji: [String: String] = [
    "consumable.fuel.octane87": "⛽️", "consumable.fuel.octane89": "⛽️", "consumable.fuel.octane91": "⛽️",
    "nonconsumable.car": "🚙", "nonconsumable.utilityvehicle": "🚐", "nonconsumable.racecar": "🏎️",
    "subscription.standard": "📣", "subscription.premium": "🏅", "subscription.pro": "💎",
    "nonRenewing.standard": "🗺️",
  ]

  init() {
    // Listen first, so that no transaction is missed.
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
      // Transactions that don't come from a direct call to `purchase()`.
      for await result in Transaction.updates {
        do {
          let transaction = try self.checkVerified(result)
          await self.updateCustomerProductStatus()
          await transaction.finish()
        } catch {
          // A transaction that fails verification is not delivered to the customer.
        }
      }
    }
  }

  func requestProducts() async {
    do {
      let storeProducts = try await Product.products(for: Self.productIDToEmoji.keys)
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
      // The store shows its failure state.
    }
  }

  func purchase(_ product: Product) async throws -> Transaction? {
    let result = try await product.purchase()
    switch result {
    case .success(let verification):
      let transaction = try checkVerified(verification)
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
    case .unverified: throw DemoStoreError.failedVerification
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
          // A non-renewing subscription has no expiration date: this app sells a year.
          if let nonRenewable = nonRenewables.first(where: { $0.id == transaction.productID }),
            transaction.productID == "nonRenewing.standard"
          {
            let currentDate = Date()
            let expirationDate = Calendar(identifier: .gregorian).date(
              byAdding: DateComponents(year: 1), to: transaction.purchaseDate)!
            if currentDate < expirationDate { purchasedNonRenewableSubscriptions.append(nonRenewable) }
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

    // The group's statuses: the customer's own and any shared by their family; the highest
    // service level wins.
    subscriptionGroupStatus =
      try? await subscriptions.first?.subscription?.status.max { lhs, rhs in
        serviceLevel(of: lhs) < serviceLevel(of: rhs)
      }?.state
  }

  /// The service level a status gives while it is active.
  func serviceLevel(of status: Product.SubscriptionInfo.Status) -> DemoServiceLevel {
    guard status.state == .subscribed || status.state == .inGracePeriod,
      let renewalInfo = try? checkVerified(status.renewalInfo)
    else { return .none }
    return level(of: renewalInfo.currentProductID)
  }

  /// The service level a subscription product gives.
  func level(of productID: String) -> DemoServiceLevel {
    switch productID {
    case "subscription.standard": return .standard
    case "subscription.premium": return .premium
    case "subscription.pro": return .pro
    default: return .none
    }
  }

  /// The level the customer has now, from the subscriptions they are entitled to.
  var serviceLevel: DemoServiceLevel {
    purchasedSubscriptions.map { level(of: $0.id) }.max() ?? .none
  }

  func emoji(for productID: String) -> String { Self.productIDToEmoji[productID] ?? "" }

  func sortByPrice(_ products: [Product]) -> [Product] {
    products.sorted { $0.price < $1.price }
  }
}
