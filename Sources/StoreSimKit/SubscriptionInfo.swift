import Foundation
import StoreSim

extension Product {
  /// Subscription details of an auto-renewable product, as StoreKit's `Product.SubscriptionInfo`.
  public struct SubscriptionInfo: Hashable, Sendable {
    public let subscriptionGroupID: String
    public let subscriptionPeriod: Product.SubscriptionPeriod
    public let groupLevel: Int
    public let groupDisplayName: String
    public let introductoryOffer: Product.SubscriptionOffer?
    public let promotionalOffers: [Product.SubscriptionOffer]
    public let winBackOffers: [Product.SubscriptionOffer]
    /// The ways to pay: up front, and monthly inside a commitment when the product has the plan.
    public let pricingTerms: [PricingTerms]
    /// The session the value came from.
    let home: SessionCore
    /// Where the value acts: the session in force at the time of the call (as on a device, where
    /// there is one store), or, with none in reach, the one it came from.
    var core: SessionCore { SessionResolver.resolve() ?? home }

    init(_ s: StoreSim.SubscriptionInfo, store: Store, currency: String, core: SessionCore) {
      subscriptionGroupID = s.groupID
      subscriptionPeriod = Product.SubscriptionPeriod(s.period)
      groupLevel = s.groupLevel
      groupDisplayName = store.configuration.group(s.groupID)?.name ?? s.groupID
      introductoryOffer = s.introductoryOffer.map { .init($0, currency: currency) }
      promotionalOffers = s.promotionalOffers.map { .init($0, currency: currency) }
      winBackOffers = s.winBackOffers.map { .init($0, currency: currency) }
      let offers = (s.introductoryOffer.map { [$0] } ?? []) + s.promotionalOffers + s.winBackOffers
      let product = store.configuration.products.first { $0.subscription == s }
      pricingTerms =
        product.map {
          Self.pricingTerms($0, offers: offers.map { .init($0, currency: currency) }, currency: currency)
        } ?? []
      home = core
    }

    public static func == (a: SubscriptionInfo, b: SubscriptionInfo) -> Bool {
      a.subscriptionGroupID == b.subscriptionGroupID && a.groupLevel == b.groupLevel
        && a.subscriptionPeriod == b.subscriptionPeriod
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(subscriptionGroupID) }

    /// Whether the customer may still get the group's introductory offer.
    public var isEligibleForIntroOffer: Bool {
      get async { core.read { $0.isEligibleForIntroOffer(group: subscriptionGroupID, customer: core.customer) } }
    }

    /// Whether the customer may still get a group's introductory offer.
    public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
      guard let core = SessionResolver.resolveOrWarn("isEligibleForIntroOffer(for:)") else { return false }
      return core.read { $0.isEligibleForIntroOffer(group: groupID, customer: core.customer) }
    }

    /// The customer's statuses in this product's group (their own and family-shared ones).
    public var status: [Status] {
      get async throws { try Self.statuses(core, group: subscriptionGroupID) }
    }

    /// The customer's statuses in a group.
    public static func status(for groupID: String) async throws -> [Status] {
      try statuses(SessionResolver.require("Product.SubscriptionInfo.status(for:)"), group: groupID)
    }

    static func statuses(_ core: SessionCore, group: String) throws -> [Status] {
      try core.read { store in
        if let error = store.settings.simulatedError(forAPI: .subscriptionStatus) {
          throw StoreKitError(simulated: error.name)
        }
        return statuses(core, store: store, group: group)
      }
    }

    static func statuses(_ core: SessionCore, store: Store, group: String) -> [Status] {
      store.statuses(forGroup: group, customer: core.customer).map { s in
        Status(
          state: RenewalState(s.state), transaction: core.verified(s.transaction, in: store),
          renewalInfo: core.verified(s.renewalInfo, in: store))
      }
    }

    /// One subscription's state with its latest transaction and renewal info.
    public struct Status: Equatable, Sendable {
      public let state: RenewalState
      public let transaction: VerificationResult<Transaction>
      public let renewalInfo: VerificationResult<RenewalInfo>

      /// The statuses of a group each time a control call or a purchase changes them: one per
      /// status of each affected group, as they are when the call returns (an `advance` over
      /// several renewals yields the end state once). Bound to the session in reach when read,
      /// like `Transaction.updates`.
      public static var updates: Statuses {
        Statuses(
          live: ListenerHandle.open("Product.SubscriptionInfo.Status.updates") { $0.addStatusListener(since: $1) })
      }

      /// The customer's statuses in every group they ever subscribed in, one element per group
      /// (configuration order), as they are now; the stream then ends. Throws nothing: with a
      /// simulated `.subscriptionStatus` error, or no session, it is empty.
      public static var all: AsyncStream<(groupID: String, statuses: [Status])> {
        let core = SessionResolver.resolveOrWarn("Product.SubscriptionInfo.Status.all")
        let groups: [(groupID: String, statuses: [Status])] =
          core.map { core in
            core.read { store in
              guard store.settings.simulatedError(forAPI: .subscriptionStatus) == nil else { return [] }
              return store.configuration.subscriptionGroups.map(\.id).compactMap { group in
                let statuses = SubscriptionInfo.statuses(core, store: store, group: group)
                return statuses.isEmpty ? nil : (group, statuses)
              }
            }
          } ?? []
        return AsyncStream { continuation in
          for element in groups { continuation.yield(element) }
          continuation.finish()
        }
      }

