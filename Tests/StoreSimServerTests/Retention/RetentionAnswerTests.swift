import Foundation
import StoreSimCrypto
import Testing

@testable import StoreSim
@testable import StoreSimServer

/// How a realtime answer is checked, and the fallback (docs/rules.md, "Retention Messaging").
@Suite struct RetentionAnswerTests {
  typealias E = RetentionEndpointTests
  static let plain = E.message
  static let withImage = "6f1c2b9e-0d4a-4c1e-9b1f-3a2d5e7c8b02"

  static func store(defaultMessage: Bool = true) throws -> Store {
    var store = try E.configured()
    store = try E.ok(
      store, "PUT", "/message/\(withImage)",
      #"{"header":"h","body":"b","image":{"imageIdentifier":"\#(E.image)","altText":"a"}}"#)
    if defaultMessage {
      store = try E.ok(store, "PUT", "/default/monthly/en-US", #"{"messageIdentifier":"\#(plain)"}"#)
    }
    return store
  }

  static func decide(_ store: Store, _ answer: RealtimeAnswer) throws -> RetentionCall {
    let call = store.retentionCall(try store.retentionTarget(productID: "monthly", customer: .default), locale: "en-US")
    return store.decide(call, answer: answer)
  }

  static func answer(_ json: String) -> RealtimeAnswer { .response(status: 200, body: Array(json.utf8)) }

  @Test func theRealtimeRequestHasEveryFieldOfDecodedRealtimeRequestBody() throws {
    let store = try Self.store()
    let call = store.retentionCall(try store.retentionTarget(productID: "monthly", customer: .default), locale: "fr-FR")
    let body = store.realtimeRequestBody(call)
    guard case .string(let jws)? = body["signedPayload"] else {
      Issue.record("no signedPayload")
      return
    }
    let payload = try #require(JWS.verify(jws, signer: store.state.signer))
    let node = try JSONParser.parse(payload)
    #expect(
      node.members?.map(\.key).sorted()
        == [
          "appAppleId", "environment", "originalTransactionId", "productId", "requestIdentifier", "signedDate",
          "userLocale",
        ])
    #expect(node["userLocale"]?.value == .string("fr-FR"))
    #expect(node["originalTransactionId"]?.value == .string("2000000000000001"))
    #expect(UUID(uuidString: call.requestIdentifier) != nil)
  }

  @Test func anApprovedMessageAnsweredInTimeIsShown() throws {
    let call = try Self.decide(
      try Self.store(), Self.answer(#"{"message":{"messageIdentifier":"\#(Self.withImage)"}}"#))
    #expect(call.outcome == "ok" && call.shown == "message" && call.messageIdentifier == Self.withImage)
    #expect(call.fallback == nil)
  }

  @Test(arguments: [
    (
      #"{"message":{"messageIdentifier":"\#(plain)"},"alternateProduct":{"messageIdentifier":"\#(plain)","productId":"yearly"}}"#,
      "invalid: 2 keys; exactly one is allowed"
    ),
    ("{}", "invalid: 0 keys; exactly one is allowed"),
    (#"{"note":{}}"#, "invalid: unknown key 'note'"),
    ("[1]", "invalid: the body is not a JSON object"),
    ("not json", "invalid: the body is not a JSON object"),
    (
      #"{"message":{"messageIdentifier":"00000000-0000-4000-8000-000000000000"}}"#,
      "invalid: unknown message 00000000-0000-4000-8000-000000000000"
    ),
    (#"{"message":{"messageIdentifier":"m1"}}"#, "invalid: messageIdentifier 'm1' is not a UUID"),
    (
      #"{"alternateProduct":{"messageIdentifier":"\#(withImage)","productId":"yearly"}}"#,
      "invalid: a switch-plan message must have no image"
    ),
    (
      #"{"alternateProduct":{"messageIdentifier":"\#(plain)","productId":"car"}}"#,
      "invalid: 'car' is not an auto-renewable subscription"
    ),
    (
      #"{"alternateProduct":{"messageIdentifier":"\#(plain)","productId":"monthly"}}"#,
      "invalid: alternateProduct 'monthly' is the current product"
    ),
    (
      #"{"alternateProduct":{"messageIdentifier":"\#(plain)","productId":"yearly","billingPlanType":"WEEKLY"}}"#,
      "invalid: billingPlanType must be BILLED_UPFRONT or MONTHLY"
    ),
    (
      #"{"promotionalOffer":{"messageIdentifier":"\#(withImage)","promotionalOfferSignatureV1":{}}}"#,
      "invalid: a promotional offer message must have no image"
    ),
    (
      #"{"promotionalOffer":{"messageIdentifier":"\#(plain)"}}"#,
      "invalid: promotionalOffer needs promotionalOfferSignatureV2 or V1"
    ),
    (
      #"{"advancedCommerceInfo":{"messageIdentifier":"\#(plain)","advancedCommerceData":"e30="}}"#,
      "invalid: advancedCommerceInfo for a subscription that is not an Advanced Commerce one"
    ),
  ])
  func anInvalidAnswerFallsBackToTheDefaultMessage(json: String, outcome: String) throws {
    let call = try Self.decide(try Self.store(), Self.answer(json))
    #expect(call.outcome == outcome)
    #expect(call.fallback == "default" && call.shown == "message" && call.messageIdentifier == Self.plain)
  }

  @Test func anUnapprovedMessageOrImageIsInvalid() throws {
    var store = try Self.store()
    store.updateRetentionMessaging { $0.images[0].state = .rejected }
    let call = try Self.decide(store, Self.answer(#"{"message":{"messageIdentifier":"\#(Self.withImage)"}}"#))
    #expect(call.outcome == "invalid: an image of message \(Self.withImage) is not APPROVED")
    store.updateRetentionMessaging { $0.messages[0].state = .pending }
    let pending = try Self.decide(store, Self.answer(#"{"message":{"messageIdentifier":"\#(Self.plain)"}}"#))
    #expect(pending.outcome == "invalid: message \(Self.plain) is PENDING, not APPROVED")
    // The default message is not approved either: nothing is shown.
    #expect(pending.fallback == "none" && pending.shown == nil)
  }

  @Test func aTimeoutAFailureOrAnother200StatusFallsBack() throws {
    let store = try Self.store()
    #expect(try Self.decide(store, .timeout).outcome == "timeout")
    #expect(try Self.decide(store, .failed("connection refused")).outcome == "failed: connection refused")
    let status = try Self.decide(store, .response(status: 201, body: []))
    #expect(status.outcome == "invalid: HTTP 201, not 200" && status.fallback == "default")
  }

  @Test func withoutADefaultMessageNothingIsShown() throws {
    let call = try Self.decide(try Self.store(defaultMessage: false), .timeout)
    #expect(call.fallback == "none" && call.shown == nil && call.messageIdentifier == nil)
  }

  @Test func theDefaultMessageIsThatOfTheProductAndLocale() throws {
    let store = try Self.store()
    var call = store.retentionCall(try store.retentionTarget(productID: "monthly", customer: .default), locale: "de-DE")
    call = store.decide(call, answer: .timeout)
    #expect(call.fallback == "none")
  }

  @Test func aSwitchToAProductOfTheSameGroupIsShown() throws {
    let call = try Self.decide(
      try Self.store(),
      Self.answer(
        #"{"alternateProduct":{"messageIdentifier":"\#(Self.plain)","productId":"yearly","billingPlanType":"MONTHLY"}}"#
      ))
    #expect(call.outcome == "ok" && call.shown == "alternateProduct" && call.alternateProductID == "yearly")
  }

  static func v2(_ claims: [String: JSONOutput]) -> String {
    let header = JWS.base64URL(Array(#"{"alg":"ES256","kid":"K","typ":"JWT"}"#.utf8))
    return header + "." + JWS.base64URL(Array(JSONOutput.object(claims).rendered(pretty: false).utf8)) + ".c2ln"
  }

  @Test func aPromotionalOfferSignatureV2MustNameTheRequestsOriginalTransaction() throws {
    let store = try Self.store()
    var claims: [String: JSONOutput] = [
      "iss": .string("i"), "iat": .int(1), "aud": .string("promotional-offer"), "bid": .string(store.state.bundleID),
      "nonce": .string(UUID().uuidString), "productId": .string("monthly"), "offerIdentifier": .string("promo.half"),
      "transactionId": .string("2000000000000001"),
    ]
    func answer(_ c: [String: JSONOutput]) -> RealtimeAnswer {
      Self.answer(
        #"{"promotionalOffer":{"messageIdentifier":"\#(Self.plain)","promotionalOfferSignatureV2":"\#(Self.v2(c))"}}"#)
    }
    let ok = try Self.decide(store, answer(claims))
    #expect(ok.outcome == "ok" && ok.offerIdentifier == "promo.half" && ok.offerProductID == "monthly")
    claims["transactionId"] = .string("2000000000000009")
    #expect(
      try Self.decide(store, answer(claims)).outcome
        == "invalid: promotionalOfferSignatureV2: transactionId must be the request's originalTransactionId")
    claims["transactionId"] = .string("2000000000000001")
    claims["offerIdentifier"] = .string("nope")
    #expect(try Self.decide(store, answer(claims)).outcome == "invalid: 'nope' is not a promotional offer of 'monthly'")
    claims["offerIdentifier"] = .string("promo.half")
    claims["aud"] = .string("appstoreconnect-v1")
    #expect(try Self.decide(store, answer(claims)).outcome.hasPrefix("invalid: promotionalOfferSignatureV2: aud"))
  }

  @Test func aPromotionalOfferSignatureV1IsAnObjectWithApplesFields() throws {
    let store = try Self.store()
    let v1 =
      #"{"encodedSignature":"c2ln","productId":"monthly","nonce":"\#(UUID().uuidString)","timestamp":1,"keyId":"K","offerIdentifier":"promo.half"}"#
    let ok = try Self.decide(
      store,
      Self.answer(#"{"promotionalOffer":{"messageIdentifier":"\#(Self.plain)","promotionalOfferSignatureV1":\#(v1)}}"#))
    #expect(ok.outcome == "ok" && ok.shown == "promotionalOffer")
    let both = try Self.decide(
      store,
      Self.answer(
        #"{"promotionalOffer":{"messageIdentifier":"\#(Self.plain)","promotionalOfferSignatureV1":\#(v1),"promotionalOfferSignatureV2":"a.b.c"}}"#
      ))
    #expect(both.outcome == "invalid: promotionalOfferSignatureV2 and V1 exclude each other")
  }
}
