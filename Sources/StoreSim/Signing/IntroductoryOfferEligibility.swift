import Foundation

extension Store {
  /// Whether an introductory-offer eligibility JWS that does not verify fails the purchase with
  /// `invalidOfferSignature` (on) or is ignored, normal eligibility applying (off, the default).
  public var strictIntroductoryOfferEligibility: Bool {
    get { state.strictIntroductoryOfferEligibility ?? false }
    set { state.strictIntroductoryOfferEligibility = newValue ? true : nil }
  }

  /// Checks a purchase's introductory-offer eligibility JWS (rule
  /// introductory-offer-eligibility-jws-sets-eligibility): a verified one sets
  /// `allowIntroductoryOffer` for this purchase and spends its nonce; one that does not verify is
  /// ignored, or fails the purchase when `strictIntroductoryOfferEligibility` is on.
  mutating func checkIntroductoryOfferEligibility(
    _ options: inout PurchaseOptions, _ ci: CustomerHandle, productID: ProductID
  ) -> PurchaseFailure? {
    options.allowIntroductoryOffer = nil
    guard let jws = options.introductoryOfferEligibility else { return nil }
    switch introductoryOfferEligibility(jws, ci, productID: productID) {
    case .success(let verified):
      state.usedOfferNonces = (state.usedOfferNonces ?? []) + [verified.nonce]
      options.allowIntroductoryOffer = verified.allow
      return nil
    case .failure(let refusal):
      return strictIntroductoryOfferEligibility ? .invalidOfferSignature(refusal.text) : nil
    }
  }

  /// Why an eligibility JWS would be ignored (or, when strict, refused) if `customer` bought
  /// `productID` now; nil when it verifies or the customer is unknown.
  package func introductoryOfferEligibilityRefusal(
    _ jws: String, customer: CustomerID, productID: ProductID
  ) -> String? {
    guard let ci = try? index(of: customer) else { return nil }
    if case .failure(let refusal) = introductoryOfferEligibility(jws, ci, productID: productID) { return refusal.text }
    return nil
  }

  /// The eligibility a JWS grants and the nonce it spends (lower case), once its signature,
  /// key, `aud` introductory-offer-eligibility, `bid`, window and claims are checked.
  func introductoryOfferEligibility(
    _ jws: String, _ ci: CustomerHandle, productID: ProductID
  ) -> Result<(allow: Bool, nonce: String), OfferSignature.Refusal> {
    let claims = OfferSignature.verifiedClaims(
      jws, audience: "introductory-offer-eligibility", bundleID: state.bundleID, keys: offerKeys, now: state.now)
    guard case .success(let payload) = claims else {
      if case .failure(let refusal) = claims { return .failure(refusal) }
      return .failure(.init(text: "unreadable"))
    }
    guard payload["productId"]?.value == .string(productID) else {
      return .failure(.init(text: "the productId claim is not \(productID)"))
    }
    guard case .bool(let allow) = payload["allowIntroductoryOffer"]?.value else {
      return .failure(.init(text: "no allowIntroductoryOffer claim (a boolean)"))
    }
    // Any transaction of the customer's, or their app transaction id.
    let customer = state.customers[ci]
    guard case .string(let transactionID) = payload["transactionId"]?.value, !transactionID.isEmpty else {
      return .failure(.init(text: "no transactionId claim"))
    }
    guard
      transactionID == customer.appTransactionID
        || customer.transactions.contains(where: { String($0.id) == transactionID })
    else { return .failure(.init(text: "the transactionId claim \(transactionID) is not the customer's")) }
    guard case .string(let nonce) = payload["nonce"]?.value, !nonce.isEmpty else {
      return .failure(.init(text: "no nonce claim"))
    }
    guard !(state.usedOfferNonces ?? []).contains(nonce.lowercased()) else {
      return .failure(.init(text: "the nonce was used before"))
    }
    return .success((allow, nonce.lowercased()))
  }
}
