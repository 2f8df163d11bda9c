import Foundation

/// Reading the settings: storefront, locale, time rate, simulated errors.
extension Reader {
  /// Time rate codes as the file wrote them, resolved after every setting is read.
  struct TimeRateCodes {
    var compatibility: TimeRate?
    var raw: (code: Int, location: TextLocation)?
  }

  mutating func readSettings(_ node: JSONNode, products: [Product]) -> StoreKitSettings {
    var s = StoreKitSettings()
    guard let m = node.members else {
      warn("settings", node.location, "settings is \(node.value.kindDescription), expected an object; defaults used")
      return s
    }
    warnDuplicateKeys(m, path: "settings")
    var rates = TimeRateCodes()
    for member in firstOccurrences(m) {
      readSetting(member, into: &s, rates: &rates)
    }
    s.timeRate = resolveTimeRate(rates) ?? s.timeRate
    if let locale = node["_locale"] {
      warnIfNoProductIsLocalized(for: s.locale, at: locale.location, products: products)
    }
    return s
  }

  /// One member of `settings`.
  mutating func readSetting(_ member: JSONMember, into s: inout StoreKitSettings, rates: inout TimeRateCodes) {
    let path = "settings.\(member.key)"
    let v = member.value
    switch member.key {
    case "_storefront":
      if let code = string(v, path: path) {
        if Storefront.named(code) != nil {
          s.storefront = code.uppercased()
        } else {
          warn(path, v.location, "unknown storefront '\(code)'; the simulator uses USA")
        }
      }
    case "_locale":
      if let locale = string(v, path: path) { s.locale = locale }
    case "_timeRate":
      if let n = int(v, path: path) { rates.raw = (n, v.location) }
    case "_compatibilityTimeRate":
      if let inner = v.members?.first {
        rates.compatibility = int(inner.value, path: "\(path).\(inner.key)").flatMap(TimeRate.init(rawValue:))
      } else if let n = int(v, path: path) {
        rates.compatibility = TimeRate(rawValue: n)
      }
    case "_askToBuyEnabled": s.askToBuyEnabled = bool(v, path: path) ?? false
    case "_billingIssuesEnabled": s.interruptedPurchasesEnabled = bool(v, path: path) ?? false
    case "_renewalBillingIssuesEnabled": s.shouldEnterBillingRetryOnRenewal = bool(v, path: path) ?? false
    case "_billingGracePeriodEnabled": s.billingGracePeriodIsEnabled = bool(v, path: path) ?? false
    case "_disableDialogs": s.disableDialogs = bool(v, path: path) ?? false
    case "_failTransactionsEnabled": s.failTransactionsEnabled = bool(v, path: path) ?? false
    case "_storeKitError":
      if let code = int(v, path: path) {
        if let error = SKErrorCode(code: code) {
          s.failureError = error
        } else {
          warn(
            path, v.location,
            "unknown SKError code \(code); purchases fail with 'unknown' when failing transactions is on")
        }
      }
    case "_storeKitErrors":
      for (i, entry) in array(v, path: path).enumerated() {
        readStoreKitError(entry, path: "\(path)[\(i)]", into: &s)
      }
    case "_applicationInternalID", "_developerTeamID", "_lastSynchronizedDate",
      "_shouldSetupSyncOnLoad", "_lastCheckoutTimestamp":
      break
    default:
      warn(path, member.keyLocation, "unknown setting '\(member.key)'; ignored")
    }
  }

  /// `_timeRate` when known; an unknown code falls back to `_compatibilityTimeRate` or real time.
  mutating func resolveTimeRate(_ rates: TimeRateCodes) -> TimeRate? {
    guard let (code, location) = rates.raw else { return rates.compatibility }
    if let rate = TimeRate(rawValue: code) { return rate }
    let fallback = rates.compatibility ?? .realTime
    warn(
      "settings._timeRate", location,
      "unknown time rate code \(code); the simulator uses \(fallback.name) (\(fallback.rawValue))")
    return fallback
  }

  /// A `_locale` no localized product speaks is worth a warning.
  mutating func warnIfNoProductIsLocalized(for locale: String, at location: TextLocation, products: [Product]) {
    let localized = products.filter { !$0.localizations.isEmpty }
    let wanted = Product.language(of: locale) ?? locale
    let matches = localized.contains { p in p.localizations.contains { Product.language(of: $0.locale) == wanted } }
    if !localized.isEmpty && !matches {
      warn(
        "settings._locale", location,
        "no product has a localization for locale '\(locale)'; products show their en_US localization, or their first one"
      )
    }
  }

  mutating func readStoreKitError(_ entry: JSONNode, path: String, into s: inout StoreKitSettings) {
    guard entry.members != nil, let name = string(entry["name"], path: "\(path).name") else {
      warn(path, entry.location, "a _storeKitErrors entry has no name; ignored")
      return
    }
    let api = StoreKitAPI(rawValue: name) ?? StoreKitAPI(anyName: name)
    guard let api else {
      warn("\(path).name", entry["name"]?.location, "unknown StoreKit API '\(name)' in _storeKitErrors; ignored")
      return
    }
    guard bool(entry["enabled"], path: "\(path).enabled") == true else { return }
    guard let current = entry["current"], current.members != nil,
      let typeName = string(current["type"], path: "\(path).current.type"),
      let index = int(current["index"], path: "\(path).current.index")
    else {
      warn(
        path, entry.location,
        "simulated error for '\(name)' is enabled without a chosen error; it fails with generic.unknown")
      s.setSimulatedError(SimulatedError(family: .generic, name: "unknown"), forAPI: api)
      return
    }
    guard
      let family = SimulatedError.Family.allCases.first(where: { $0.fileName == typeName || $0.rawValue == typeName }),
      api.families.contains(family)
    else {
      warn(
        "\(path).current.type", current.location,
        "error type '\(typeName)' does not apply to '\(name)'; it fails with generic.unknown")
      s.setSimulatedError(SimulatedError(family: .generic, name: "unknown"), forAPI: api)
      return
    }
    let cases = family.cases
    let caseName = (0..<cases.count).contains(index) ? cases[index] : cases[0]
    if !(0..<cases.count).contains(index) {
      warn(
        "\(path).current.index", current.location,
        "error index \(index) is out of range for \(family.rawValue); using \(cases[0])")
    }
    s.setSimulatedError(SimulatedError(family: family, name: caseName), forAPI: api)
  }
}
