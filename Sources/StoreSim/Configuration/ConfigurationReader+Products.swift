import Foundation

/// Reading products: ids, types, prices, localizations, family sharing.
extension Reader {
  mutating func readProduct(
    _ node: JSONNode, path: String, defaultType: ProductType?, forceType: Bool = false
  ) throws(ConfigurationIssue) -> Product? {
    guard let m = node.members else {
      warn(path, node.location, "a product is \(node.value.kindDescription), expected an object; skipped")
      return nil
    }
    warnDuplicateKeys(m, path: path)
    let id = try requireProductID(node, path: path)
    let type = readProductType(node, path: path, id: id, defaultType: defaultType, forceType: forceType)
    let subscription = type == .autoRenewable ? readHandMadeSubscription(node, path: path, id: id) : nil
    let (price, displayPrice) = readPrice(node, path: path, id: id)
    let shareable = readFamilyShareable(node, path: path)
    let localizations = readProductLocalizations(node, path: path, id: id)
    if type == .consumable && shareable {
      warn(
        "\(path).familyShareable", node["familyShareable"]?.location,
        "consumable '\(id)' is marked family shareable; consumables are never shared")
    }
    warnUnknownKeys(
      m,
      known: [
        "productID", "referenceName", "type", "displayPrice", "familyShareable", "familySharable",
        "internalID", "localizations", "promotionalImageID", "price", "currencyCode", "subscription",
        "description",
      ], path: path, what: "product")
    return Product(
      id: id, type: type, referenceName: string(node["referenceName"], path: "\(path).referenceName") ?? "",
      price: price, displayPrice: displayPrice,
      isFamilyShareable: shareable && type != .consumable && type != .nonRenewable,
      internalID: string(node["internalID"], path: "\(path).internalID") ?? "",
      localizations: localizations, subscription: subscription)
  }

  /// The product's `type`; `defaultType` when absent (a non-consumable when there is none), and
  /// always `defaultType` when `forceType` (the array the product is in decides).
  mutating func readProductType(
    _ node: JSONNode, path: String, id: ProductID, defaultType: ProductType?, forceType: Bool
  ) -> ProductType {
    var type = defaultType ?? .nonConsumable
    if let typeNode = node["type"], let raw = string(typeNode, path: "\(path).type") {
      let parsed = ProductType(anyName: raw)
      if forceType {
        if parsed != defaultType {
          warn(
            "\(path).type", typeNode.location,
            "type '\(raw)' in nonRenewingSubscriptions; the array wins: read as a non-renewing subscription")
        }
      } else if let parsed {
        type = parsed
        if !["Consumable", "NonConsumable", "NonRenewingSubscription"].contains(raw) {
          warn(
            "\(path).type", typeNode.location, "type '\(raw)' is not Xcode's spelling; read as \(parsed.storeKitName)")
        }
      } else {
        warn("\(path).type", typeNode.location, "unknown product type '\(raw)'; read as \(type.storeKitName)")
      }
    } else if node["type"] == nil && defaultType == nil {
      warn(path, node.location, "product '\(id)' has no 'type'; read as a non-consumable")
    }
    return type
  }

  /// The subscription of an auto-renewable declared in `products` (not Xcode's schema), in a
  /// group of its own at level 1.
  mutating func readHandMadeSubscription(_ node: JSONNode, path: String, id: ProductID) -> SubscriptionInfo {
    let sub = node["subscription"] ?? node
    let groupID = string(sub["subscriptionGroupID"], path: "\(path).subscriptionGroupID") ?? "\(id).group"
    let periodText = string(
      sub["subscriptionPeriod"] ?? sub["recurringSubscriptionPeriod"], path: "\(path).subscriptionPeriod")
    var period = SubscriptionPeriod(value: 1, unit: .month)
    if let periodText, let p = SubscriptionPeriod(iso8601: periodText) {
      period = p
    } else {
      warn(path, node.location, "auto-renewable product '\(id)' has no usable period; it renews monthly")
    }
    var intro: SubscriptionOffer?
    if let offer = sub["introductoryOffer"], offer.members != nil {
      // Hand-made form: {"type": "freeTrial", "duration": "P14D"}.
      let durationText = string(
        offer["duration"] ?? offer["subscriptionPeriod"], path: "\(path).subscription.introductoryOffer.duration")
      if let durationText, let d = SubscriptionPeriod(iso8601: durationText) {
        intro = SubscriptionOffer(type: .introductory, paymentMode: .freeTrial, period: d)
      }
    }
    warn(
      path, node.location,
      "auto-renewable product '\(id)' is declared outside subscriptionGroups (not Xcode's schema); the simulator puts it in group '\(groupID)' at level 1"
    )
    return SubscriptionInfo(groupID: groupID, groupLevel: 1, period: period, introductoryOffer: intro)
  }

