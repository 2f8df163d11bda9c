import Foundation
import StoreSim

/// `storesim validate FILE...`.
struct ValidateCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "validate", group: "Session and catalogue",
    abstract: "Check .storekit configuration files without a session",
    arguments: "<file>...",
    discussion: """
      Reads each file as storesim would and prints its warnings and errors with file:line:column
      and the JSON path. Exits 65 if any file has an error, 66 if a file does not exist.
      A .storekit package folder is read through the Configuration.storekit inside it.
      """,
    example: "storesim validate Configurations/AppleSample.storekit")

  @Arguments(1...Int.max, "configuration file to validate")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    let files = arguments
    var worst = ExitCode.success
    var reports: [JSONOutput] = []
    for file in files {
      do {
        let (loaded, _) = try ConfigurationFile.load(file, environment: inv.environment)
        for w in loaded.warnings { inv.err(ConfigurationFile.diagnostic(w, file: file)) }
        let c = loaded.configuration
        let summary =
          "\(c.products.count) product\(c.products.count == 1 ? "" : "s"), \(c.subscriptionGroups.count) "
          + "group\(c.subscriptionGroups.count == 1 ? "" : "s"), \(loaded.warnings.count) "
          + "warning\(loaded.warnings.count == 1 ? "" : "s")"
        if inv.printsJSON {
          reports.append(
            .object([
              "file": .string(file), "valid": .bool(true),
              "formatVersion": c.formatVersion.map { .string($0.description) },
              "products": .int(Int64(c.products.count)),
              "subscriptionGroups": .int(Int64(c.subscriptionGroups.count)),
              "warnings": .array(loaded.warnings.map(ConfigurationFile.json)),
            ]))
        }
        if inv.printsText {
          inv.out("ok     \(file): format \(c.formatVersion?.description ?? "unknown"), \(summary)")
        }
      } catch let error as CLIError {
        if worst != .noInput { worst = error.code }
        inv.err("error: \(error.message)")
        if inv.printsJSON {
          reports.append(.object(["file": .string(file), "valid": .bool(false), "error": .string(error.message)]))
        }
      }
    }
    if inv.printsJSON { inv.writeJSON(JSONOutput.object(["files": .array(reports)]).rendered(pretty: true)) }
    return worst
  }
}

/// `storesim products [FILE]`.
struct ProductsCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "products", group: "Session and catalogue",
    abstract: "List the catalogue: products, prices, groups, levels and periods",
    arguments: "[<file.storekit>]",
    discussion: """
      Works on the session's configuration, or without a session on a file given with --config or
      as the argument. Like Product.products(for:), ids that are not in the catalogue are listed
      as invalidProductIdentifiers.
      """,
    example: "storesim products Configurations/AppleSample.storekit --type autoRenewable")

  @Arguments(0...1, "configuration file")
  var arguments: [String]
  @Option("<file>", help: "read this configuration instead of the session's")
  var config: String?
  @Option("<type>", help: "only consumable, nonConsumable, nonRenewable or autoRenewable")
  var type: String?
  @Option("<id,...>", help: "request these ids; unknown ones come back as invalidProductIdentifiers")
  var ids: String?
  @Option("<locale>", help: "show this localization (default: the session's locale)")
  var locale: String?
  @Option("<key>", help: "order by price, id or name (default: file order)")
  var sort: String?

  func run(_ inv: Invocation) throws -> ExitCode {
    let positional = arguments
    let fromSession = config == nil && positional.isEmpty
    let (configuration, settings) = try productsCatalogue(inv, file: config ?? positional.first, locale: locale)
    var (products, invalid) = try requestedProducts(configuration.products, type: type, ids: ids)
    try sortProducts(&products, by: sort, locale: settings.locale)
    if fromSession, let error = settings.simulatedError(forAPI: .loadProducts) {
      throw CLIError.failed("Load Products failed with simulated error \(error)")
    }
    let storefront = Storefront.named(settings.storefront) ?? .usa
    if inv.printsJSON {
      inv.writeJSON(
        JSONOutput.object([
          "products": .array(products.map { $0.jsonRepresentation(locale: settings.locale, storefront: storefront) }),
          "invalidProductIdentifiers": .array(invalid.map(JSONOutput.string)),
        ]).rendered(pretty: true))
    }
    guard inv.printsText else { return .success }
    inv.out(
      Table.render(
        [["PRODUCT", "TYPE", "PRICE", "NAME", "GROUP", "LEVEL", "PERIOD", "OFFERS"]]
          + products.map { productRow($0, configuration, locale: settings.locale, storefront: storefront) }))
    if !invalid.isEmpty { inv.out("invalid product identifiers: " + invalid.joined(separator: ", ")) }
    if products.isEmpty && invalid.isEmpty { inv.out("(no products)") }
    return .success
  }
}

