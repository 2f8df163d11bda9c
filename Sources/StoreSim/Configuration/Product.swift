import Foundation

/// A product identifier as written in the configuration (`Product.ID` in StoreKit 2).
public typealias ProductID = String

/// A subscription group identifier (`Product.SubscriptionInfo.subscriptionGroupID`).
public typealias SubscriptionGroupID = String

/// The four kinds of in-app purchase, as StoreKit 2's `Product.ProductType`.
///
/// Raw values are the App Store Server API `type` strings.
public enum ProductType: String, Sendable, Hashable, Codable, CaseIterable {
  /// Used once and bought again (`.consumable`).
  case consumable = "Consumable"
  /// Bought once, owned forever (`.nonConsumable`).
  case nonConsumable = "Non-Consumable"
  /// A subscription that does not renew (`.nonRenewable`).
  case nonRenewable = "Non-Renewing Subscription"
  /// A subscription that renews on its own (`.autoRenewable`).
  case autoRenewable = "Auto-Renewable Subscription"

  /// The StoreKit 2 case name, used in text output and `--type`.
  public var storeKitName: String {
    switch self {
    case .consumable: return "consumable"
    case .nonConsumable: return "nonConsumable"
    case .nonRenewable: return "nonRenewable"
    case .autoRenewable: return "autoRenewable"
    }
  }

  /// Reads the StoreKit 2 name, the server name or the `.storekit` name, in any case, `-`/`_`
  /// and spaces ignored: configuration files and what people type share this one reading.
  package init?(anyName: String) {
    switch anyName.lowercased().filter({ $0.isLetter }) {
    case "consumable": self = .consumable
    case "nonconsumable": self = .nonConsumable
    case "nonrenewable", "nonrenewing", "nonrenewingsubscription", "nonrenewablesubscription": self = .nonRenewable
    case "autorenewable", "autorenewablesubscription", "recurringsubscription", "subscription": self = .autoRenewable
    default: return nil
    }
  }
}

/// Localized metadata of a product or group.
public struct Localization: Sendable, Hashable, Codable {
  /// Apple locale identifier (`en_US`, `ja`).
  public var locale: String
  /// Name shown to buyers.
  public var displayName: String
  /// Description shown to buyers.
  public var description: String

  /// Creates a localization.
  public init(locale: String, displayName: String, description: String) {
    self.locale = locale
    self.displayName = displayName
    self.description = description
  }
}

/// A product of the configuration, any of the four types.
///
/// Copy-on-write: copies share one storage, so handing a product around costs a reference count.
public struct Product: Sendable, Hashable, Codable, Identifiable {
  /// The stored fields. Each is also a public property of `Product` with its comment,
  /// forwarded in Product+Forwarding.swift, which Scripts/generate-forwarding.sh writes from this
  /// declaration.
  struct Fields: Sendable, Hashable, Codable {
    /// The product identifier.
    var id: ProductID
    /// The type.
    var type: ProductType
    /// The internal label (never shown to buyers).
    var referenceName: String
    /// The price in the storefront's currency, exactly as configured.
    var price: Decimal
    /// The configured price text.
    var displayPrice: String
    /// Whether Family Sharing applies (`isFamilyShareable`).
    var isFamilyShareable: Bool
    /// Xcode's row id.
    var internalID: String
    /// Localized metadata.
    var localizations: [Localization]
    /// Subscription details, for auto-renewable subscriptions only.
    var subscription: SubscriptionInfo?
  }

  /// The fields, shared by copies.
  var storage: CopyOnWrite<Fields>

  public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// Creates a product.
  public init(
    id: ProductID, type: ProductType, referenceName: String = "", price: Decimal,
    displayPrice: String? = nil, isFamilyShareable: Bool = false, internalID: String = "",
    localizations: [Localization] = [], subscription: SubscriptionInfo? = nil
  ) {
    storage = CopyOnWrite(
      Fields(
        id: id, type: type, referenceName: referenceName, price: price,
        displayPrice: displayPrice ?? "\(price)", isFamilyShareable: isFamilyShareable,
        internalID: internalID, localizations: localizations, subscription: subscription))
  }

