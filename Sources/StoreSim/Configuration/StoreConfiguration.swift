import Foundation

/// What a `.storekit` file says: products, subscription groups, offers and settings.
public struct StoreConfiguration: Sendable, Hashable, Codable {
  /// The file's format version (`version.major`, `version.minor`), when it had one.
  public struct FormatVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Major version.
    public var major: Int
    /// Minor version.
    public var minor: Int
    /// `major.minor`.
    public var description: String { "\(major).\(minor)" }
  }

  /// The file's `identifier`.
  public var identifier: String?
  /// The format version.
  public var formatVersion: FormatVersion?
  /// Every product of every type, in file order (products, non-renewing, then groups).
  public private(set) var products: [Product]
  /// Subscription groups in file order.
  public var subscriptionGroups: [SubscriptionGroup]
  /// The settings block, with defaults for missing keys.
  public var settings: StoreKitSettings
  /// Products the file declares that storesim does not simulate (subscription suites).
  public var unsupportedProductIDs: [ProductID]
  /// The key signed offers are checked with (`subscriptionOffersKeyPair`), if the file has one.
  public var subscriptionOffersKey: OfferKey?

  private var index: [ProductID: Int]

  /// Creates a configuration; the first product with a given id wins.
  public init(
    identifier: String? = nil, formatVersion: FormatVersion? = nil, products: [Product],
    subscriptionGroups: [SubscriptionGroup] = [], settings: StoreKitSettings = StoreKitSettings(),
    unsupportedProductIDs: [ProductID] = []
  ) {
    self.identifier = identifier
    self.formatVersion = formatVersion
    var seen = Set<ProductID>()
    self.products = products.filter { seen.insert($0.id).inserted }
    self.subscriptionGroups = subscriptionGroups
    self.settings = settings
    self.unsupportedProductIDs = unsupportedProductIDs
    self.index = Dictionary(uniqueKeysWithValues: self.products.enumerated().map { ($1.id, $0) })
  }

  /// Where the product with this id is in `products`. A short catalogue is scanned (comparing
  /// strings that share storage or fit inline is cheaper than hashing); a long one is hashed.
  func position(of id: ProductID) -> Int? {
    if products.count <= 16 { return products.firstIndex { $0.id == id } }
    return index[id]
  }

  /// Whether a product with this id exists.
  public func hasProduct(_ id: ProductID) -> Bool { position(of: id) != nil }

  /// The product with this id.
  public func product(_ id: ProductID) -> Product? {
    position(of: id).map { products[$0] }
  }

  /// The price of a product, without copying the product.
  public func price(of id: ProductID) -> Decimal? {
    position(of: id).map { products[$0].price }
  }

  /// Whether a product is family shareable, without copying the product.
  public func isFamilyShareable(_ id: ProductID) -> Bool {
    position(of: id).map { products[$0].isFamilyShareable } ?? false
  }

  /// The group with this id.
  public func group(_ id: SubscriptionGroupID) -> SubscriptionGroup? {
    subscriptionGroups.first { $0.id == id }
  }

  /// Products of a group, in file order.
  public func products(inGroup id: SubscriptionGroupID) -> [Product] {
    products.filter { $0.subscription?.groupID == id }
  }

  /// Looks up a group by id or by reference name (case-insensitive).
  public func group(named text: String) -> SubscriptionGroup? {
    group(text) ?? subscriptionGroups.first { $0.name.lowercased() == text.lowercased() }
  }

  private enum CodingKeys: String, CodingKey {
    case identifier, formatVersion, products, subscriptionGroups, settings, unsupportedProductIDs
    case subscriptionOffersKey
  }

  /// Decodes a configuration snapshot: every key `encode(to:)` writes must be there (a
  /// strict reader refuses what would not be written back the same).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      identifier: try c.decodeIfPresent(String.self, forKey: .identifier),
      formatVersion: try c.decodeIfPresent(FormatVersion.self, forKey: .formatVersion),
      products: try c.decode([Product].self, forKey: .products),
      subscriptionGroups: try c.decode([SubscriptionGroup].self, forKey: .subscriptionGroups),
      settings: try c.decode(StoreKitSettings.self, forKey: .settings),
      unsupportedProductIDs: try c.decode([ProductID].self, forKey: .unsupportedProductIDs)
    )
    subscriptionOffersKey = try c.decodeIfPresent(OfferKey.self, forKey: .subscriptionOffersKey)
  }

  /// Encodes a configuration snapshot.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(identifier, forKey: .identifier)
    try c.encodeIfPresent(formatVersion, forKey: .formatVersion)
    try c.encode(products, forKey: .products)
    try c.encode(subscriptionGroups, forKey: .subscriptionGroups)
    try c.encode(settings, forKey: .settings)
    try c.encode(unsupportedProductIDs, forKey: .unsupportedProductIDs)
    try c.encodeIfPresent(subscriptionOffersKey, forKey: .subscriptionOffersKey)
  }
}

/// A finding of the configuration reader: a warning (the file still loads) or an error.
public struct ConfigurationIssue: Sendable, Hashable, Codable, CustomStringConvertible {
  /// How serious.
  public enum Severity: String, Sendable, Hashable, Codable {
    /// The file loads; the message says what the simulator does about it.
    case warning
    /// The file cannot be used.
    case error
  }

  /// How serious.
  public var severity: Severity
  /// The JSON path (`subscriptionGroups[0].subscriptions[1].type`), empty for the whole file.
  public var path: String
  /// Where in the text, when known.
  public var location: TextLocation?
  /// What is wrong and what the simulator does about it.
  public var message: String

  /// Creates an issue.
  public init(severity: Severity, path: String, location: TextLocation?, message: String) {
    self.severity = severity
    self.path = path
    self.location = location
    self.message = message
  }

  /// `line:column: severity: message (at path)`, without a file name.
  public var description: String {
    var text = ""
    if let location { text += "\(location): " }
    text += "\(severity.rawValue): \(message)"
    if !path.isEmpty { text += " (at \(path))" }
    return text
  }
}

/// A configuration that cannot be used, with the one issue that says why.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The error-severity issue.
  public var issue: ConfigurationIssue
  /// Warnings found before the error.
  public var warnings: [ConfigurationIssue]

  /// The issue's text.
  public var description: String { issue.description }
}

/// A configuration read from a file, with the reader's warnings.
public struct LoadedConfiguration: Sendable {
  /// The configuration.
  public var configuration: StoreConfiguration
  /// Warnings, in document order.
  public var warnings: [ConfigurationIssue]
}

/// A position in a text: 1-based line and column (columns count Unicode scalars).
public struct TextLocation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
  /// 1-based line.
  public var line: Int
  /// 1-based column.
  public var column: Int

  /// Creates a location.
  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  /// `line:column`.
  public var description: String { "\(line):\(column)" }
}
