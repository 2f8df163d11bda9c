import StoreKit

/// A StoreKit 2 helper in the shape apps and open-source wrappers give theirs: one shared
/// instance for the app's life, a product cache filled once and kept, purchases with options
/// (account token, quantity, custom values), promoted purchases taken from
/// `PurchaseIntent.intents`, and prices formatted with the product's own style and locale.
/// Types are named `StoreKit.Product` and `StoreKit.Transaction`, as code that has its own
/// `Product` type does.
public final class StoreService {
  public static let shared = StoreService()

  /// Products by identifier, fetched once and kept for the life of the process.
  private var cache: [String: StoreKit.Product] = [:]
  /// How many times the App Store was asked for products.
  public private(set) var fetches = 0
  /// Products bought through `PurchaseIntent.intents`, in order.
  public private(set) var promoted: [String] = []
  /// Transactions the updates listener finished, in order.
  public var finishedByListener: [String] { lock.withLock { finished } }
  private var finished: [String] = []
  private let lock = NSLock()
  private var updatesTask: Task<Void, Never>?

  public init() {}

  /// The products, from the cache when every one is in it.
  public func products(_ identifiers: [String]) async throws -> [StoreKit.Product] {
    let missing = identifiers.filter { cache[$0] == nil }
    if !missing.isEmpty {
      fetches += 1
      for product in try await StoreKit.Product.products(for: missing) { cache[product.id] = product }
    }
    return identifiers.compactMap { cache[$0] }
  }

  /// Buys a product; the verified transaction, finished, or nil when the customer cancelled or
  /// the purchase waits for approval.
  @discardableResult
  public func purchase(
    _ product: StoreKit.Product, quantity: Int = 1, account: UUID? = nil
  ) async throws -> StoreKit.Transaction? {
    var options: Set<StoreKit.Product.PurchaseOption> = [
      .quantity(quantity), .custom(key: "source", value: "paywall"), .custom(key: "firstLaunch", value: true),
      .custom(key: "score", value: 0.5), .custom(key: "blob", value: Data([1, 2])),
      .custom(key: "session", value: UUID()),
    ]
    if let account { options.insert(.appAccountToken(account)) }
    switch try await product.purchase(options: options) {
    case .success(let verification):
      guard case .verified(let transaction) = verification else { return nil }
      await transaction.finish()
      return transaction
    case .userCancelled, .pending:
      return nil
    @unknown default:
      return nil
    }
  }

  /// Identifiers of what the customer owns now.
  public func entitlements() async -> Set<String> {
    var owned: Set<String> = []
    for await result in StoreKit.Transaction.currentEntitlements {
      if case .verified(let transaction) = result { owned.insert(transaction.productID) }
    }
    return owned
  }

  /// How many transactions wait to be finished.
  public func unfinishedCount() async -> Int {
    var count = 0
    for await _ in StoreKit.Transaction.unfinished { count += 1 }
    return count
  }

  /// The price as the product's own style writes it.
  public func formattedPrice(_ product: StoreKit.Product, times count: Int = 1) -> String {
    (product.price * Decimal(count)).formatted(product.priceFormatStyle)
  }

  /// The currency code of the locale the product's prices are formatted in.
  public func currencyCode(_ product: StoreKit.Product) -> String? {
    product.priceFormatStyle.locale.currency?.identifier
  }

  /// Buys every promoted purchase the App Store hands the app, until the task is cancelled.
  public func handlePurchaseIntents(onPurchase: @escaping (String) -> Void = { _ in }) -> Task<Void, Never> {
    Task {
      for await intent in PurchaseIntent.intents {
        if (try? await purchase(intent.product)) != nil {
          promoted.append(intent.id)
          onPurchase(intent.id)
        }
      }
    }
  }

  /// Starts the app's `Transaction.updates` listener, once for the life of the process (as at
  /// launch): purchases made outside the app, renewals and approvals are finished as they come.
  public func listenForTransactions() {
    lock.lock()
    defer { lock.unlock() }
    guard updatesTask == nil else { return }
    updatesTask = Task.detached { [weak self] in
      for await result in StoreKit.Transaction.updates {
        guard case .verified(let transaction) = result else { continue }
        await transaction.finish()
        self?.lock.withLock { self?.finished.append(transaction.productID) }
      }
    }
  }

  /// Words for an error the app shows.
  public static func message(for error: Error) -> String {
    (error as? LocalizedError)?.errorDescription ?? "\(error)"
  }
}
