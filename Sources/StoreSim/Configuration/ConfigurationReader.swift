import Foundation

/// Reads `.storekit` files of every format version (1.0 … 6.x), leniently.
///
/// Unknown keys, unknown enum values, hand-written variants and misspellings seen in real files
/// become warnings with their JSON path; only data that cannot mean anything (not JSON, not an
/// object, a product without an id) is an error. See `storekit-config-format.md`.
public enum ConfigurationReader {
  /// The newest format major version storesim knows.
  public static let newestKnownMajorVersion = 6

  /// Reads a configuration from the bytes of a `.storekit` file.
  public static func read(_ bytes: some Collection<UInt8>) throws(ConfigurationError) -> LoadedConfiguration {
    var reader = Reader()
    do {
      let configuration = try reader.readDocument(Array(bytes))
      return LoadedConfiguration(configuration: configuration, warnings: reader.warnings)
    } catch {
      throw ConfigurationError(issue: error, warnings: reader.warnings)
    }
  }
}

private struct Reader {
  var warnings: [ConfigurationIssue] = []

  mutating func warn(_ path: String, _ location: TextLocation?, _ message: String) {
    warnings.append(ConfigurationIssue(severity: .warning, path: path, location: location, message: message))
  }

  func error(_ path: String, _ location: TextLocation?, _ message: String) -> ConfigurationIssue {
    ConfigurationIssue(severity: .error, path: path, location: location, message: message)
  }

  // MARK: Document

  /// The products and groups read so far, in file order.
  struct Catalogue {
    /// Each product with the JSON path and location it was read at.
    var products: [(product: Product, path: String, location: TextLocation)] = []
    var groups: [SubscriptionGroup] = []
    var groupOrder: [SubscriptionGroupID: Int] = [:]
    var unsupported: [ProductID] = []

    mutating func addProduct(_ product: Product, path: String, location: TextLocation) {
      products.append((product, path, location))
    }

    /// Adds a subscription to its group, creating the group (named `name`, or its id) when new.
    mutating func addToGroup(_ product: Product, name: String?) {
      guard let info = product.subscription else { return }
      if let i = groupOrder[info.groupID] {
        groups[i].productIDs.append(product.id)
      } else {
        groupOrder[info.groupID] = groups.count
        groups.append(SubscriptionGroup(id: info.groupID, name: name ?? info.groupID, productIDs: [product.id]))
      }
    }
  }

  static let knownTopLevelKeys: Set<String> = [
    "version", "identifier", "products", "nonRenewingSubscriptions", "subscriptionGroups",
    "settings", "appPolicies", "subscriptionOffersKeyPair", "subscriptionBundleGroups",
    "subscriptionSuiteGroups",
  ]

  mutating func readDocument(_ bytes: [UInt8]) throws(ConfigurationIssue) -> StoreConfiguration {
    let (root, members) = try readRoot(bytes)
    warnDuplicateKeys(members, path: "")
    let formatVersion = readFormatVersion(root)
    var catalogue = Catalogue()
    for member in members {
      try readTopLevelMember(member, into: &catalogue)
    }
    groupHandMadeSubscriptions(&catalogue)
    warnDuplicateProductIDs(catalogue.products)
    let products = catalogue.products.map(\.product)
    warnSharedLevels(catalogue)
    var groups = catalogue.groups
    for i in groups.indices {
      var seen = Set<ProductID>()
      groups[i].productIDs = groups[i].productIDs.filter { seen.insert($0).inserted }
    }
    let settings = root["settings"].map { readSettings($0, products: products) } ?? StoreKitSettings()
    return StoreConfiguration(
      identifier: string(root["identifier"], path: "identifier"),
      formatVersion: formatVersion,
      products: products,
      subscriptionGroups: groups,
      settings: settings,
      unsupportedProductIDs: catalogue.unsupported
    )
  }