/// The configuration of a file (without a session), or the session's; `--locale` applied.
private func productsCatalogue(
  _ inv: Invocation, file: String?, locale: String?
) throws -> (StoreConfiguration, StoreKitSettings) {
  let configuration: StoreConfiguration
  var settings: StoreKitSettings
  if let file {
    let (loaded, _) = try ConfigurationFile.load(file, environment: inv.environment)
    configuration = loaded.configuration
    settings = configuration.settings
  } else {
    (configuration, settings) = try SessionContext.catalogue(inv)
  }
  if let locale { settings.locale = locale }
  return (configuration, settings)
}

/// The products of `--type`, then of `--ids` in their order; ids not in the catalogue are invalid.
private func requestedProducts(
  _ all: [Product], type: String?, ids: String?
) throws -> (
  products: [Product], invalid: [String]
) {
  var products = all
  if let typeText = type {
    guard let type = ProductType(userInput: typeText) else {
      throw CLIError.usage(
        "unknown product type '\(typeText)'; use consumable, nonConsumable, nonRenewable or autoRenewable",
        command: "products")
    }
    products = products.filter { $0.type == type }
  }
  var invalid: [String] = []
  if let idsText = ids {
    let ids = idsText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    var seen = Set<String>()
    var chosen: [Product] = []
    for id in ids where seen.insert(id).inserted {
      if let p = products.first(where: { $0.id == id }) { chosen.append(p) } else { invalid.append(id) }
    }
    products = chosen
  }
  return (products, invalid)
}

/// `--sort price|id|name` (price keeps file order among equal prices).
private func sortProducts(_ products: inout [Product], by sort: String?, locale: String) throws {
  switch sort?.lowercased() {
  case nil: break
  case "price"?:
    products = products.enumerated().sorted { ($0.element.price, $0.offset) < ($1.element.price, $1.offset) }.map(
      \.element)
  case "id"?: products.sort { $0.id < $1.id }
  case "name"?:
    products.sort {
      ($0.localization(for: locale)?.displayName ?? "") < ($1.localization(for: locale)?.displayName ?? "")
    }
  case let other?: throw CLIError.usage("unknown sort key '\(other)'; use price, id or name", command: "products")
  }
}

private func productRow(
  _ p: Product, _ configuration: StoreConfiguration, locale: String, storefront: Storefront
) -> [String] {
  let name = p.localization(for: locale)?.displayName ?? ""
  var group = "", level = "", period = "", offers: [String] = []
  if let s = p.subscription {
    group = configuration.group(s.groupID)?.name ?? s.groupID
    level = String(s.groupLevel)
    period = s.period.iso8601
    if let intro = s.introductoryOffer {
      offers.append("intro \(intro.paymentMode.storeKitName) \(intro.totalPeriod)")
    }
    offers += s.promotionalOffers.map { "promotional:\($0.id ?? "")" }
    offers += s.offerCodes.map { "code:\($0.id ?? "")" }
    offers += s.winBackOffers.map { "win-back:\($0.id ?? "")" }
  }
  return [
    p.id, p.type.storeKitName, PriceFormatter.display(p.price, currency: storefront.currency), name, group, level,
    period, offers.joined(separator: ", "),
  ]
}

/// Aligned text columns.
enum Table {
  /// Aligned columns; every cell is one line, its control characters shown escaped.
  static func render(_ rows: [[String]]) -> String {
    let rows = rows.map { $0.map(TerminalText.field) }
    guard let first = rows.first else { return "" }
    var widths = [Int](repeating: 0, count: first.count)
    for row in rows {
      for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
    }
    return rows.map { row in
      var line = ""
      for (i, cell) in row.enumerated() {
        if i == row.count - 1 {
          line += cell
        } else {
          line += cell.padding(toLength: widths[i] + 2, withPad: " ", startingAt: 0)
        }
      }
      while line.hasSuffix(" ") { line.removeLast() }
      return line
    }.joined(separator: "\n")
  }
}
