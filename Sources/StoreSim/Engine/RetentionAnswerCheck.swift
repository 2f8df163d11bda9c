import Foundation
import StoreSimCrypto

/// What a valid realtime answer shows.
package struct RetentionShown: Sendable, Equatable {
  /// `message`, `alternateProduct` or `promotionalOffer`.
  package var kind: String
  package var messageIdentifier: String
  package var alternateProductID: ProductID?
  package var offerProductID: ProductID?
  package var offerIdentifier: String?
}

/// Why a realtime answer was refused (the rule it breaks, one short line).
package struct RetentionAnswerRefusal: Error, Sendable, Equatable {
  package var reason: String
  package init(_ reason: String) { self.reason = reason }
}

/// Checks a `RealtimeResponseBody` by Apple's rules: exactly one of `message`,
/// `alternateProduct`, `promotionalOffer`, `advancedCommerceInfo`; a known, approved message
/// (and approved images); no image with a switch or an offer; the alternate product and the
/// offer's product in the request's subscription group; a promotional offer signature that
/// names the request's original transaction.
package struct RetentionAnswerCheck {
  let store: Store
  let call: RetentionCall

  package init(store: Store, call: RetentionCall) {
    self.store = store
    self.call = call
  }

  static let keys = ["message", "alternateProduct", "promotionalOffer", "advancedCommerceInfo"]

  package func validate(_ body: [UInt8]) -> Result<RetentionShown, RetentionAnswerRefusal> {
    do throws(RetentionAnswerRefusal) {
      return .success(try check(body))
    } catch {
      return .failure(error)
    }
  }

  func check(_ body: [UInt8]) throws(RetentionAnswerRefusal) -> RetentionShown {
    guard let root = try? JSONParser.parse(body), let members = root.members else {
      throw RetentionAnswerRefusal("the body is not a JSON object")
    }
    if let unknown = members.first(where: { !Self.keys.contains($0.key) }) {
      throw RetentionAnswerRefusal("unknown key '\(unknown.key)'")
    }
    guard members.count == 1, let member = members.first else {
      throw RetentionAnswerRefusal("\(members.count) keys; exactly one is allowed")
    }
    guard member.value.members != nil else { throw RetentionAnswerRefusal("\(member.key) is not an object") }
    let node = member.value
    let message = try approvedMessage(node)
    switch member.key {
    case "message":
      return RetentionShown(kind: "message", messageIdentifier: message.identifier)
    case "alternateProduct":
      if message.image != nil { throw RetentionAnswerRefusal("a switch-plan message must have no image") }
      let product = try string(node, "productId", in: "alternateProduct")
      try sameGroup(product)
      if product == call.productID {
        throw RetentionAnswerRefusal("alternateProduct '\(product)' is the current product")
      }
      if let plan = node["billingPlanType"], plan.value != .null {
        guard case .string(let text) = plan.value, ["BILLED_UPFRONT", "MONTHLY"].contains(text) else {
          throw RetentionAnswerRefusal("billingPlanType must be BILLED_UPFRONT or MONTHLY")
        }
      }
      return RetentionShown(
        kind: "alternateProduct", messageIdentifier: message.identifier, alternateProductID: product)
    case "promotionalOffer":
      if message.image != nil { throw RetentionAnswerRefusal("a promotional offer message must have no image") }
      let (product, offer) = try promotionalOffer(node)
      return RetentionShown(
        kind: "promotionalOffer", messageIdentifier: message.identifier, offerProductID: product, offerIdentifier: offer
      )
    default:
      throw RetentionAnswerRefusal("advancedCommerceInfo for a subscription that is not an Advanced Commerce one")
    }
  }

  func string(_ node: JSONNode, _ key: String, in owner: String) throws(RetentionAnswerRefusal) -> String {
    guard case .string(let text)? = node[key]?.value, !text.isEmpty else {
      throw RetentionAnswerRefusal("\(owner).\(key) is missing or not a string")
    }
    return text
  }

  func approvedMessage(_ node: JSONNode) throws(RetentionAnswerRefusal) -> RetentionMessage {
    let id = try string(node, "messageIdentifier", in: "the answer")
    guard UUID(uuidString: id) != nil else { throw RetentionAnswerRefusal("messageIdentifier '\(id)' is not a UUID") }
    let messaging = store.retentionMessaging
    guard let message = messaging.message(id) else {
      throw RetentionAnswerRefusal("unknown message \(id.lowercased())")
    }
    guard message.state == .approved else {
      throw RetentionAnswerRefusal("message \(message.identifier) is \(message.state.rawValue), not APPROVED")
    }
    guard messaging.isShowable(message) else {
      throw RetentionAnswerRefusal("an image of message \(message.identifier) is not APPROVED")
    }
    return message
  }

  func sameGroup(_ product: ProductID) throws(RetentionAnswerRefusal) {
    guard let p = store.configuration.product(product), let group = p.subscription?.groupID else {
      throw RetentionAnswerRefusal("'\(product)' is not an auto-renewable subscription")
    }
    guard let current = store.configuration.product(call.productID)?.subscription?.groupID, current == group else {
      throw RetentionAnswerRefusal("'\(product)' is not in the subscription group of '\(call.productID)'")
    }
  }

  /// The product and offer of a `promotionalOffer` answer: exactly one of
  /// `promotionalOfferSignatureV2` (a JWS whose claims name the request's original
  /// transaction) and `promotionalOfferSignatureV1` (Apple's object). The signature itself is
  /// made with the team's key, which storesim does not have: its shape and claims are checked.
  func promotionalOffer(_ node: JSONNode) throws(RetentionAnswerRefusal) -> (ProductID, String) {
    let v2 = node["promotionalOfferSignatureV2"].flatMap { $0.value == .null ? nil : $0 }
    let v1 = node["promotionalOfferSignatureV1"].flatMap { $0.value == .null ? nil : $0 }
    let product: String
    let offer: String
    switch (v2, v1) {
    case (.some(let jws), nil):
      guard case .string(let text) = jws.value, let bytes = JWS.payload(of: text),
        let claims = try? JSONParser.parse(bytes), claims.members != nil
      else {
        throw RetentionAnswerRefusal("promotionalOfferSignatureV2 is not a compact JWS")
      }
      guard case .string("promotional-offer")? = claims["aud"]?.value else {
        throw RetentionAnswerRefusal("promotionalOfferSignatureV2: aud must be 'promotional-offer'")
      }
      guard case .string(let bid)? = claims["bid"]?.value, bid == store.state.bundleID else {
        throw RetentionAnswerRefusal("promotionalOfferSignatureV2: bid must be '\(store.state.bundleID)'")
      }
      guard case .string(let transaction)? = claims["transactionId"]?.value,
        transaction == String(call.originalTransactionID)
      else {
        throw RetentionAnswerRefusal(
          "promotionalOfferSignatureV2: transactionId must be the request's originalTransactionId")
      }
      product = try string(claims, "productId", in: "promotionalOfferSignatureV2")
      offer = try string(claims, "offerIdentifier", in: "promotionalOfferSignatureV2")
    case (nil, .some(let object)):
      guard object.members != nil else { throw RetentionAnswerRefusal("promotionalOfferSignatureV1 is not an object") }
      for key in ["encodedSignature", "nonce", "keyId"] {
        _ = try string(object, key, in: "promotionalOfferSignatureV1")
      }
      guard case .number? = object["timestamp"]?.value else {
        throw RetentionAnswerRefusal("promotionalOfferSignatureV1.timestamp is missing or not a number")
      }
      product = try string(object, "productId", in: "promotionalOfferSignatureV1")
      offer = try string(object, "offerIdentifier", in: "promotionalOfferSignatureV1")
    case (.some, .some):
      throw RetentionAnswerRefusal("promotionalOfferSignatureV2 and V1 exclude each other")
    case (nil, nil):
      throw RetentionAnswerRefusal("promotionalOffer needs promotionalOfferSignatureV2 or V1")
    }
    try sameGroup(product)
    guard
      store.configuration.product(product)?.subscription?.promotionalOffers.contains(where: { $0.id == offer }) == true
    else {
      throw RetentionAnswerRefusal("'\(offer)' is not a promotional offer of '\(product)'")
    }
    return (product, offer)
  }
}
