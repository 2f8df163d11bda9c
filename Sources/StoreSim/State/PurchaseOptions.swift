import Foundation

/// Options of a purchase, as `Product.PurchaseOption`.
public struct PurchaseOptions: Sendable, Hashable, Codable {
  /// Quantity (1…10).
  public var quantity: Int
  /// The app's account token.
  public var appAccountToken: UUID?
  /// An offer to redeem.
  public var offer: OfferRequest?
  /// The billing plan (`billingPlanType(_:)`); nil is up front.
  public var billingPlanType: BillingPlanType?
  /// The developer's signature on a promotional offer (checked when given).
  public var offerSignature: OfferSignature?
  /// The developer's introductory-offer eligibility, a compact JWS
  /// (`introductoryOfferEligibility(compactJWS:)`; checked when given).
  public var introductoryOfferEligibility: String?
  /// `allowIntroductoryOffer` of a verified eligibility JWS: it replaces the customer's normal
  /// eligibility for this purchase (set by the store, kept with a pending request).
  package var allowIntroductoryOffer: Bool?

  /// Creates options.
  public init(
    quantity: Int = 1, appAccountToken: UUID? = nil, offer: OfferRequest? = nil,
    billingPlanType: BillingPlanType? = nil
  ) {
    self.quantity = quantity
    self.appAccountToken = appAccountToken
    self.offer = offer
    self.billingPlanType = billingPlanType
  }
}

/// An offer the customer asks to redeem with a purchase.
public enum OfferRequest: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The product's introductory offer.
  case introductory
  /// A promotional offer by id (`promotionalOffer(id:)`, test env, no signature).
  case promotional(String)
  /// An offer code by reference name (`codeOffer(referenceName:)`).
  case code(String)
  /// A win-back offer by id (`winBackOffer(_:)`).
  case winBack(String)

  /// `promotional:ID` form.
  public var description: String {
    switch self {
    case .introductory: return "intro"
    case .promotional(let id): return "promotional:\(id)"
    case .code(let id): return "code:\(id)"
    case .winBack(let id): return "win-back:\(id)"
    }
  }
}