  /// The product's localizations; a hand-made `description` alone makes an `en_US` one.
  mutating func readProductLocalizations(_ node: JSONNode, path: String, id: ProductID) -> [Localization] {
    var localizations = readLocalizations(node["localizations"], path: "\(path).localizations")
    if localizations.isEmpty, let description = string(node["description"], path: "\(path).description") {
      localizations = [
        Localization(
          locale: "en_US", displayName: string(node["referenceName"], path: "") ?? id, description: description)
      ]
    }
    return localizations
  }

  mutating func requireProductID(_ node: JSONNode, path: String) throws(ConfigurationIssue) -> ProductID {
    guard let idNode = node["productID"] ?? node["productId"] ?? node["id"] else {
      throw error(path, node.location, "product has no 'productID'")
    }
    if node["productID"] == nil {
      warn(
        path, idNode.location,
        "product id written as '\(node["productId"] != nil ? "productId" : "id")'; Xcode writes 'productID'")
    }
    guard case .string(let id) = idNode.value else {
      throw error(
        "\(path).productID", idNode.location, "productID is \(idNode.value.kindDescription), expected a string")
    }
    let trimmed = id.trimmingCharacters(in: .whitespaces)
    if trimmed.isEmpty { throw error("\(path).productID", idNode.location, "product has an empty 'productID'") }
    if trimmed != id {
      warn("\(path).productID", idNode.location, "product id '\(id)' has surrounding spaces; read as '\(trimmed)'")
    }
    return trimmed
  }

  mutating func readPrice(_ node: JSONNode, path: String, id: String) -> (Decimal, String) {
    if let priceNode = node["displayPrice"] {
      switch priceNode.value {
      case .string(let text):
        if let value = Self.decimal(text) {
          if text.contains(",") {
            warn("\(path).displayPrice", priceNode.location, "price '\(text)' uses a decimal comma; read as \(value)")
          }
          return (value, text)
        }
        warn(
          "\(path).displayPrice", priceNode.location,
          text.isEmpty
            ? "product '\(id)' has an empty price; the simulator charges 0"
            : "price '\(text)' is not a number; the simulator charges 0")
        return (0, text)
      case .number(let text):
        return (Self.decimal(text) ?? 0, text)
      default:
        warn(
          "\(path).displayPrice", priceNode.location,
          "price is \(priceNode.value.kindDescription); the simulator charges 0")
        return (0, "0")
      }
    }
    if let priceNode = node["price"] {
      let text: String?
      switch priceNode.value {
      case .number(let t), .string(let t): text = t
      default: text = nil
      }
      if let text, let value = Self.decimal(text) { return (value, text) }
    }
    warn(path, node.location, "product '\(id)' has no price; the simulator charges 0")
    return (0, "0")
  }

  /// Parses a decimal exactly: `4.99`, `4000`, `2,99`, `1e2`; nil otherwise.
  static func decimal(_ text: String) -> Decimal? {
    var t = text.trimmingCharacters(in: .whitespaces)
    if t.contains(",") && !t.contains(".") { t = t.replacingOccurrences(of: ",", with: ".") }
    guard !t.isEmpty, t.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
    guard let value = Decimal(string: t, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else { return nil }
    guard value >= 0, value < Decimal(1_000_000_000) else { return nil }
    return value
  }

  mutating func readFamilyShareable(_ node: JSONNode, path: String) -> Bool {
    if let n = node["familyShareable"] { return bool(n, path: "\(path).familyShareable") ?? false }
    if let n = node["familySharable"] {
      warn(
        "\(path).familySharable", n.location,
        "'familySharable' is a misspelling of 'familyShareable'; read as familyShareable")
      return bool(n, path: "\(path).familySharable") ?? false
    }
    if let n = node["isFamilyShareable"] { return bool(n, path: "\(path).isFamilyShareable") ?? false }
    return false
  }

  mutating func readLocalizations(_ node: JSONNode?, path: String) -> [Localization] {
    guard let node else { return [] }
    var result: [Localization] = []
    for (i, item) in array(node, path: path).enumerated() {
      guard item.members != nil else {
        warn("\(path)[\(i)]", item.location, "a localization is \(item.value.kindDescription); skipped")
        continue
      }
      var name = string(item["displayName"], path: "\(path)[\(i)].displayName")
      if name == nil, let alt = item["name"] {
        warn("\(path)[\(i)].name", alt.location, "localization uses 'name'; read as 'displayName'")
        name = string(alt, path: "\(path)[\(i)].name")
      }
      result.append(
        Localization(
          locale: string(item["locale"], path: "\(path)[\(i)].locale") ?? "en_US",
          displayName: name ?? "",
          description: string(item["description"], path: "\(path)[\(i)].description") ?? ""))
    }
    return result
  }
}