  /// The document's top-level object, or why the bytes are not a configuration.
  func readRoot(_ bytes: [UInt8]) throws(ConfigurationIssue) -> (JSONNode, [JSONMember]) {
    if let kind = Self.foreignFormat(bytes) {
      throw error("", TextLocation(line: 1, column: 1), "not a StoreKit configuration: this is \(kind), not JSON")
    }
    let root: JSONNode
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw self.error("", error.location, "not a StoreKit configuration: invalid JSON: \(error.message)")
    }
    guard let members = root.members else {
      throw error(
        "", root.location,
        "not a StoreKit configuration: the top level is \(root.value.kindDescription), expected an object")
    }
    return (root, members)
  }

  /// `version`: Xcode's `{major, minor}` object; other shapes are warned about and read as the newest format.
  mutating func readFormatVersion(_ root: JSONNode) -> StoreConfiguration.FormatVersion? {
    switch root["version"]?.value {
    case .object?:
      let node = root["version"]!
      let major = int(node["major"], path: "version.major")
      let minor = int(node["minor"], path: "version.minor")
      guard let major else {
        warn("version", node.location, "version has no integer 'major'; reading the file as the newest known format")
        return nil
      }
      if major > ConfigurationReader.newestKnownMajorVersion {
        warn(
          "version", node.location,
          "format version \(major).\(minor ?? 0) is newer than storesim knows (up to \(ConfigurationReader.newestKnownMajorVersion).x); known keys are read, the rest is ignored"
        )
      }
      return .init(major: major, minor: minor ?? 0)
    case .number(let text)?:
      warn(
        "version", root["version"]?.location,
        "version is the bare number \(text), not Xcode's {major, minor} object: this file was written by hand in another schema; storesim reads the products it recognises"
      )
    case nil:
      warn("", root.location, "the file has no 'version'; reading it as the newest known format")
    default:
      warn(
        "version", root["version"]?.location,
        "version is \(root["version"]!.value.kindDescription), expected an object; ignored")
    }
    return nil
  }

  /// One top-level key: product lists, subscription groups, and keys that are warned about.
  mutating func readTopLevelMember(_ member: JSONMember, into catalogue: inout Catalogue) throws(ConfigurationIssue) {
    let key = member.key
    let path = key
    switch key {
    case "products":
      try readProductList(member.value, path: path, defaultType: nil, into: &catalogue)
    case "nonRenewingSubscriptions", "nonRenewableSubscriptions":
      if key == "nonRenewableSubscriptions" {
        warn(
          path, member.keyLocation,
          "'nonRenewableSubscriptions' is a misspelling of 'nonRenewingSubscriptions'; read as non-renewing subscriptions"
        )
      }
      try readProductList(member.value, path: path, defaultType: .nonRenewable, forceType: true, into: &catalogue)
    case "nonConsumableProducts", "nonConsumables":
      warn(
        path, member.keyLocation,
        "'\(key)' is not a key Xcode writes; its entries are read as non-consumable products")
      try readProductList(member.value, path: path, defaultType: .nonConsumable, into: &catalogue)
    case "subscriptionGroups":
      for (gi, groupNode) in array(member.value, path: path).enumerated() {
        try readSubscriptionGroup(groupNode, path: "\(path)[\(gi)]", number: gi + 1, into: &catalogue)
      }
    case "subscriptionSuiteGroups":
      readSubscriptionSuites(member.value, path: path, into: &catalogue)
    case "subscriptionBundleGroups":
      if case .array(let items) = member.value.value, !items.isEmpty {
        warn(
          path, member.value.location,
          "subscription bundles (iOS 27) are not simulated; \(items.count) entries ignored")
      }
    case "nonConsumableIAPIdentifiers", "subscriptions", "bundleID":
      warn(path, member.keyLocation, "'\(key)' is not a key Xcode writes; ignored")
    default:
      if !Self.knownTopLevelKeys.contains(key) {
        warn(path, member.keyLocation, "unknown key '\(key)'; ignored")
      }
    }
  }

  mutating func readProductList(
    _ node: JSONNode, path: String, defaultType: ProductType?, forceType: Bool = false,
    into catalogue: inout Catalogue
  ) throws(ConfigurationIssue) {
    for (i, node) in array(node, path: path).enumerated() {
      if let p = try readProduct(node, path: "\(path)[\(i)]", defaultType: defaultType, forceType: forceType) {
        catalogue.addProduct(p, path: "\(path)[\(i)]", location: node.location)
      }
    }
  }

  /// One entry of `subscriptionGroups`: the group (the `number`th; a missing id is named after it)
  /// and its subscriptions.
  mutating func readSubscriptionGroup(
    _ groupNode: JSONNode, path gpath: String, number: Int, into catalogue: inout Catalogue
  ) throws(ConfigurationIssue) {
    guard let gm = groupNode.members else {
      warn(
        gpath, groupNode.location,
        "a subscription group is \(groupNode.value.kindDescription), expected an object; skipped")
      return
    }
    warnDuplicateKeys(gm, path: gpath)
    var groupID = string(groupNode["id"], path: "\(gpath).id") ?? ""
    if groupID.isEmpty {
      groupID = "group\(number)"
      warn(gpath, groupNode.location, "subscription group has no 'id'; the simulator calls it '\(groupID)'")
    }
    let name = string(groupNode["name"], path: "\(gpath).name") ?? groupID
    let localizations = readLocalizations(groupNode["localizations"], path: "\(gpath).localizations")
    warnUnknownKeys(
      gm, known: ["id", "name", "localizations", "subscriptions"], path: gpath, what: "subscription group")
    if let existing = catalogue.groupOrder[groupID] {
      warn(
        "\(gpath).id", groupNode["id"]?.location,
        "subscription group id '\(groupID)' appears twice; its members join the first group '\(catalogue.groups[existing].name)'"
      )
    } else {
      catalogue.groupOrder[groupID] = catalogue.groups.count
      catalogue.groups.append(SubscriptionGroup(id: groupID, name: name, localizations: localizations, productIDs: []))
    }
    for (si, node) in array(groupNode["subscriptions"], path: "\(gpath).subscriptions").enumerated() {
      let spath = "\(gpath).subscriptions[\(si)]"
      if let p = try readSubscription(node, path: spath, groupID: groupID) {
        catalogue.addProduct(p, path: spath, location: node.location)
        if let i = catalogue.groupOrder[groupID] { catalogue.groups[i].productIDs.append(p.id) }
      }
    }
  }

  /// `subscriptionSuiteGroups` (iOS 27): listed as unsupported, never sold.
  mutating func readSubscriptionSuites(_ node: JSONNode, path: String, into catalogue: inout Catalogue) {
    for (gi, groupNode) in array(node, path: path).enumerated() {
      for (si, node) in array(groupNode["subscriptions"], path: "\(path)[\(gi)].subscriptions").enumerated() {
        let id = string(node["productID"], path: "\(path)[\(gi)].subscriptions[\(si)].productID") ?? "?"
        catalogue.unsupported.append(id)
        warn(
          "\(path)[\(gi)].subscriptions[\(si)]", node.location,
          "subscription suite '\(id)' (iOS 27) is not simulated; it is listed as unsupported and cannot be bought")
      }
    }
  }

  /// Hand-made products that declared themselves auto-renewable carry their own group.
  func groupHandMadeSubscriptions(_ catalogue: inout Catalogue) {
    for (product, _, _) in catalogue.products {
      guard let groupID = product.subscription?.groupID else { continue }
      if let i = catalogue.groupOrder[groupID], catalogue.groups[i].productIDs.contains(product.id) { continue }
      catalogue.addToGroup(product, name: nil)
    }
  }

  /// Duplicate ids: the first wins.
  mutating func warnDuplicateProductIDs(_ products: [(product: Product, path: String, location: TextLocation)]) {
    var firstPath: [ProductID: String] = [:]
    for (product, path, location) in products {
      if let earlier = firstPath[product.id] {
        warn(
          path, location, "duplicate product id '\(product.id)' (first at \(earlier)); the simulator uses the first one"
        )
      } else {
        firstPath[product.id] = path
      }
    }
  }

  /// Products sharing a level in a group: a crossgrade between them, worth a warning.
  mutating func warnSharedLevels(_ catalogue: Catalogue) {
    let products = catalogue.products
    for (groupIndex, group) in catalogue.groups.enumerated() {
      var byLevel: [Int: [ProductID]] = [:]
      for id in group.productIDs {
        if let level = products.first(where: { $0.product.id == id })?.product.subscription?.groupLevel {
          if !(byLevel[level]?.contains(id) ?? false) { byLevel[level, default: []].append(id) }
        }
      }
      for (level, ids) in byLevel.sorted(by: { $0.key < $1.key }) where ids.count > 1 {
        let list = ids.map { "'\($0)'" }.joined(separator: ", ")
        let message =
          "in group '\(group.name)' \(list) share level \(level): switching between them is a crossgrade (immediate when their periods match, at the next renewal otherwise)"
        // Located at the second product of the level: the one that makes it shared.
        if let second = products.first(where: { $0.product.id == ids[1] }) {
          warn(second.path, second.location, message)
        } else {
          warn("subscriptionGroups[\(groupIndex)]", nil, message)
        }
      }
    }
  }

  static func foreignFormat(_ bytes: [UInt8]) -> String? {
    if bytes.starts(with: Array("book".utf8)) { return "a binary macOS bookmark (alias) file" }
    if bytes.starts(with: Array("bplist".utf8)) { return "a binary property list" }
    if bytes.starts(with: [0x00, 0x05, 0x16, 0x07]) { return "an AppleDouble resource-fork file" }
    var start = bytes.startIndex
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
    while start < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
    let head = bytes[start...].prefix(200)
    if head.starts(with: Array("<?xml".utf8)) || head.starts(with: Array("<plist".utf8)) {
      let text = String(decoding: head, as: UTF8.self)
      return text.contains("plist") ? "an XML property list" : "an XML document"
    }
    return nil
  }

  // MARK: Products

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
  private mutating func readProductType(
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
  private mutating func readHandMadeSubscription(_ node: JSONNode, path: String, id: ProductID) -> SubscriptionInfo {
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
  private mutating func readProductLocalizations(_ node: JSONNode, path: String, id: ProductID) -> [Localization] {
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

  // MARK: Subscriptions

  mutating func readSubscription(
    _ node: JSONNode, path: String, groupID: SubscriptionGroupID
  ) throws(ConfigurationIssue) -> Product? {
    guard let m = node.members else {
      warn(path, node.location, "a subscription is \(node.value.kindDescription), expected an object; skipped")
      return nil
    }
    warnDuplicateKeys(m, path: path)
    let id = try requireProductID(node, path: path)
    warnSubscriptionType(node, path: path)
    warnDeclaredGroup(node, path: path, groupID: groupID)
    let level = readGroupLevel(node, path: path, id: id)
    let period = readRenewalPeriod(node, path: path, id: id)
    let intro = readIntroductoryOffer(node, path: path)
    let promotional = readOffers(node, "adHocOffers", .promotional, path: path)
    let codes = readOffers(node, "codeOffers", .code, path: path)
    let winBack = readOffers(node, "winbackOffers", .winBack, path: path)
    let plans = readBillingPlans(node, path: path)
    let (price, displayPrice) = readPrice(node, path: path, id: id)
    warnUnknownKeys(
      m,
      known: [
        "productID", "referenceName", "type", "displayPrice", "familyShareable", "familySharable",
        "isFamilyShareable", "internalID", "localizations", "subscriptionGroupID", "groupNumber",
        "recurringSubscriptionPeriod", "introductoryOffer", "introductoryOffers", "adHocOffers",
        "codeOffers", "winbackOffers", "billingPlans", "promotionalImageID",
      ], path: path, what: "subscription")
    return Product(
      id: id, type: .autoRenewable, referenceName: string(node["referenceName"], path: "\(path).referenceName") ?? "",
      price: price, displayPrice: displayPrice, isFamilyShareable: readFamilyShareable(node, path: path),
      internalID: string(node["internalID"], path: "\(path).internalID") ?? "",
      localizations: readLocalizations(node["localizations"], path: "\(path).localizations"),
      subscription: SubscriptionInfo(
        groupID: groupID, groupLevel: level, period: period, introductoryOffer: intro,
        promotionalOffers: promotional, offerCodes: codes, winBackOffers: winBack, billingPlans: plans))
  }

  /// Warns about a `type` other than Xcode's `RecurringSubscription` (the group decides).
  private mutating func warnSubscriptionType(_ node: JSONNode, path: String) {
    if let typeNode = node["type"], let raw = string(typeNode, path: "\(path).type"), raw != "RecurringSubscription" {
      if ProductType(anyName: raw) == .autoRenewable {
        warn(
          "\(path).type", typeNode.location,
          "type '\(raw)' is not Xcode's spelling; read as an auto-renewable subscription")
      } else {
        warn(
          "\(path).type", typeNode.location,
          "type '\(raw)' inside a subscription group; the group wins: read as an auto-renewable subscription")
      }
    }
  }

  /// Warns about a `subscriptionGroupID` other than the enclosing group's (the group decides).
  private mutating func warnDeclaredGroup(_ node: JSONNode, path: String, groupID: SubscriptionGroupID) {
    if let declared = string(node["subscriptionGroupID"], path: "\(path).subscriptionGroupID"), declared != groupID {
      warn(
        "\(path).subscriptionGroupID", node["subscriptionGroupID"]?.location,
        "subscriptionGroupID '\(declared)' differs from the enclosing group '\(groupID)'; the enclosing group wins")
    }
  }

  /// The level in the group (`groupNumber`), 1 when absent or invalid.
  private mutating func readGroupLevel(_ node: JSONNode, path: String, id: ProductID) -> Int {
    var level = 1
    if let n = node["groupNumber"] {
      if let v = int(n, path: "\(path).groupNumber"), v >= 1 {
        level = v
      } else {
        warn("\(path).groupNumber", n.location, "groupNumber must be an integer of at least 1; read as 1")
      }
    } else {
      warn(path, node.location, "subscription '\(id)' has no groupNumber; read as level 1")
    }
    return level
  }

  /// The renewal period (`recurringSubscriptionPeriod`), a month when absent or invalid.
  private mutating func readRenewalPeriod(_ node: JSONNode, path: String, id: ProductID) -> SubscriptionPeriod {
    var period = SubscriptionPeriod(value: 1, unit: .month)
    let periodNode = node["recurringSubscriptionPeriod"] ?? node["duration"]
    if let text = string(periodNode, path: "\(path).recurringSubscriptionPeriod"),
      let p = SubscriptionPeriod(iso8601: text)
    {
      period = p
      if !["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"].contains(p.iso8601) {
        warn(
          "\(path).recurringSubscriptionPeriod", periodNode?.location,
          "renewal period \(p) is not one of the App Store's six (P1W P1M P2M P3M P6M P1Y); the simulator uses it as written"
        )
      }
    } else {
      warn(
        path, periodNode?.location ?? node.location,
        "subscription '\(id)' has no valid recurringSubscriptionPeriod; it renews monthly")
    }
    return period
  }

  /// The introductory offer.
  private mutating func readIntroductoryOffer(_ node: JSONNode, path: String) -> SubscriptionOffer? {
    // Introductory offer: prefer the 5.0 array (its BILLED_UPFRONT entry), then the single form.
    var intro: SubscriptionOffer?
    if let arrayNode = node["introductoryOffers"] {
      let items = array(arrayNode, path: "\(path).introductoryOffers")
      let pick =
        items.enumerated().first(where: {
          string($0.element["billingPlanType"], path: "").flatMap(BillingPlanType.init) != .monthly
        })
        ?? items.enumerated().first
      if let (i, item) = pick {
        _ = readBillingPlanType(item, path: "\(path).introductoryOffers[\(i)]")
        intro = readOffer(item, path: "\(path).introductoryOffers[\(i)]", type: .introductory)
      }
    } else if let single = node["introductoryOffer"], single.value != .null {
      intro = readOffer(single, path: "\(path).introductoryOffer", type: .introductory)
    }
    return intro
  }

  /// The offers of one kind listed under `key`.
  private mutating func readOffers(
    _ node: JSONNode, _ key: String, _ type: OfferType, path: String
  ) -> [SubscriptionOffer] {
    guard let list = node[key] else { return [] }
    return array(list, path: "\(path).\(key)").enumerated().compactMap {
      readOffer($1, path: "\(path).\(key)[\($0)]", type: type)
    }
  }

  /// The billing plans (`billingPlans`).
  private mutating func readBillingPlans(_ node: JSONNode, path: String) -> [BillingPlan] {
    var plans: [BillingPlan] = []
    if let list = node["billingPlans"] {
      for (i, item) in array(list, path: "\(path).billingPlans").enumerated() {
        let p = "\(path).billingPlans[\(i)]"
        plans.append(
          BillingPlan(
            type: readBillingPlanType(item, path: p),
            price: string(item["displayPrice"], path: "\(p).displayPrice").flatMap(Self.decimal) ?? 0,
            commitmentPrice: string(item["commitmentDisplayPrice"], path: "\(p).commitmentDisplayPrice").flatMap(
              Self.decimal),
            isEnabled: bool(item["isEnabled"], path: "\(p).isEnabled") ?? true))
      }
    }
    return plans
  }

  /// The `billingPlanType` of a billing plan or introductory offer; missing or unknown reads as
  /// billed up front (an unknown one with a warning).
  private mutating func readBillingPlanType(_ node: JSONNode, path: String) -> BillingPlanType {
    let typePath = "\(path).billingPlanType"
    guard let text = string(node["billingPlanType"], path: typePath) else { return .billedUpfront }
    guard let type = BillingPlanType(rawValue: text) else {
      let fallback = BillingPlanType.billedUpfront
      warn(
        typePath, node["billingPlanType"]?.location, "unknown billingPlanType '\(text)'; read as \(fallback.rawValue)")
      return fallback
    }
    return type
  }

  mutating func readOffer(_ node: JSONNode, path: String, type: OfferType) -> SubscriptionOffer? {
    guard let m = node.members else {
      warn(path, node.location, "an offer is \(node.value.kindDescription), expected an object; skipped")
      return nil
    }
    guard let mode = readPaymentMode(node, path: path),
      let period = readOfferPeriod(node, path: path)
    else { return nil }
    let count = readPeriodCount(node, path: path)
    let price = readOfferPrice(node, path: path, mode: mode)
    let id = readOfferID(node, path: path, type: type)
    let eligibility = readEligibility(node, path: path)
    let known: Set<String> = [
      "internalID", "paymentMode", "subscriptionPeriod", "numberOfPeriods", "displayPrice",
      "billingPlanType", "offerID", "referenceName", "eligibility", "isStackable", "isEligible",
    ]
    warnUnknownKeys(m, known: known, path: path, what: "offer")
    return SubscriptionOffer(
      type: type, id: id, paymentMode: mode, period: period, periodCount: count, price: price,
      eligibility: eligibility, isEligible: bool(node["isEligible"], path: "\(path).isEligible") ?? true)
  }

  /// The offer's `paymentMode`; nil (with a warning) for one the App Store does not have.
  private mutating func readPaymentMode(_ node: JSONNode, path: String) -> PaymentMode? {
    let modeText = string(node["paymentMode"], path: "\(path).paymentMode")
    switch modeText {
    case "free"?, "freeTrial"?: return .freeTrial
    case "payAsYouGo"?: return .payAsYouGo
    case "payUpFront"?: return .payUpFront
    default:
      warn(
        "\(path).paymentMode", node["paymentMode"]?.location ?? node.location,
        "offer payment mode '\(modeText ?? "missing")' is not free, payAsYouGo or payUpFront; the offer is ignored")
      return nil
    }
  }

  /// The offer's `subscriptionPeriod`; nil (with a warning) when missing or invalid.
  private mutating func readOfferPeriod(_ node: JSONNode, path: String) -> SubscriptionPeriod? {
    guard let periodText = string(node["subscriptionPeriod"], path: "\(path).subscriptionPeriod"),
      let period = SubscriptionPeriod(iso8601: periodText)
    else {
      warn(
        "\(path).subscriptionPeriod", node["subscriptionPeriod"]?.location ?? node.location,
        "offer has no valid subscriptionPeriod; the offer is ignored")
      return nil
    }
    return period
  }

  /// The offer's `numberOfPeriods`, 1 when absent or invalid.
  private mutating func readPeriodCount(_ node: JSONNode, path: String) -> Int {
    var count = 1
    if let n = node["numberOfPeriods"] {
      if let v = int(n, path: "\(path).numberOfPeriods"), v >= 1 {
        count = v
      } else {
        warn("\(path).numberOfPeriods", n.location, "numberOfPeriods must be a positive integer; read as 1")
      }
    }
    return count
  }

  /// The offer's `displayPrice`; 0 for a free trial.
  private mutating func readOfferPrice(_ node: JSONNode, path: String, mode: PaymentMode) -> Decimal {
    var price: Decimal = 0
    if mode != .freeTrial {
      if let text = string(node["displayPrice"], path: "\(path).displayPrice"), let v = Self.decimal(text) {
        price = v
        if text.contains(",") {
          warn(
            "\(path).displayPrice", node["displayPrice"]?.location, "price '\(text)' uses a decimal comma; read as \(v)"
          )
        }
      } else {
        warn(path, node.location, "paid offer has no valid displayPrice; it charges 0")
      }
    }
    return price
  }

  /// The id the offer is redeemed by: none for an introductory offer, the reference name for an
  /// offer code, `offerID` otherwise.
  private mutating func readOfferID(_ node: JSONNode, path: String, type: OfferType) -> String? {
    var id: String?
    switch type {
    case .introductory: id = nil
    case .code: id = string(node["referenceName"], path: "\(path).referenceName")
    case .promotional, .winBack:
      id = string(node["offerID"], path: "\(path).offerID")
      if id == nil || id!.isEmpty {
        id = string(node["referenceName"], path: "\(path).referenceName") ?? string(node["internalID"], path: "")
        warn(path, node.location, "offer has no offerID; it is redeemed as '\(id ?? "")'")
      }
    }
    return id
  }

  /// The offer code's customer eligibility (`eligibility`).
  private mutating func readEligibility(_ node: JSONNode, path: String) -> [OfferCodeEligibility] {
    var eligibility: [OfferCodeEligibility] = []
    if let list = node["eligibility"] {
      for (i, e) in array(list, path: "\(path).eligibility").enumerated() {
        guard let s = string(e, path: "\(path).eligibility[\(i)]") else { continue }
        if let known = OfferCodeEligibility(rawValue: s) {
          eligibility.append(known)
        } else {
          warn("\(path).eligibility[\(i)]", e.location, "unknown offer-code eligibility '\(s)'; ignored")
        }
      }
    }
    return eligibility
  }

  // MARK: Settings

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
    for member in m {
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

  // MARK: Typed access with warnings

  mutating func string(_ node: JSONNode?, path: String) -> String? {
    guard let node else { return nil }
    switch node.value {
    case .string(let s): return s
    case .null: return nil
    case .number(let n):
      if !path.isEmpty { warn(path, node.location, "expected a string, found the number \(n); read as \"\(n)\"") }
      return n
    default:
      if !path.isEmpty { warn(path, node.location, "expected a string, found \(node.value.kindDescription); ignored") }
      return nil
    }
  }

  mutating func int(_ node: JSONNode?, path: String) -> Int? {
    guard let node else { return nil }
    switch node.value {
    case .number(let n):
      if let v = Int(n) { return v }
      if let d = Double(n), d == d.rounded(), abs(d) < 1e15 { return Int(d) }
      warn(path, node.location, "expected an integer, found \(n); ignored")
      return nil
    case .string(let s):
      if let v = Int(s) {
        warn(path, node.location, "expected an integer, found the string \"\(s)\"; read as \(v)")
        return v
      }
      warn(path, node.location, "expected an integer, found the string \"\(s)\"; ignored")
      return nil
    case .null: return nil
    default:
      warn(path, node.location, "expected an integer, found \(node.value.kindDescription); ignored")
      return nil
    }
  }

  mutating func bool(_ node: JSONNode?, path: String) -> Bool? {
    guard let node else { return nil }
    switch node.value {
    case .bool(let b): return b
    case .null: return nil
    case .number(let n) where n == "0" || n == "1":
      warn(path, node.location, "expected a boolean, found \(n); read as \(n == "1")")
      return n == "1"
    case .string(let s) where ["true", "false", "yes", "no"].contains(s.lowercased()):
      let value = ["true", "yes"].contains(s.lowercased())
      warn(path, node.location, "expected a boolean, found the string \"\(s)\"; read as \(value)")
      return value
    default:
      warn(path, node.location, "expected a boolean, found \(node.value.kindDescription); read as false")
      return nil
    }
  }

  mutating func array(_ node: JSONNode?, path: String) -> [JSONNode] {
    guard let node else { return [] }
    switch node.value {
    case .array(let items): return items
    case .null: return []
    default:
      warn(path, node.location, "expected an array, found \(node.value.kindDescription); read as empty")
      return []
    }
  }

  mutating func warnUnknownKeys(_ members: [JSONMember], known: Set<String>, path: String, what: String) {
    for member in members where !known.contains(member.key) {
      warn("\(path).\(member.key)", member.keyLocation, "unknown \(what) key '\(member.key)'; ignored")
    }
  }

  mutating func warnDuplicateKeys(_ members: [JSONMember], path: String) {
    guard members.count > 1 else { return }
    var seen = Set<String>()
    for member in members where !seen.insert(member.key).inserted {
      let p = path.isEmpty ? member.key : "\(path).\(member.key)"
      warn(p, member.keyLocation, "key '\(member.key)' appears more than once; the first one is used")
    }
  }
}

extension ConfigurationIssue: Error {}
