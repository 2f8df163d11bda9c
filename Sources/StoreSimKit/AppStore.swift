import Foundation
import StoreSim

/// A storefront, as StoreKit's `Storefront`.
public struct Storefront: Hashable, Sendable {
  /// ISO 3166-1 alpha-3 code.
  public let countryCode: String
  /// The App Store storefront id.
  public let id: String
  /// Not in StoreKit: the storefront's ISO 4217 currency code.
  public let currencyCode: String

  /// The storefront's currency.
  public var currency: Locale.Currency { Locale.Currency(currencyCode) }

  /// The current storefront of the session.
  public static var current: Storefront? {
    get async {
      guard let core = SessionResolver.resolveOrWarn("Storefront.current") else { return nil }
      return core.read { SessionCore.storefront(of: $0) }
    }
  }

  /// The storefront each time the session's `storefront` changes.
  public static var updates: Storefronts {
    Storefronts(live: ListenerHandle.open("Storefront.updates") { core, _ in core.addListener(of: Storefront.self) })
  }

  /// An asynchronous sequence of storefronts.
  public struct Storefronts: AsyncSequence, Sendable {
    public typealias Element = Storefront
    let live: ListenerHandle<Storefront>?

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(cursor: LiveCursor(live)) }

    public struct AsyncIterator: AsyncIteratorProtocol {
      var cursor: LiveCursor<Storefront>
      public mutating func next() async -> Storefront? { await cursor.next() }
    }
  }
}

/// App Store actions and values, as StoreKit's `AppStore`.
public enum AppStore {
  /// The server environment of signed data.
  public struct Environment: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let production = Environment(rawValue: "Production")
    public static let sandbox = Environment(rawValue: "Sandbox")
    public static let xcode = Environment(rawValue: "Xcode")

    init(_ e: StoreEnvironment) { self.init(rawValue: e.rawValue) }
  }

  /// The platform of an app download.
  public struct Platform: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let iOS = Platform(rawValue: "iOS")
    public static let macOS = Platform(rawValue: "macOS")
    public static let tvOS = Platform(rawValue: "tvOS")
    public static let visionOS = Platform(rawValue: "visionOS")
  }

  /// Syncs transactions with the App Store; throws a simulated `.appStoreSync` error.
  public static func sync() async throws {
    let core = try SessionResolver.require("AppStore.sync()")
    if let error = core.simulatedGenericError(.appStoreSync) { throw error }
  }

  /// Whether the customer may pay (`SKTestSession.canMakePayments`, true unless the test says not).
  public static var canMakePayments: Bool { SessionResolver.resolve()?.paymentQueue.paymentsAllowed ?? true }

  /// The device's identifier for `deviceVerification` values (one per session).
  public static var deviceVerificationID: UUID? {
    SessionResolver.resolveOrWarn("AppStore.deviceVerificationID")?.deviceVerificationID
  }

  /// The manage-subscriptions sheet: returns when the customer closes it; throws a simulated
  /// `.manageSubscriptions` error. The scene (`UIWindowScene`, `NSViewController`, ...) is not used.
  public static func showManageSubscriptions<Scene>(in scene: Scene) async throws {
    let core = try SessionResolver.require("AppStore.showManageSubscriptions(in:)")
    if let error = core.simulatedGenericError(.manageSubscriptions) { throw error }
  }

  /// The manage-subscriptions sheet for one subscription group.
  public static func showManageSubscriptions<Scene>(in scene: Scene, subscriptionGroupID: String) async throws {
    try await showManageSubscriptions(in: scene)
  }

  /// The offer code redemption sheet: returns when the customer closes it; throws a simulated
  /// `.offerCodeRedeem` error. A code the customer redeems is a purchase made outside the app:
  /// the test makes it with `session.buyProduct(identifier:options: [.codeOffer(...)])` and the
  /// app sees it on `Transaction.updates`.
  public static func presentOfferCodeRedeemSheet<Scene>(in scene: Scene) async throws {
    let core = try SessionResolver.require("AppStore.presentOfferCodeRedeemSheet(in:)")
    if let error = core.simulatedGenericError(.offerCodeRedeem) { throw error }
  }
}
