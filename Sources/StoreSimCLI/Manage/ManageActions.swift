import Foundation
import StoreSim

/// One line of the key table: the help overlay, the README and `storesim help manage` show it.
struct ManageKeyHelp: Sendable {
  var group: String
  var keys: String
  var action: String
  /// The storesim command the key runs (empty for keys that only move or show).
  var command: String
}

/// What each key does to the session: the storesim command line it runs, on the selected row.
/// Every action is a command of the CLI, run through `CLI.run` exactly as typed, so it makes
/// the same engine call under the same lock and atomic save, and a refusal is the CLI's own
/// message (shown in the message line; nothing changes).
enum ManageActions {
  static let keyTable: [ManageKeyHelp] = [
    .init(group: "Move", keys: "j/k Down/Up", action: "move the selection", command: ""),
    .init(group: "Move", keys: "g/G Home/End", action: "first / last row", command: ""),
    .init(group: "Move", keys: "PgDn/PgUp ^D/^U", action: "page / half page", command: ""),
    .init(group: "View", keys: "Enter", action: "details of the row (Esc: back)", command: ""),
    .init(group: "View", keys: "1 2 Tab", action: "transactions / notifications", command: ""),
    .init(group: "View", keys: "/", action: "filter (terms: see below)", command: ""),
    .init(group: "View", keys: "L", action: "full output of the last action", command: ""),
    .init(group: "Purchase", keys: "b", action: "buy from the catalogue", command: "buy P [--offer O]"),
    .init(group: "Purchase", keys: "a / d", action: "approve / decline Ask to Buy", command: "approve / decline"),
    .init(group: "Purchase", keys: "i", action: "resolve interrupted or billing", command: "resolve"),
    .init(group: "Purchase", keys: "f / F", action: "finish / finish all", command: "finish [--all]"),
    .init(group: "Purchase", keys: "x", action: "delete the transaction", command: "delete ID"),
    .init(group: "Refund", keys: "r", action: "refund at once", command: "refund ID"),
    .init(group: "Refund", keys: "R", action: "request a refund", command: "refund request ID"),
    .init(
      group: "Refund", keys: "a / d", action: "approve / decline a request", command: "refund approve|decline"),
    .init(group: "Refund", keys: "v", action: "reverse a refund", command: "refund reverse ID"),
    .init(group: "Subscribe", keys: "c / u", action: "auto-renew off / on", command: "cancel / resume"),
    .init(group: "Subscribe", keys: "e / +", action: "expire / renew now", command: "expire / renew"),
    .init(group: "Subscribe", keys: "p", action: "price increase...", command: "price-increase"),
    .init(group: "Time", keys: "t", action: "advance one day", command: "advance 1d"),
    .init(group: "Time", keys: "T", action: "advance to the period end", command: "advance --to EXPIRES"),
    .init(group: "Time", keys: "]", action: "advance to the next event", command: "advance --next"),
    .init(group: "Time", keys: "@", action: "advance by or to what you type", command: "advance 1mo|--to DATE"),
    .init(group: "Session", keys: "C", action: "acting customer (b and :)", command: "--customer NAME"),
    .init(group: "Session", keys: "o", action: "settings...", command: "settings KEY VALUE"),
    .init(group: "Session", keys: ":", action: "run any storesim command", command: "any"),
    .init(group: "Screen", keys: "?", action: "this help", command: ""),
    .init(group: "Screen", keys: "^L", action: "redraw", command: ""),
    .init(group: "Screen", keys: "q ^C", action: "quit (^Z suspends)", command: ""),
  ]

