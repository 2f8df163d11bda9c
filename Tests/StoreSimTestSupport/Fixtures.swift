import Foundation
import StoreSim

/// A small catalogue exercising every product type and offer kind.
package enum Fixtures {
  static let group = "G1"
  package static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
  /// The repository's root folder (Configurations/, docs/, Scripts/ are read from it).
  static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func sub(
    _ id: String, level: Int, period: String, price: Decimal, intro: SubscriptionOffer? = nil,
    promos: [SubscriptionOffer] = [], codes: [SubscriptionOffer] = [], winBack: [SubscriptionOffer] = [],
    shareable: Bool = false
  ) -> Product {
    Product(
      id: id, type: .autoRenewable, price: price, isFamilyShareable: shareable,
      subscription: SubscriptionInfo(
        groupID: group, groupLevel: level, period: SubscriptionPeriod(iso8601: period)!,
        introductoryOffer: intro, promotionalOffers: promos, offerCodes: codes, winBackOffers: winBack))
  }

  package static let configuration: StoreConfiguration = {
    let trial = SubscriptionOffer(
      type: .introductory, paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .week))
    let promo = SubscriptionOffer(
      type: .promotional, id: "promo.half", paymentMode: .payAsYouGo,
      period: SubscriptionPeriod(value: 1, unit: .month), periodCount: 3, price: Decimal(string: "4.99")!)
    let code = SubscriptionOffer(
      type: .code, id: "FREEMONTH", paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .month),
      eligibility: [.new, .existing, .expired])
    let winBack = SubscriptionOffer(
      type: .winBack, id: "wb.free", paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .month))
    let products = [
      Product(id: "car", type: .nonConsumable, price: Decimal(string: "1.99")!, isFamilyShareable: true),
      Product(id: "fuel", type: .consumable, price: Decimal(string: "0.99")!),
      Product(id: "pass", type: .nonRenewable, price: Decimal(string: "9.99")!),
      sub(
        "monthly", level: 2, period: "P1M", price: Decimal(string: "9.99")!, intro: trial, promos: [promo],
        codes: [code], winBack: [winBack], shareable: true),
      sub(
        "yearly", level: 2, period: "P1Y", price: Decimal(string: "79.99")!,
        intro: SubscriptionOffer(
          type: .introductory, paymentMode: .freeTrial, period: SubscriptionPeriod(value: 2, unit: .week))),
      sub("pro", level: 1, period: "P1M", price: Decimal(string: "14.99")!, shareable: true),
      sub("basic", level: 3, period: "P1M", price: Decimal(string: "4.99")!),
      sub("monthly.alt", level: 2, period: "P1M", price: Decimal(string: "8.99")!),
      sub("weekly", level: 3, period: "P1W", price: Decimal(string: "1.99")!),
    ]
    return StoreConfiguration(
      identifier: "TEST", products: products,
      subscriptionGroups: [
        SubscriptionGroup(
          id: group, name: "Premium", productIDs: products.filter { $0.type == .autoRenewable }.map(\.id))
      ])
  }()

  static func store(
    _ configure: (inout StoreKitSettings) -> Void = { _ in }, environment: StoreEnvironment = .xcode
  ) -> Store {
    var store = Store(configuration: configuration, start: start, environment: environment)
    configure(&store.settings)
    return store
  }

  static func days(_ n: Double) -> TimeInterval { n * 86_400 }
}

extension Store {
  /// The customer's own status in the fixture group.
  func status(_ customer: CustomerID = .default) -> SubscriptionStatus? {
    statuses(forGroup: Fixtures.group, customer: customer).first { !$0.isFamilyShared }
  }
}