  /// The localization for a locale: exact match, then same language, then `en_US`, then the first.
  public func localization(for locale: String) -> Localization? {
    Self.pick(localizations, for: locale)
  }

  static func pick(_ list: [Localization], for locale: String) -> Localization? {
    func normal(_ s: String) -> String { s.replacingOccurrences(of: "-", with: "_").lowercased() }
    let wanted = normal(locale)
    if let exact = list.first(where: { normal($0.locale) == wanted }) { return exact }
    let language = Self.language(of: locale) ?? wanted
    if let sameLanguage = list.first(where: { Self.language(of: $0.locale) == language }) {
      return sameLanguage
    }
    return list.first(where: { normal($0.locale) == "en_us" }) ?? list.first
  }

  /// The language part of a locale code, lower-cased (`en` of `en_US` or `en-GB`); nil for "".
  static func language(of locale: String) -> String? {
    locale.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map(String.init)
  }
}

/// What makes a product an auto-renewable subscription (`Product.SubscriptionInfo`).
public struct SubscriptionInfo: Sendable, Hashable, Codable {
  /// The group the subscription belongs to.
  public var groupID: SubscriptionGroupID
  /// Service level within the group: 1 is the highest (`groupLevel`, file key `groupNumber`).
  public var groupLevel: Int
  /// The renewal period.
  public var period: SubscriptionPeriod
  /// The introductory offer, if any.
  public var introductoryOffer: SubscriptionOffer?
  /// Promotional offers (file key `adHocOffers`).
  public var promotionalOffers: [SubscriptionOffer]
  /// Offer codes (file key `codeOffers`).
  public var offerCodes: [SubscriptionOffer]
  /// Win-back offers.
  public var winBackOffers: [SubscriptionOffer]
  /// Billing plans (5.0+), kept for display.
  public var billingPlans: [BillingPlan]

  /// Creates subscription details.
  public init(
    groupID: SubscriptionGroupID, groupLevel: Int, period: SubscriptionPeriod,
    introductoryOffer: SubscriptionOffer? = nil, promotionalOffers: [SubscriptionOffer] = [],
    offerCodes: [SubscriptionOffer] = [], winBackOffers: [SubscriptionOffer] = [],
    billingPlans: [BillingPlan] = []
  ) {
    self.groupID = groupID
    self.groupLevel = groupLevel
    self.period = period
    self.introductoryOffer = introductoryOffer
    self.promotionalOffers = promotionalOffers
    self.offerCodes = offerCodes
    self.winBackOffers = winBackOffers
    self.billingPlans = billingPlans
  }
}

/// How a billing plan charges, as the App Store Server API's `billingPlanType` (the name and raw
/// values of Apple's `BillingPlanType`; `.storekit` files write the same strings).
public enum BillingPlanType: String, Sendable, Hashable, Codable, CaseIterable {
  /// The whole period is paid at once.
  case billedUpfront = "BILLED_UPFRONT"
  /// Paid monthly over a longer commitment.
  case monthly = "MONTHLY"
}

/// A billing plan of a subscription (5.0+ files); an unknown `billingPlanType` reads as
/// `.billedUpfront`.
public struct BillingPlan: Sendable, Hashable, Codable {
  /// How it is billed.
  public var type: BillingPlanType
  /// Price per charge.
  public var price: Decimal
  /// Total over the commitment.
  public var commitmentPrice: Decimal?
  /// Whether the plan is offered.
  public var isEnabled: Bool
}

/// A subscription group of the configuration.
public struct SubscriptionGroup: Sendable, Hashable, Codable, Identifiable {
  /// The group id.
  public var id: SubscriptionGroupID
  /// The group's reference name.
  public var name: String
  /// Localized group names.
  public var localizations: [Localization]
  /// Member product ids in file order.
  public var productIDs: [ProductID]

  /// Creates a group.
  public init(id: SubscriptionGroupID, name: String, localizations: [Localization] = [], productIDs: [ProductID]) {
    self.id = id
    self.name = name
    self.localizations = localizations
    self.productIDs = productIDs
  }
}
