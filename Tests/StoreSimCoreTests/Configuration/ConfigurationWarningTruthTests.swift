import Foundation
import Testing

@testable import StoreSim

/// Each warning the reader gives says what it did; these hold the reading to the words.
@Suite struct ConfigurationWarningTruthTests {
  func read(_ text: String) throws -> LoadedConfiguration {
    try ConfigurationReader.read(Array(text.utf8))
  }

  @Test func aRepeatedSettingKeyIsReadFromItsFirstOccurrenceAsTheWarningSays() throws {
    let loaded = try read(
      #"{"products":[],"subscriptionGroups":[],"settings":{"_storefront":"USA","_storefront":"FRA"},"version":{"major":3,"minor":0}}"#
    )
    #expect(loaded.configuration.settings.storefront == "USA")
    #expect(loaded.warnings.contains { $0.message.contains("appears more than once; the first one is used") })
  }

  @Test func aRepeatedTopLevelListIsReadOnceFromItsFirstOccurrence() throws {
    let product =
      #"{"productID":"@@","referenceName":"R","type":"Consumable","displayPrice":"0.99","familyShareable":false,"internalID":"1","localizations":[]}"#
    let loaded = try read(
      #"{"products":[\#(product.replacingOccurrences(of: "@@", with: "a"))],"products":[\#(product.replacingOccurrences(of: "@@", with: "b"))],"subscriptionGroups":[],"version":{"major":3,"minor":0}}"#
    )
    #expect(loaded.configuration.products.map(\.id) == ["a"])
    #expect(loaded.warnings.contains { $0.path == "products" && $0.message.contains("the first one is used") })
  }

  @Test func anUnreadableIsEligibleIsReadAsTrueAndTheWarningSaysTrue() throws {
    let loaded = try read(
      #"{"products":[],"subscriptionGroups":[{"id":"g","name":"G","localizations":[],"subscriptions":[{"productID":"s","referenceName":"S","type":"RecurringSubscription","displayPrice":"1.99","familyShareable":false,"internalID":"2","groupNumber":1,"recurringSubscriptionPeriod":"P1M","localizations":[],"subscriptionGroupID":"g","codeOffers":[],"adHocOffers":[],"winbackOffers":[{"offerID":"w","paymentMode":"free","subscriptionPeriod":"P1M","numberOfPeriods":1,"displayPrice":"0","isEligible":"maybe"}]}]}],"version":{"major":4,"minor":0}}"#
    )
    let offer = try #require(loaded.configuration.products.first?.subscription?.winBackOffers.first)
    #expect(offer.isEligible)
    let warning = try #require(loaded.warnings.first { $0.path.hasSuffix("isEligible") })
    #expect(warning.message.hasSuffix("read as true"))
  }

  @Test func anUnreadableSettingSwitchIsReadAsFalseAndTheWarningSaysFalse() throws {
    let loaded = try read(
      #"{"products":[],"subscriptionGroups":[],"settings":{"_askToBuyEnabled":"maybe"},"version":{"major":3,"minor":0}}"#
    )
    #expect(!loaded.configuration.settings.askToBuyEnabled)
    #expect(
      loaded.warnings.contains { $0.path == "settings._askToBuyEnabled" && $0.message.hasSuffix("read as false") })
  }
}
