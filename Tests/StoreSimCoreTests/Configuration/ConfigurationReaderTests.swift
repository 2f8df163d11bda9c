import Foundation
import Testing

@testable import StoreSim

@Suite struct ConfigurationReaderTests {
  func read(_ text: String) throws -> LoadedConfiguration {
    try ConfigurationReader.read(Array(text.utf8))
  }

  func readError(_ text: String) -> ConfigurationIssue? {
    do {
      _ = try ConfigurationReader.read(Array(text.utf8))
      return nil
    } catch {
      return error.issue
    }
  }

  func product(_ fields: String) -> String {
    #"{"version":{"major":3,"minor":0},"products":[{"productID":"p","referenceName":"P","type":"Consumable","displayPrice":"0.99","familyShareable":false,"internalID":"1","localizations":[]\#(fields)}],"subscriptionGroups":[]}"#
  }

  @Test func emptyXcodeDocumentDecodesToDefaults() throws {
    let loaded = try read(
      #"{"identifier":"A","products":[],"subscriptionGroups":[],"nonRenewingSubscriptions":[],"settings":{},"version":{"major":1,"minor":1}}"#
    )
    #expect(loaded.configuration.products.isEmpty)
    #expect(loaded.configuration.settings == StoreKitSettings())
    #expect(loaded.warnings.isEmpty)
    #expect(loaded.configuration.formatVersion?.description == "1.1")
  }

  @Test func notJSONIsAnErrorWithLineAndColumn() {
    let issue = readError("{\n  \"products\" : [\n    oops\n  ]\n}")
    #expect(issue?.severity == .error)
    #expect(issue?.location == TextLocation(line: 3, column: 5))
    #expect(issue?.message.contains("invalid JSON") == true)
  }

  @Test func topLevelArrayIsAnError() {
    #expect(readError("[1, 2]")?.message.contains("expected an object") == true)
  }

  @Test func emptyFileIsAnError() {
    #expect(readError("")?.message.contains("empty") == true)
  }

  @Test func xmlPropertyListAndBookmarkAreNamed() {
    #expect(readError("<?xml version=\"1.0\"?><plist></plist>")?.message.contains("XML property list") == true)
    #expect(readError("book\0\0\0\0mark")?.message.contains("bookmark") == true)
  }

