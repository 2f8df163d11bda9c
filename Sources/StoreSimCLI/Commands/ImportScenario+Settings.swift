import Foundation
import StoreSim

extension ImportScenario {
  /// The `settings` lines that give a fresh session of the same configuration this store's
  /// settings: one for each key whose value differs from what `init` leaves (the configuration's
  /// settings, no notification URL, no delivery faults, strict eligibility off), in the order
  /// `settings` lists the keys. `deliver-url` is covered by the two environments' URLs.
  static func settingsLines(_ store: Store) -> [String] {
    var fresh = store
    fresh.settings = store.configuration.settings
    fresh.setDeliveryURL(nil, production: true)
    fresh.setDeliveryURL(nil, production: false)
    fresh.setDeliveryFaults(nil)
    fresh.strictIntroductoryOfferEligibility = false
    var lines: [String] = []
    for key in SettingKey.allCases where key != .deliverURL && key.value(store) != key.value(fresh) {
      lines += commands(key, store, fresh).map { words in
        (["settings", key.rawValue] + words).map(quoted).joined(separator: " ")
      }
    }
    return lines
  }

  /// The values of `settings KEY ...` that set the key as `store` has it.
  private static func commands(_ key: SettingKey, _ store: Store, _ fresh: Store) -> [[String]] {
    let s = store.settings
    switch key {
    case .timeRate: return [[s.timeRate.name]]
    case .deliverURL: return []
    case .deliverURLProduction: return [[store.deliveryURL(production: true) ?? "off"]]
    case .deliverURLSandbox: return [[store.deliveryURL(production: false) ?? "off"]]
    case .deliveryFaults:
      return [store.state.deliveryFaults.map { $0.words.split(separator: " ").map(String.init) } ?? ["off"]]
    case .error:
      return StoreKitAPI.allCases.compactMap { api in
        let error = s.simulatedError(forAPI: api)
        guard error != fresh.settings.simulatedError(forAPI: api) else { return nil }
        return [api.name, error.map { "\($0)" } ?? "none"]
      }
    case .failTransactions: return [[s.failTransactionsEnabled ? s.failureError.rawValue : "off"]]
    case .askToBuy, .interruptedPurchases, .billingRetry, .gracePeriod, .storefront, .locale, .disableDialogs,
      .strictEligibility:
      return [[key.value(store)]]
    }
  }
}
