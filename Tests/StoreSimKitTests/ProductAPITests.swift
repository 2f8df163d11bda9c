import Foundation
import StoreSimKit
import StoreSimKitTesting
import Testing

/// Prices as the CLI and the wire show them, format styles, currencies, per-product
/// transactions, `Status.all` and `Storefront.updates`.
@Suite("Products, prices and statuses", .isolatedTestSession)
struct ProductAPITests {
  @Test(arguments: ["USA", "CAN", "HUN", "JPN", "FRA", "CHE"])
  func displayPriceIsTheWiresAndThePriceFormatStylesToo(storefront: String) async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    session.storefront = storefront
    let products = try await Product.products(for: ["nonconsumable.car", "subscription.pro"])
    let wire = try WirePrices.displayPrices(Kit.appleSample, storefront: storefront)
    for product in products {
      #expect(product.displayPrice == wire[product.id])
      #expect(product.price.formatted(product.priceFormatStyle) == product.displayPrice)
    }
    let pro = try #require(products.first { $0.id == "subscription.pro" })
    #expect(pro.subscription?.introductoryOffer?.displayPrice == wire["subscription.pro intro"])
  }

  @Test func pricesAndPeriodsFormatAsTheCLIDoes() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let car = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    #expect((car.price * 2).formatted(car.priceFormatStyle) == "$3.98")
    #expect(Decimal(string: "1234.5")!.formatted(car.priceFormatStyle) == "$1,234.50")
    session.storefront = "CAN"
    let canadian = try #require(try await Product.products(for: ["nonconsumable.car"]).first)
    #expect(canadian.displayPrice == "CA$1.99")
    session.storefront = "HUN"
    #expect(try await Product.products(for: ["nonconsumable.car"]).first?.displayPrice == "HUF 2")
    let pro = try #require(try await Product.products(for: ["subscription.pro"]).first)
    let period = try #require(pro.subscription?.subscriptionPeriod)
    #expect(period.formatted(pro.subscriptionPeriodFormatStyle) == "1 month")
    #expect(period.unit.formatted(pro.subscriptionPeriodUnitFormatStyle) == "month")
    let intro = try #require(pro.subscription?.introductoryOffer)
    #expect(intro.period.formatted(pro.subscriptionPeriodFormatStyle) == "2 months")
  }

  @Test func currenciesAndPerProductTransactions() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    let products = try await Product.products(for: [
      "nonconsumable.car", "subscription.standard", "nonconsumable.racecar",
    ])
    let car = try #require(products.first { $0.id == "nonconsumable.car" })
    let standard = try #require(products.first { $0.id == "subscription.standard" })
    let racecar = try #require(products.first { $0.id == "nonconsumable.racecar" })
    #expect(await car.latestTransaction == nil)
    #expect(await car.currentEntitlement == nil)
    let token = UUID()
    guard case .success(.verified(let t)) = try await car.purchase(options: [.appAccountToken(token)]) else {
      Issue.record("not bought"); return
    }
    #expect(t.currency == Locale.Currency("USD"))
    #expect(try await car.latestTransaction?.payloadValue.id == t.id)
    #expect(try await car.currentEntitlement?.payloadValue.id == t.id)
    #expect(await car.currentEntitlements.productIDs == [car.id])
    #expect(await racecar.currentEntitlements.isEmptySequence)

    _ = try await standard.purchase(options: [.appAccountToken(token)])
    let status = try #require(try await standard.subscription?.status.first)
    let info = try status.renewalInfo.payloadValue
    #expect(info.currency == Locale.Currency("USD"))
    #expect(info.appAccountToken == token)
    #expect(info.eligibleWinBackOfferIDs.isEmpty)
    #expect(await Storefront.current?.currency == Locale.Currency("USD"))

    var all: [(String, [Product.SubscriptionInfo.Status])] = []
    for await element in Product.SubscriptionInfo.Status.all { all.append((element.groupID, element.statuses)) }
    #expect(all.map(\.0) == [standard.subscription?.subscriptionGroupID])
    #expect(all.first?.1.map(\.state) == [.subscribed])
    try await session.setSimulatedError(.generic(.unknown), forAPI: .subscriptionStatus)
    var none = 0
    for await _ in Product.SubscriptionInfo.Status.all { none += 1 }
    #expect(none == 0)
  }

  @Test func storefrontUpdates() async throws {
    let session = try SKTestSession(contentsOf: Kit.appleSample)
    var updates = Storefront.updates.makeAsyncIterator()
    session.storefront = "FRA"
    session.storefront = "FRA"  // no change, no element
    session.resetToDefaultState()  // back to the configuration's USA
    let first = await updates.next()
    #expect(first?.countryCode == "FRA")
    #expect(first?.currency == Locale.Currency("EUR"))
    #expect(await updates.next()?.countryCode == "USA")
  }
}
