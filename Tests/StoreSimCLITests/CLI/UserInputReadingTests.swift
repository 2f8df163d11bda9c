import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// The CLI reads a product type the way the `.storekit` reader does.
@Suite struct ProductTypeReadingTests {
  @Test func oneProductTypeReadingForFilesAndPeople() {
    for (text, type) in [
      ("Consumable", ProductType.consumable), ("NonConsumable", .nonConsumable), ("non-consumable", .nonConsumable),
      ("NonRenewingSubscription", .nonRenewable), ("nonRenewable", .nonRenewable),
      ("RecurringSubscription", .autoRenewable), ("autoRenewable", .autoRenewable),
      ("Auto-Renewable Subscription", .autoRenewable),
    ] {
      #expect(ProductType(anyName: text) == type)
      #expect(ProductType(userInput: text) == type)
    }
    #expect(ProductType(anyName: "gadget") == nil)
  }
}

@Suite struct OfferRequestParsingTests {
  @Test func offerOptionsNeedAnIdentifierExceptIntro() {
    #expect(OfferRequest(userInput: "intro") == .introductory)
    #expect(OfferRequest(userInput: "promotional:p1") == .promotional("p1"))
    #expect(OfferRequest(userInput: "code:FREE") == .code("FREE"))
    #expect(OfferRequest(userInput: "win-back:w") == .winBack("w"))
    #expect(OfferRequest(userInput: "promotional:") == nil)
    #expect(OfferRequest(userInput: "promotional") == nil)
    #expect(OfferRequest(userInput: "code:") == nil)
    #expect(OfferRequest(userInput: "win-back") == nil)
    // An empty offer (`buy P --offer=`, or `"offer": ""` over the control API) is refused, not a crash.
    #expect(OfferRequest(userInput: "") == nil)
    #expect(OfferRequest(userInput: ":") == nil)
  }
}