  /// The command line a key runs on `item`, or nil when the key is not an action key.
  static func argv(_ key: Character, item: ManageItem?, store: Store) -> [String]? {
    let customer = item.map { ["--customer", $0.customer.rawValue] } ?? []
    let id = rawID(item)
    switch key {
    case "a", "d":
      if let request = refundRequest(item, store) {
        return ["refund", key == "a" ? "approve" : "decline", request]
      }
      return [key == "a" ? "approve" : "decline"] + id
    case "i": return ["resolve"] + target(item) + customer
    case "f": return ["finish"] + id + customer
    case "F": return ["finish", "--all"] + customer
    case "r": return ["refund"] + id + customer
    case "R": return ["refund", "request"] + id + customer
    case "v": return ["refund", "reverse"] + id + customer
    case "c": return ["cancel"] + target(item) + customer
    case "u": return ["resume"] + target(item) + customer
    case "e": return ["expire"] + target(item) + customer
    case "+": return ["renew"] + target(item) + customer
    case "x": return ["delete"] + id + customer
    case "t": return ["advance", "1d"]
    case "]": return ["advance", "--next"]
    default: return nil
    }
  }

  /// The id the CLI takes for the row: a transaction id or a request id.
  private static func rawID(_ item: ManageItem?) -> [String] {
    switch item?.key {
    case .transaction(_, let id)?: return [String(id)]
    case .request(let id)?: return [id]
    case .notification(let i)?: return [String(i)]
    case nil: return []
    }
  }

  /// A subscription command's subject: `--transaction ID`, or the product of a request.
  private static func target(_ item: ManageItem?) -> [String] {
    switch item?.key {
    case .transaction(_, let id)?: return ["--transaction", String(id)]
    case .request?, .notification?: return item.map { [$0.productID] } ?? []
    case nil: return []
    }
  }

  /// The refund request waiting on the row's transaction, if any.
  private static func refundRequest(_ item: ManageItem?, _ store: Store) -> String? {
    guard case .transaction(_, let id)? = item?.key else { return nil }
    return store.refundRequests().last { $0.transactionID == id }?.id
  }

  /// `T`: to the end of the selected subscription's current period, where it renews.
  static func advanceToPeriodEnd(_ item: ManageItem?, store: Store) -> Result<[String], ManageRefusal> {
    guard case .transaction(let customer, let id)? = item?.key, let t = store.customer(customer)?.transaction(id),
      let end = t.expirationDate
    else {
      return .failure(ManageRefusal("select a subscription transaction: T advances to the end of its period"))
    }
    let to = store.customer(customer)?.subscription(t.subscriptionGroupID ?? "")?.expirationDate ?? end
    return .success(["advance", "--to", ISO8601.string(max(to, store.now))])
  }

  /// `@`: a typed duration (`1mo`, `3d`) or date (`2026-03-01`).
  static func advanceArgv(_ text: String) -> [String] {
    let value = text.trimmingCharacters(in: .whitespaces)
    if value.range(of: #"^\d{4}-\d{2}-\d{2}"#, options: .regularExpression) != nil {
      return ["advance", "--to", value]
    }
    return ["advance", value]
  }

  /// `:`: a typed command line (quotes as in scenarios); commands that take over the terminal
  /// are refused.
  static func commandArgv(_ text: String, acting: CustomerID) -> Result<[String], ManageRefusal> {
    guard let words = try? ScriptLineSplitter.split(text) else {
      return .failure(ManageRefusal("unterminated quote"))
    }
    guard let first = words.first else { return .failure(ManageRefusal("")) }
    if ["manage", "shell", "serve"].contains(first) {
      return .failure(ManageRefusal("'\(first)' takes over the terminal; run it outside storesim manage"))
    }
    let named = words.contains("--customer")
    return .success(words + (named ? [] : ["--customer", acting.rawValue]))
  }

