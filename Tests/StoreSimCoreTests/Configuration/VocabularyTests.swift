import Foundation
import Testing

@testable import StoreSim

/// The typed vocabulary keeps Apple's (or the `.storekit` format's) strings, and what is not
/// in it is refused as before.
@Suite struct VocabularyTests {
  func read(_ text: String) throws -> LoadedConfiguration { try ConfigurationReader.read(Array(text.utf8)) }

  func offerCodeFile(eligibility: String, billingPlanType: String = "MONTHLY") -> String {
    #"""
    {"version":{"major":5,"minor":0},"products":[],"subscriptionGroups":[{"id":"G","name":"G","localizations":[],"subscriptions":[
      {"productID":"a","localizations":[],"type":"RecurringSubscription","displayPrice":"1.99","groupNumber":1,
       "recurringSubscriptionPeriod":"P1M","subscriptionGroupID":"G","referenceName":"A","internalID":"1","familyShareable":false,
       "billingPlans":[{"billingPlanType":"\#(billingPlanType)","displayPrice":"0.99","isEnabled":true}],
       "codeOffers":[{"referenceName":"CODE","paymentMode":"free","subscriptionPeriod":"P3D","eligibility":\#(eligibility)}]}]}]}
    """#
  }

  @Test func offerCodeEligibilityHasTheStoreKitFileStrings() throws {
    #expect(OfferCodeEligibility.allCases.map(\.rawValue) == ["new", "existing", "expired"])
    let loaded = try read(offerCodeFile(eligibility: #"["existing","lapsed","new"]"#))
    #expect(loaded.configuration.product("a")?.subscription?.offerCodes.first?.eligibility == [.existing, .new])
    #expect(
      loaded.warnings.map(\.message).contains("unknown offer-code eligibility 'lapsed'; ignored"))
  }

  @Test func billingPlanTypeHasApplesStrings() throws {
    #expect(BillingPlanType.allCases.map(\.rawValue) == ["BILLED_UPFRONT", "MONTHLY"])
    let monthly = try read(offerCodeFile(eligibility: "[]"))
    #expect(monthly.configuration.product("a")?.subscription?.billingPlans.map(\.type) == [.monthly])
    // An unknown plan type is read as billed up front, with a warning at its JSON path.
    let unknown = try read(offerCodeFile(eligibility: "[]", billingPlanType: "WEEKLY"))
    #expect(unknown.configuration.product("a")?.subscription?.billingPlans.map(\.type) == [.billedUpfront])
    #expect(
      unknown.warnings.map { "\($0.path): \($0.message)" } == [
        "subscriptionGroups[0].subscriptions[0].billingPlans[0].billingPlanType: unknown billingPlanType 'WEEKLY'; read as BILLED_UPFRONT"
      ])
  }

  @Test func anUnknownBillingPlanTypeOfTheIntroductoryOfferIsReadAsBilledUpfrontWithAWarning() throws {
    let file = #"""
      {"version":{"major":5,"minor":0},"products":[],"subscriptionGroups":[{"id":"G","name":"G","localizations":[],"subscriptions":[
        {"productID":"a","localizations":[],"type":"RecurringSubscription","displayPrice":"1.99","groupNumber":1,
         "recurringSubscriptionPeriod":"P1M","subscriptionGroupID":"G","referenceName":"A","internalID":"1","familyShareable":false,
         "introductoryOffers":[
           {"paymentMode":"payAsYouGo","subscriptionPeriod":"P1M","numberOfPeriods":2,"displayPrice":"0.49","billingPlanType":"MONTHLY"},
           {"paymentMode":"payUpFront","subscriptionPeriod":"P2M","displayPrice":"0.99","billingPlanType":"WEEKLY"}]}]}]}
      """#
    let loaded = try read(file)
    #expect(loaded.configuration.product("a")?.subscription?.introductoryOffer?.paymentMode == .payUpFront)
    #expect(
      loaded.warnings.map { "\($0.path): \($0.message)" } == [
        "subscriptionGroups[0].subscriptions[0].introductoryOffers[1].billingPlanType: unknown billingPlanType 'WEEKLY'; read as BILLED_UPFRONT"
      ])
  }

  @Test func revocationTypeHasApplesStrings() {
    #expect(RevocationType.allCases.map(\.rawValue) == ["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"])
  }

  @Test func skErrorCodesHaveApplesNumbers() {
    #expect(SKErrorCode.allCases.map(\.code) == [0, 11, 12, 13, 14])
    #expect(SKErrorCode(code: 11) == .invalidOfferIdentifier)
    #expect(SKErrorCode(code: 2) == nil)
  }

  @Test func purchaseFailuresPrintAsBefore() {
    #expect(PurchaseFailure.invalidQuantity.description == "purchase.invalidQuantity")
    #expect(PurchaseFailure.invalidOfferIdentifier.description == "purchase.invalidOfferIdentifier")
    #expect(PurchaseFailure.ineligibleForOffer.description == "purchase.ineligibleForOffer")
    #expect(
      PurchaseFailure.simulated(SimulatedError(family: .generic, name: "networkError")).description
        == "generic.networkError")
    #expect(PurchaseFailure.skError(.missingOfferParams).description == "SKError.missingOfferParams")
  }

  @Test func simulatedErrorsAreWrittenKeyedByTheAPIsMemberName() throws {
    var settings = StoreKitSettings()
    settings.setSimulatedError(SimulatedError(family: .generic, name: "networkError"), forAPI: .loadProducts)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(settings.simulatedErrors), as: UTF8.self)
    #expect(json == #"{"loadProducts":{"family":"generic","name":"networkError"}}"#)
    let back = try JSONDecoder().decode([StoreKitAPI: SimulatedError].self, from: Data(json.utf8))
    #expect(back == settings.simulatedErrors)
    #expect(throws: (any Error).self) {
      try JSONDecoder().decode(
        [StoreKitAPI: SimulatedError].self, from: Data(#"{"nope":{"family":"generic","name":"unknown"}}"#.utf8))
    }
  }
}