      /// An asynchronous sequence of statuses.
      public struct Statuses: AsyncSequence, Sendable {
        public typealias Element = Status
        let live: ListenerHandle<Status>?

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(cursor: LiveCursor(live)) }

        public struct AsyncIterator: AsyncIteratorProtocol {
          var cursor: LiveCursor<Status>
          public mutating func next() async -> Status? { await cursor.next() }
        }
      }
    }

    /// A subscription's renewal state.
    public struct RenewalState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
      public let rawValue: Int
      public init(rawValue: Int) { self.rawValue = rawValue }
      public static let subscribed = RenewalState(rawValue: 1)
      public static let expired = RenewalState(rawValue: 2)
      public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
      public static let inGracePeriod = RenewalState(rawValue: 4)
      public static let revoked = RenewalState(rawValue: 5)

      init(_ s: StoreSim.RenewalState) { self.init(rawValue: s.serverStatus) }

      public var description: String {
        ["", "subscribed", "expired", "inBillingRetryPeriod", "inGracePeriod", "revoked"][min(max(rawValue, 0), 5)]
      }
    }

    /// What happens at the next renewal, as StoreKit's `Product.SubscriptionInfo.RenewalInfo`.
    public struct RenewalInfo: Hashable, Sendable, JWSRepresentable {
      public let originalTransactionID: UInt64
      public let currentProductID: String
      public let willAutoRenew: Bool
      public let autoRenewPreference: String?
      public let expirationReason: ExpirationReason?
      public let priceIncreaseStatus: PriceIncreaseStatus
      public let isInBillingRetry: Bool
      public let gracePeriodExpirationDate: Date?
      public let offerType: Transaction.OfferType?
      public let offerID: String?
      public let signedDate: Date
      public let environment: AppStore.Environment
      public let recentSubscriptionStartDate: Date
      public let renewalDate: Date?
      public let renewalPrice: Decimal?
      /// The currency of `renewalPrice`.
      public let currency: Locale.Currency?
      /// Not in StoreKit: the ISO 4217 code of `renewalPrice`.
      public let currencyCode: String?
      public let eligibleWinBackOfferIDs: [String]
      public let appAccountToken: UUID?
      /// The billing plan of the next billing period.
      public let renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType?
      /// What renews when the commitment ends, while inside one.
      public let commitmentInfo: CommitmentInfo?
      public let jwsRepresentation: String

      init(_ r: StoreSim.RenewalInfo, store: Store, customer: CustomerID) {
        originalTransactionID = r.originalTransactionID
        currentProductID = r.currentProductID
        willAutoRenew = r.willAutoRenew
        autoRenewPreference = r.autoRenewProductID
        expirationReason = r.expirationReason.map { ExpirationReason(rawValue: $0.rawValue) }
        switch r.priceIncreaseStatus {
        case .noIncreasePending: priceIncreaseStatus = .noIncreasePending
        case .pending: priceIncreaseStatus = .pending
        case .agreed: priceIncreaseStatus = .agreed
        }
        isInBillingRetry = r.isInBillingRetry
        gracePeriodExpirationDate = r.gracePeriodExpirationDate
        offerType = r.offer.map { Transaction.OfferType(rawValue: $0.type.rawValue) }
        offerID = r.offer?.id
        signedDate = r.signedDate
        environment = AppStore.Environment(store.state.environment)
        recentSubscriptionStartDate = r.recentSubscriptionStartDate
        renewalDate = r.renewalDate
        renewalPrice = r.renewalPrice
        currency = Locale.Currency(r.currency)
        currencyCode = r.currency
        eligibleWinBackOfferIDs = r.eligibleWinBackOfferIDs
        appAccountToken = r.appAccountToken
        renewalBillingPlanType = .init(r.renewalBillingPlanType)
        commitmentInfo = r.commitment.map(CommitmentInfo.init)
        jwsRepresentation = store.signed(r, customer: customer)
      }

      /// Why a subscription expired.
      public struct ExpirationReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let autoRenewDisabled = ExpirationReason(rawValue: 1)
        public static let billingError = ExpirationReason(rawValue: 2)
        public static let didNotConsentToPriceIncrease = ExpirationReason(rawValue: 3)
        public static let productUnavailable = ExpirationReason(rawValue: 4)
        public static let unknown = ExpirationReason(rawValue: 5)
      }

      /// The customer's answer to a price increase.
      public enum PriceIncreaseStatus: Hashable, Sendable {
        case noIncreasePending
        case pending
        case agreed
      }
    }
  }
}
