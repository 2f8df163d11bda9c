import Foundation
import StoreSimCrypto

/// Reads `.storekit` files of every format version (1.0 … 6.x), leniently.
///
/// Unknown keys, unknown enum values, hand-written variants and misspellings seen in real files
/// become warnings with their JSON path; only data that cannot mean anything (not JSON, not an
/// object, a product without an id) is an error. `docs/configuration-format.md` lists what is read
/// from each format version.
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

/// The reading of one file: the warnings so far, and a reading function per part of the file
/// (documents here; products, subscriptions, settings and typed values in the files beside it).
struct Reader {
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
    for member in firstOccurrences(members) {
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
    var configuration = StoreConfiguration(
      identifier: string(root["identifier"], path: "identifier"),
      formatVersion: formatVersion,
      products: products,
      subscriptionGroups: groups,
      settings: settings,
      unsupportedProductIDs: catalogue.unsupported
    )
    configuration.subscriptionOffersKey = root["subscriptionOffersKeyPair"].flatMap { readOfferKey($0) }
    return configuration
  }

  /// `subscriptionOffersKeyPair`: `id` and `privateKey` (Base64 of a PKCS #8 P-256 key).
  mutating func readOfferKey(_ node: JSONNode) -> OfferKey? {
    let path = "subscriptionOffersKeyPair"
    guard let id = string(node["id"], path: "\(path).id"),
      let text = string(node["privateKey"], path: "\(path).privateKey")
    else { return nil }
    do {
      return OfferKey(keyID: id, publicKey: try P256.PrivateKey(pemOrBase64: text).publicKey)
    } catch {
      warn(
        path, node.location,
        "\(path).privateKey is not a P-256 private key (\(error.message)); signed offers cannot be checked")
      return nil
    }
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
}

extension ConfigurationIssue: Error {}