  /// `b`: every product, and every offer of a subscription, bought by the acting customer.
  static func buyPicker(_ store: Store, acting: CustomerID) -> ManagePicker {
    var entries: [ManagePicker.Entry] = []
    let storefront = Storefront.named(store.settings.storefront)
    let customer = ["--customer", acting.rawValue]
    let idWidth = store.configuration.products.map(\.id.count).max() ?? 0
    for p in store.configuration.products {
      let price = PriceFormatter.display(p.price, currency: storefront?.currency ?? "USD")
      let label =
        p.id.padding(toLength: idWidth + 2, withPad: " ", startingAt: 0)
        + p.type.storeKitName.padding(toLength: 15, withPad: " ", startingAt: 0) + price
      entries.append(.init(label: label, action: .run(["buy", p.id] + customer)))
      guard let s = p.subscription else { continue }
      var offers: [(String, String)] = []
      if let intro = s.introductoryOffer {
        offers.append(("intro", "intro \(intro.paymentMode.storeKitName) \(intro.totalPeriod)"))
      }
      offers += s.promotionalOffers.map { ("promotional:\($0.id ?? "")", "promotional \($0.id ?? "")") }
      offers += s.offerCodes.map { ("code:\($0.id ?? "")", "offer code \($0.id ?? "")") }
      offers += s.winBackOffers.map { ("win-back:\($0.id ?? "")", "win-back \($0.id ?? "")") }
      for (option, text) in offers {
        entries.append(
          .init(
            label: p.id.padding(toLength: idWidth + 2, withPad: " ", startingAt: 0) + "with " + text,
            action: .run(["buy", p.id, "--offer", option] + customer)))
      }
    }
    return ManagePicker(
      title: "Buy as \(TerminalText.field(acting.rawValue)) (Enter buys, Esc closes)", entries: entries)
  }

  /// `p`: the price-increase actions on the selected subscription.
  static func priceIncreasePicker(_ item: ManageItem?) -> ManagePicker {
    let subject = target(item) + (item.map { ["--customer", $0.customer.rawValue] } ?? [])
    return ManagePicker(
      title: "Price increase",
      entries: [
        .init(label: "request (the customer must consent)", action: .run(["price-increase"] + subject + ["request"])),
        .init(
          label: "request, no consent needed",
          action: .run(["price-increase"] + subject + ["request", "--no-consent"])),
        .init(label: "accept (the customer consents)", action: .run(["price-increase"] + subject + ["accept"])),
        .init(label: "decline (auto-renew turns off)", action: .run(["price-increase"] + subject + ["decline"])),
      ])
  }

  /// `o`: each switch flips; storefront and time rate open a list.
  static func settingsPicker(_ store: Store) -> ManagePicker {
    let s = store.settings
    func flip(_ key: String, _ on: Bool) -> ManagePicker.Entry {
      .init(
        label: "\(key): \(on ? "on" : "off") -> \(on ? "off" : "on")",
        action: .run(["settings", key, on ? "off" : "on"]))
    }
    let storefronts = Storefront.knownCodes.map {
      ManagePicker.Entry(label: $0, action: .run(["settings", "storefront", $0]))
    }
    let rates = TimeRate.allCases.map {
      ManagePicker.Entry(label: $0.name, action: .run(["settings", "time-rate", $0.name]))
    }
    return ManagePicker(
      title: "Settings (Enter changes)",
      entries: [
        flip("ask-to-buy", s.askToBuyEnabled), flip("interrupted-purchases", s.interruptedPurchasesEnabled),
        flip("billing-retry", s.shouldEnterBillingRetryOnRenewal), flip("grace-period", s.billingGracePeriodIsEnabled),
        flip("disable-dialogs", s.disableDialogs), flip("fail-transactions", s.failTransactionsEnabled),
        .init(
          label: "storefront: \(s.storefront)",
          action: .picker(ManagePicker(title: "Storefront", entries: storefronts))),
        .init(
          label: "time-rate: \(s.timeRate.name)", action: .picker(ManagePicker(title: "Time rate", entries: rates))),
      ])
  }

  /// `C`: the customers of the session; a name typed that matches none is a new customer (made
  /// by its first purchase, as the CLI's `--customer` does).
  static func customerPicker(_ store: Store, acting: CustomerID) -> ManagePicker {
    var picker = ManagePicker(
      title: "Acting customer (type a new name to add one)",
      entries: store.customerIDs.map { .init(label: $0.rawValue, action: .customer($0.rawValue)) })
    picker.typedValue = true
    picker.selected = store.customerIDs.firstIndex(of: acting) ?? 0
    return picker
  }
}

/// A key that does not apply, said in the message line; nothing changes.
struct ManageRefusal: Error, Equatable {
  var message: String
  init(_ message: String) { self.message = message }
}
