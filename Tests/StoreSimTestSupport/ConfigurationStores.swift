import Foundation
import StoreSim

/// Stores the rule tests of the core and the session store's round trips both start from.
extension Fixtures {
  /// 2026-01-31T12:00:00Z: a start whose months end early (the anniversary rules).
  package static let jan31 = Date(timeIntervalSince1970: 1_769_860_800)

  /// A store over one of the project's configurations (`Configurations/NAME`), in Xcode.
  package static func store(configurationNamed name: String, start: Date = start) throws -> Store {
    let url = projectRoot.appendingPathComponent("Configurations/\(name)")
    let loaded = try ConfigurationReader.read(Array(try Data(contentsOf: url)))
    return Store(configuration: loaded.configuration, start: start)
  }

  /// A store whose only group holds one auto-renewable, `plan`, with this period and no offers.
  package static func planStore(period: String, start: Date = jan31, shareable: Bool = false) -> Store {
    let product = sub("plan", level: 1, period: period, price: Decimal(string: "9.99")!, shareable: shareable)
    let configuration = StoreConfiguration(
      identifier: "ANNIVERSARY", products: [product],
      subscriptionGroups: [SubscriptionGroup(id: group, name: "Premium", productIDs: ["plan"])])
    return Store(configuration: configuration, start: start)
  }
}
