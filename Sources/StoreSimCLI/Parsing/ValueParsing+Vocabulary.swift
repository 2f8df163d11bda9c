import StoreSim

// What people type for the core's vocabulary: lenient spellings, accepted by the commands and
// scenarios. The core reads only its own formats.

extension RevocationReason {
  /// Parses `developer-issue`, `developerIssue`, `other`, `0`, `1`.
  init?(userInput: String) {
    switch userInput.lowercased().filter({ $0.isLetter || $0.isNumber }) {
    case "developerissue", "1": self = .developerIssue
    case "other", "0": self = .other
    default: return nil
    }
  }
}

extension OfferRequest {
  /// Parses `intro`, `promotional:ID`, `code:REF`, `win-back:ID`.
  init?(userInput: String) {
    let parts = userInput.split(separator: ":", maxSplits: 1).map(String.init)
    // An empty offer (`--offer=`) has no parts: it is no offer (it crashed the parser).
    guard let first = parts.first else { return nil }
    let kind = first.lowercased().filter(\.isLetter)
    let value = parts.count > 1 ? parts[1] : ""
    switch kind {
    case "intro", "introductory": self = .introductory
    case "promotional" where !value.isEmpty, "promo" where !value.isEmpty: self = .promotional(value)
    case "code" where !value.isEmpty, "offercode" where !value.isEmpty: self = .code(value)
    case "winback" where !value.isEmpty: self = .winBack(value)
    default: return nil
    }
  }
}

extension StoreEnvironment {
  /// Parses a name in any case.
  init?(userInput: String) {
    guard let e = Self.allCases.first(where: { $0.rawValue.lowercased() == userInput.lowercased() }) else { return nil }
    self = e
  }
}

extension ConsumptionRequestReason {
  /// Parses `unintended-purchase`, `UNINTENDED_PURCHASE`, `unintendedPurchase` and so on.
  init?(userInput: String) {
    let key = userInput.lowercased().filter { $0.isLetter }
    guard let r = Self.allCases.first(where: { $0.rawValue.lowercased().filter({ $0.isLetter }) == key }) else {
      return nil
    }
    self = r
  }
}

extension TimeRate {
  /// Parses a case name (any case, `-`/`_` ignored) or a raw number.
  init?(userInput: String) {
    if let number = Int(userInput) {
      guard let rate = TimeRate(rawValue: number) else { return nil }
      self = rate
      return
    }
    let key = userInput.lowercased().filter { $0.isLetter || $0.isNumber }
    guard let rate = TimeRate.allCases.first(where: { $0.name.lowercased() == key }) else { return nil }
    self = rate
  }
}

extension SimulatedError {
  /// Parses `name` or `family.name` for an API; nil when no family of the API has that case.
  init?(userInput: String, for api: StoreKitAPI) {
    let parts = userInput.split(separator: ".", maxSplits: 1).map(String.init)
    let wantedName = (parts.last ?? userInput).lowercased()
    let families =
      parts.count == 2
      ? api.families.filter { $0.rawValue.lowercased() == parts[0].lowercased() } : api.families
    for family in families {
      if let name = family.cases.first(where: { $0.lowercased() == wantedName }) {
        self.init(family: family, name: name)
        return
      }
    }
    return nil
  }
}

extension StoreKitAPI {
  /// Parses a member name (`loadProducts`), a file name (`Load Products`) or a kebab form.
  init?(userInput: String) { self.init(anyName: userInput) }
}

extension ProductType {
  /// Parses the StoreKit 2 name, the server name or the `.storekit` name, in any case.
  init?(userInput: String) { self.init(anyName: userInput) }
}
