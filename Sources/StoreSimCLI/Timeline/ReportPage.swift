import Foundation
import StoreSim

/// `report --html` and `run --report`: one self-contained HTML page of a session (customers,
/// transactions, statuses, notifications and the timeline drawing), with no script and nothing
/// fetched, readable in light and dark. Every text from the session is escaped.
enum ReportPage {
  static let style = """
    :root{color-scheme:light dark;--bg:#ffffff;--fg:#1d1d1f;--muted:#6e6e73;--line:#d2d2d7;--head:#f5f5f7}
    @media (prefers-color-scheme: dark){:root{--bg:#1c1c1e;--fg:#f5f5f7;--muted:#a1a1a6;--line:#3a3a3c;--head:#2c2c2e}}
    body{background:var(--bg);color:var(--fg);font:14px -apple-system,system-ui,sans-serif;margin:24px;max-width:1000px}
    h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid var(--line);padding-bottom:4px}
    table{border-collapse:collapse;width:100%;font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
    th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}th{background:var(--head)}
    .muted{color:var(--muted)}figure,.wide{margin:0;overflow-x:auto}figure svg{max-width:100%;height:auto}
    """

  /// The page for `store`, titled `title` (the session or scenario it shows).
  static func html(store: Store, title: String) -> String {
    var page = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="color-scheme" content="light dark">
      <link rel="icon" href="data:,">
      <title>storesim report: \(XMLText.escaped(title))</title>
      <style>
      \(style)
      </style>
      </head>
      <body>
      <h1>storesim report: \(XMLText.escaped(title))</h1>
      <p class="muted">Virtual now \(ISO8601.string(store.now)) · environment \(XMLText.escaped(store.state.environment.rawValue)) · \
      \(store.configuration.products.count) products · made by storesim \(storesimVersion)</p>

      """
    page += section("Customers", ["CUSTOMER", "TRANSACTIONS", "ENTITLEMENTS"], customers(store))
    page += section(
      "Transactions",
      ["CUSTOMER", "ID", "ORIGINAL", "PRODUCT", "TYPE", "PURCHASED", "EXPIRES", "PRICE", "OFFER", "REVOKED"],
      transactions(store))
    page += section(
      "Subscription statuses", ["CUSTOMER", "GROUP", "STATE", "PRODUCT", "EXPIRES", "AUTO-RENEW"], statuses(store))
    page += section(
      "Notifications", ["#", "SENT", "TYPE", "SUBTYPE", "CUSTOMER", "TRANSACTION"], notifications(store))
    page += "<h2>Timeline</h2>\n<figure>\n"
    page += TimelinePicture.svg(store: store, groups: store.configuration.subscriptionGroups)
    page += "</figure>\n</body>\n</html>\n"
    return page
  }

  static func section(_ title: String, _ head: [String], _ rows: [[String]]) -> String {
    var out = "<h2>\(XMLText.escaped(title))</h2>\n"
    guard !rows.isEmpty else { return out + "<p class=\"muted\">none</p>\n" }
    out += "<div class=\"wide\"><table>\n<tr>" + head.map { "<th>\(XMLText.escaped($0))</th>" }.joined() + "</tr>\n"
    for row in rows {
      out += "<tr>" + row.map { "<td>\(XMLText.escaped($0))</td>" }.joined() + "</tr>\n"
    }
    return out + "</table></div>\n"
  }

  static func customers(_ store: Store) -> [[String]] {
    store.customerIDs.map { name in
      [
        name.rawValue, String(store.allTransactions(customer: name).count),
        store.currentEntitlements(customer: name).map(\.productID).joined(separator: ", "),
      ]
    }
  }

  static func transactions(_ store: Store) -> [[String]] {
    store.customerIDs.flatMap { name in
      store.allTransactions(customer: name).map { t in
        [
          name.rawValue, String(t.id), String(t.originalID), t.productID, t.productType.rawValue,
          ISO8601.string(t.purchaseDate), Render.date(t.expirationDate), "\(t.price) \(t.currency)",
          t.offer.map { "\($0.type.storeKitName) \($0.paymentMode.storeKitName)" } ?? "",
          t.revocationDate.map { ISO8601.string($0) + (t.revocationReason.map { " (reason \($0.rawValue))" } ?? "") }
            ?? "",
        ]
      }
    }
  }

  static func statuses(_ store: Store) -> [[String]] {
    store.customerIDs.flatMap { name in
      store.configuration.subscriptionGroups.flatMap { group in
        store.statuses(forGroup: group.id, customer: name).map { s in
          [
            name.rawValue, group.name, s.state.rawValue, s.transaction.productID,
            Render.date(s.transaction.expirationDate), s.renewalInfo.willAutoRenew ? "on" : "off",
          ]
        }
      }
    }
  }

  static func notifications(_ store: Store) -> [[String]] {
    store.notifications.enumerated().map { i, n in
      [
        String(i + 1), ISO8601.string(n.signedDate), n.notificationType.rawValue, n.subtype?.rawValue ?? "",
        n.customer.rawValue, n.transaction.map { String($0.id) } ?? "",
      ]
    }
  }

  /// Writes the page to `path` (a whole file or nothing), or refuses with exit code 73.
  static func write(_ page: String, to path: String, shown: String, what: String = "the report") throws {
    do {
      try Data(page.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw CLIError(code: .cannotCreate, message: "cannot write \(what) to \(shown)")
    }
  }
}

/// `storesim report --html FILE`.
struct ReportCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "report", group: "Inspection",
    abstract: "Write the session as one self-contained HTML page",
    discussion:
      "The page shows the customers, transactions, subscription statuses, notifications and the timeline drawing "
      + "of 'timeline --svg'; it has no script and fetches nothing, so it opens anywhere (a CI artifact). "
      + "'run --report FILE' writes the same page for a scenario. --html FILE writes FILE; --html alone or "
      + "--html - prints the page (as 'timeline --svg').",
    example: "storesim report --html report.html\nstoresim report --html - | head -3")

  @Option("<file>", help: "the HTML file to write; alone or -: print the page", valueIsOptional: true)
  var html: String?
  @Arguments(0...0, "")
  var arguments: [String]

  func validate() throws {
    if html == nil {
      throw CLIError.usage("report needs --html FILE (or --html - for standard output)", command: "report")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    guard let file = html else { return .usage }
    if file == "-", inv.json { throw CLIError.usage("--html - and --json exclude each other", command: "report") }
    let path = file == "-" ? nil : try inv.environment.resolve(file)
    return try SessionContext.with(inv, mutating: false) { store in
      let page = ReportPage.html(store: store, title: SessionContext.path(inv))
      guard let path else {
        inv.environment.writeOut(page)
        return .success
      }
      try ReportPage.write(page, to: path, shown: file)
      inv.emit(json: .object(["report": .string(file)]), line: "wrote \(file)")
      return .success
    }
  }
}