  @Test func productWithoutIDIsAnErrorWithPath() {
    let issue = readError(#"{"version":{"major":3,"minor":0},"products":[{"type":"Consumable"}]}"#)
    #expect(issue?.path == "products[0]")
    #expect(issue?.message.contains("no 'productID'") == true)
  }

  @Test func pricesAreExactDecimalsIncludingCommaAndNumericForms() throws {
    #expect(try read(product("")).configuration.products[0].price == Decimal(string: "0.99")!)
    let comma = try read(product("").replacingOccurrences(of: "\"0.99\"", with: "\"2,99\""))
    #expect(comma.configuration.products[0].price == Decimal(string: "2.99")!)
    #expect(comma.warnings.contains { $0.message.contains("decimal comma") })
    let numeric = try read(product("").replacingOccurrences(of: "\"0.99\"", with: "4000"))
    #expect(numeric.configuration.products[0].price == 4000)
    let empty = try read(product("").replacingOccurrences(of: "\"0.99\"", with: "\"\""))
    #expect(empty.configuration.products[0].price == 0)
    #expect(empty.warnings.contains { $0.path == "products[0].displayPrice" })
  }

  @Test func unknownKeysAndMisspellingsAreWarningsWithPaths() throws {
    let loaded = try read(product(#","weird":1"#).replacingOccurrences(of: "familyShareable", with: "familySharable"))
    #expect(loaded.warnings.contains { $0.path == "products[0].weird" && $0.severity == .warning })
    #expect(loaded.warnings.contains { $0.message.contains("familySharable") })
  }

  @Test func lowercaseTypeIsReadWithAWarning() throws {
    let loaded = try read(product("").replacingOccurrences(of: "\"Consumable\"", with: "\"consumable\""))
    #expect(loaded.configuration.products[0].type == .consumable)
    #expect(loaded.warnings.contains { $0.path == "products[0].type" })
  }

  @Test func duplicateProductIDsWarnAndFirstWins() throws {
    let text =
      #"{"version":{"major":3,"minor":0},"products":[{"productID":"p","type":"Consumable","displayPrice":"1"},{"productID":"p","type":"NonConsumable","displayPrice":"2"}]}"#
    let loaded = try read(text)
    #expect(loaded.configuration.products.count == 1)
    #expect(loaded.configuration.products[0].type == .consumable)
    #expect(
      loaded.warnings.contains {
        $0.message.contains("duplicate product id 'p'") && $0.message.contains("uses the first")
      })
  }

  static let groupFile = #"""
    {"version":{"major":5,"minor":0},"products":[],"subscriptionGroups":[{"id":"G","name":"Gold","localizations":[],"subscriptions":[
      {"productID":"a","localizations":[{"locale":"en_US","displayName":"A","description":""}],"type":"Recurring Subscription","displayPrice":"1.99","groupNumber":2,"recurringSubscriptionPeriod":"P1M","subscriptionGroupID":"OTHER",
       "introductoryOffer":{"paymentMode":"free","subscriptionPeriod":"P1W"},
       "introductoryOffers":[{"paymentMode":"payUpFront","subscriptionPeriod":"P2M","displayPrice":"0.99","billingPlanType":"BILLED_UPFRONT"}],
       "adHocOffers":[{"offerID":"$4 for month","paymentMode":"payAsYouGo","subscriptionPeriod":"P1M","numberOfPeriods":3,"displayPrice":"4"}],
       "codeOffers":[{"referenceName":"CODE","paymentMode":"free","subscriptionPeriod":"P3D","eligibility":["expired","new"],"isStackable":true}],
       "winbackOffers":[{"offerID":"wb","paymentMode":"free","subscriptionPeriod":"P1M","isEligible":true}]},
      {"productID":"b","type":"RecurringSubscription","displayPrice":"2.99","groupNumber":2,"recurringSubscriptionPeriod":"P1Y",
       "introductoryOffer":{"paymentMode":"none","subscriptionPeriod":"P1W","displayPrice":"1"}}
    ]}],"settings":{"_locale":"de","_storefront":"XYZ","_timeRate":99,"_compatibilityTimeRate":{"3":6},
      "_storeKitErrors":[{"name":"Purchase","enabled":true,"current":{"index":1,"type":"generic"}},{"name":"Load Products","enabled":false,"current":null},{"name":"cycleError","enabled":false}]}}
    """#

  @Test func subscriptionsGroupsOffersAndSettingsAreRead() throws {
    let loaded = try read(Self.groupFile)
    let c = loaded.configuration
    let a = try #require(c.product("a")?.subscription)
    #expect(a.groupID == "G")
    #expect(a.groupLevel == 2)
    #expect(a.period == SubscriptionPeriod(value: 1, unit: .month))
    #expect(a.introductoryOffer?.paymentMode == .payUpFront)  // the 5.0 array wins
    #expect(a.introductoryOffer?.price == Decimal(string: "0.99")!)
    #expect(a.promotionalOffers.first?.id == "$4 for month")
    #expect(a.promotionalOffers.first?.periodCount == 3)
    #expect(a.offerCodes.first?.eligibility == [.expired, .new])
    #expect(a.winBackOffers.first?.isEligible == true)
    #expect(c.product("b")?.subscription?.introductoryOffer == nil)
    #expect(c.subscriptionGroups.map(\.productIDs) == [["a", "b"]])
    #expect(c.settings.storefront == "USA")
    #expect(c.settings.timeRate == .oneSecondIsOneDay)
    #expect(c.settings.simulatedError(forAPI: .purchase) == SimulatedError(family: .generic, name: "networkError"))
    let messages = loaded.warnings.map(\.message)
    #expect(messages.contains { $0.contains("unknown storefront 'XYZ'; the simulator uses USA") })
    #expect(messages.contains { $0.contains("no product has a localization for locale 'de'") })
    #expect(messages.contains { $0.contains("unknown time rate code 99") })
    #expect(messages.contains { $0.contains("share level 2") })
    #expect(messages.contains { $0.contains("'none'") })
    #expect(messages.contains { $0.contains("Recurring Subscription") })
    #expect(messages.contains { $0.contains("subscriptionGroupID 'OTHER'") })
    #expect(messages.contains { $0.contains("cycleError") })
  }

  @Test func legacySingleStoreKitErrorIsRead() throws {
    let loaded = try read(
      #"{"version":{"major":1,"minor":1},"products":[],"settings":{"_failTransactionsEnabled":true,"_storeKitError":12}}"#
    )
    #expect(loaded.configuration.settings.failTransactionsEnabled)
    #expect(loaded.configuration.settings.failureError == .invalidSignature)
  }

  @Test func newerMajorVersionLoadsWithAWarning() throws {
    let loaded = try read(#"{"version":{"major":9,"minor":1},"products":[]}"#)
    #expect(loaded.warnings.contains { $0.message.contains("newer than storesim knows") })
  }

  @Test func handWrittenForeignSchemaIsSalvagedWithWarnings() throws {
    let loaded = try read(
      #"{"version":1,"products":[{"productID":"m","type":"auto-renewable-subscription","price":11.99,"currencyCode":"PLN","subscription":{"subscriptionGroupID":"g","subscriptionPeriod":"P1M","introductoryOffer":{"type":"freeTrial","duration":"P14D"}}}],"nonConsumables":[{"productID":"n","type":"nonConsumable","displayPrice":"2.99","description":"x"}]}"#
    )
    let c = loaded.configuration
    #expect(c.product("m")?.type == .autoRenewable)
    #expect(c.product("m")?.price == Decimal(string: "11.99")!)
    #expect(c.product("m")?.subscription?.introductoryOffer?.period == SubscriptionPeriod(value: 14, unit: .day))
    #expect(c.product("n")?.type == .nonConsumable)
    #expect(c.subscriptionGroups.map(\.id) == ["g"])
    #expect(loaded.warnings.contains { $0.message.contains("not Xcode's {major, minor} object") })
  }

  @Test func duplicateJSONKeysAreWarnings() throws {
    let loaded = try read(#"{"version":{"major":3,"minor":0},"products":[],"products":[]}"#)
    #expect(loaded.warnings.contains { $0.message.contains("appears more than once") })
  }

  @Test func deepNestingIsRefusedNotACrash() {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    #expect(readError(deep)?.message.contains("nesting deeper") == true)
  }

  @Test func invalidUTF8IsAnError() {
    var bytes = Array(#"{"identifier":""#.utf8)
    bytes += [0xFF, 0xFE]
    bytes += Array(#""}"#.utf8)
    do {
      _ = try ConfigurationReader.read(bytes)
      Issue.record("expected an error")
    } catch {
      #expect(error.issue.message.contains("UTF-8"))
    }
  }

  @Test func localizationFallsBackToLanguageThenEnglishThenFirst() {
    let p = Product(
      id: "x", type: .consumable, price: 1,
      localizations: [
        Localization(locale: "fr", displayName: "Bonjour", description: ""),
        Localization(locale: "en_US", displayName: "Hello", description: ""),
        Localization(locale: "ja_JP", displayName: "こんにちは", description: ""),
      ])
    #expect(p.localization(for: "ja")?.displayName == "こんにちは")
    #expect(p.localization(for: "fr_CA")?.displayName == "Bonjour")
    #expect(p.localization(for: "de")?.displayName == "Hello")
  }

  @Test func storeConfigurationRoundTripsThroughCodable() throws {
    let c = try read(Self.groupFile).configuration
    let data = try JSONEncoder().encode(c)
    #expect(try JSONDecoder().decode(StoreConfiguration.self, from: data) == c)
  }
}
