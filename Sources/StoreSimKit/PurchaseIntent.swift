import Foundation
import StoreSim

/// A purchase the customer started on the App Store (a promoted In-App Purchase), as StoreKit's
/// `PurchaseIntent`: the app gets it on `PurchaseIntent.intents` and buys the product when it
/// is ready. The test makes one with `SKTestSession.simulatePromotedPurchase(productIdentifier:)`.
public struct PurchaseIntent: Sendable, Hashable, Identifiable {
  public let product: Product
  /// The subscription offer the customer chose on the App Store; nil here (the simulated
  /// promotion names a product only).
  public let offer: Product.SubscriptionOffer?

  public var id: Product.ID { product.id }

  /// The purchase intents of the session in force when the sequence is made. One made while no
  /// sequence was read is kept for the next one (the app reads it at launch, after the fact;
  /// rule purchase-intents-deliver-promoted-purchases).
  public static var intents: PurchaseIntents {
    PurchaseIntents(live: ListenerHandle.open("PurchaseIntent.intents") { core, _ in core.addIntentListener() })
  }

  /// An asynchronous sequence of purchase intents.
  public struct PurchaseIntents: AsyncSequence, Sendable {
    public typealias Element = PurchaseIntent
    let live: ListenerHandle<PurchaseIntent>?

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(cursor: LiveCursor(live)) }

    public struct AsyncIterator: AsyncIteratorProtocol {
      var cursor: LiveCursor<PurchaseIntent>
      public mutating func next() async -> PurchaseIntent? { await cursor.next() }
    }
  }
}

extension SessionCore {
  /// Registers a `PurchaseIntent.intents` listener; it starts with the intents no listener took.
  func addIntentListener() -> Listener<PurchaseIntent> {
    state.withLock { s in
      let backlog = s.intentBacklog
      s.intentBacklog = []
      return s.add(ListenerQueue<PurchaseIntent>(items: backlog))
    }
  }

  /// A promoted purchase of `productID`, for `PurchaseIntent.intents` listeners.
  func purchaseIntent(_ productID: String) {
    let wakeups = state.withLock { s -> [() -> Void] in
      guard let p = s.store.configuration.products.first(where: { $0.id == productID }) else { return [] }
      let intent = PurchaseIntent(product: Product(p, store: s.store, core: self), offer: nil)
      var wakeups: [() -> Void] = []
      var taken = false
      for i in s.listeners.indices where s.listeners[i].isTaking {
        if s.listeners[i].withQueue(of: PurchaseIntent.self, { $0.enqueue([intent], into: &wakeups) }) != nil {
          taken = true
        }
      }
      if !taken { s.intentBacklog.append(intent) }
      return wakeups
    }
    for wake in wakeups { wake() }
  }
}
