import Foundation
import StoreSim

/// How a whole line is drawn.
enum ManageStyle: Sendable, Equatable {
  case plain
  /// The title bar (reverse video).
  case bar
  /// The selected row: `>` and reverse video (colour or not).
  case selected
  /// Group headings and section titles (bold).
  case heading
  /// A refusal or error in the message line (red, or bold without colour).
  case error
}

/// One line of the screen: text at most the screen's width, and its style.
struct ManageLine: Sendable, Equatable {
  var text: String
  var style: ManageStyle = .plain
}

/// Draws the model as a grid of text lines: exactly `height` lines of at most `width`
/// characters. Pure; the terminal side only writes what changed.
enum ManageScreen {
  static func render(_ m: ManageModel) -> [ManageLine] {
    if m.isTooSmall {
      var lines = [ManageLine](repeating: ManageLine(text: ""), count: max(1, m.height))
      let text = fit("storesim manage needs 80x24 or more (now \(m.width)x\(m.height)); q quits", m.width)
      lines[lines.count / 2] = ManageLine(
        text: String(repeating: " ", count: max(0, (m.width - text.count) / 2)) + text)
      return lines
    }
    var lines = [titleLine(m), ManageLine(text: fit(clockLine(m.store), m.width))]
    if m.showingDetails {
      lines += detailsBody(m)
    } else {
      lines += listBody(m)
    }
    if let overlay = m.overlay { ManageOverlays.draw(overlay, over: &lines, model: m) }
    lines.append(
      ManageLine(
        text: fit(TerminalText.field(m.message), m.width), style: m.message.hasPrefix("error:") ? .error : .plain))
    lines.append(ManageLine(text: fit(hints(m), m.width)))
    // The last gate: whatever a line holds reaches the terminal through the one escaping function.
    return lines.map { ManageLine(text: fit(TerminalText.field($0.text), m.width), style: $0.style) }
  }

  /// The screen as text, trailing spaces trimmed: what golden files and tmux captures compare.
  static func text(_ lines: [ManageLine]) -> String {
    lines.map { line in
      var t = line.text
      while t.hasSuffix(" ") { t.removeLast() }
      return t
    }.joined(separator: "\n") + "\n"
  }

  static func fit(_ text: String, _ width: Int) -> String {
    text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "~"
  }

  static func pad(_ text: String, _ width: Int) -> String {
    let t = fit(text, width)
    return t + String(repeating: " ", count: max(0, width - t.count))
  }

  private static func titleLine(_ m: ManageModel) -> ManageLine {
    let right = "customer \(TerminalText.field(m.acting.rawValue))  rate \(m.store.settings.timeRate.name)"
    let room = m.width - right.count - 20
    var session = TerminalText.field(m.sessionName)
    if session.count > room { session = "~" + String(session.suffix(max(1, room - 1))) }
    return ManageLine(text: pad("storesim manage  \(session)", m.width - right.count - 1) + " " + right, style: .bar)
  }

  /// The virtual clock and the settings that change what purchases and renewals do.
  static func clockLine(_ store: Store) -> String {
    let s = store.settings
    func on(_ b: Bool) -> String { b ? "on" : "off" }
    return "\(ISO8601.string(store.now))  ask-to-buy:\(on(s.askToBuyEnabled)) "
      + "interrupted:\(on(s.interruptedPurchasesEnabled)) retry:\(on(s.shouldEnterBillingRetryOnRenewal)) "
      + "grace:\(on(s.billingGracePeriodIsEnabled)) \(s.storefront)"
  }

  private static func listBody(_ m: ManageModel) -> [ManageLine] {
    var lines: [ManageLine] = []
    let transactions = m.tab == .transactions
    let notes = m.hasNotifications ? String(m.store.notifications.count) : "..."
    let tabs =
      (transactions ? "[1 Transactions (\(m.totalCount))]" : " 1 Transactions ") + "  "
      + (transactions ? " 2 Notifications (\(notes)) " : "[2 Notifications (\(notes))]")
    lines.append(ManageLine(text: fit(tabs, m.width)))
    let columns = Columns(width: m.width, tab: m.tab, longestProduct: m.productWidth)
    lines.append(ManageLine(text: columns.header, style: .heading))
    let top = m.top
    for i in top..<(top + m.listHeight) {
      guard i < m.rows.count else {
        lines.append(ManageLine(text: i == 0 && m.rows.isEmpty ? "  " + emptyText(m) : ""))
        continue
      }
      switch m.rows[i] {
      case .heading(let group):
        let title = TerminalText.field(m.groups[group].title)
        lines.append(ManageLine(text: fit("-- \(title) --", m.width), style: .heading))
      case .item(let ref):
        let item = ManageRows.item(ref, m.store)
        let selected = i == m.cursor
        lines.append(ManageLine(text: columns.row(item, selected: selected), style: selected ? .selected : .plain))
      }
    }
    lines.append(ManageLine(text: fit(summary(m), m.width)))
    lines.append(ManageLine(text: footLine(m, position: "\(m.itemCount) of \(m.totalCount) rows")))
    return lines
  }

  private static func emptyText(_ m: ManageModel) -> String {
    if !m.filter.isEmpty { return "(no row matches the filter; Esc clears it)" }
    return m.tab == .transactions ? "(no transactions yet: b buys)" : "(no notifications yet)"
  }

  /// The filter (or an open prompt) on the left, a count or position on the right.
  private static func footLine(_ m: ManageModel, position: String) -> String {
    if let p = m.prompt { return fit(p.label + p.text + "_", m.width) }
    let left =
      m.showingDetails ? "" : m.filter.isEmpty ? "filter: (none; / filters)" : "filter: " + m.filter.text
    let room = m.width - position.count - 1
    return pad(left, room) + " " + position
  }

  private static func summary(_ m: ManageModel) -> String {
    guard let item = m.selectedItem else { return "" }
    switch item.key {
    case .transaction(let customer, let id):
      guard let t = m.store.customer(customer)?.transaction(id) else { return "" }
      var text = "selected: \(item.id)  \(Render.price(t))"
      if let e = t.expirationDate { text += "  expires \(ISO8601.string(e))" }
      return TerminalText.field(text + "  " + item.badges)
    case .request(let id):
      return TerminalText.field(
        "selected: request \(id) for \(item.productID): "
          + (item.state == "ask-to-buy" ? "a approves, d declines" : "i resolves"))
    case .notification:
      return TerminalText.field(
        "selected: \(item.id) \(item.state) for \(item.productID.isEmpty ? "-" : item.productID)")
    }
  }

  private static func detailsBody(_ m: ManageModel) -> [ManageLine] {
    var lines = [ManageLine(text: fit(TerminalText.field(ManageDetails.title(m)), m.width), style: .heading)]
    let body = ManageDetails.lines(m)
    let visible = max(1, m.height - 6)
    let top = max(0, min(m.detailsTop, max(0, body.count - visible)))
    for i in top..<(top + visible) {
      let text = i < body.count ? body[i] : ""
      let isTitle = !text.isEmpty && !text.hasPrefix(" ") && text.uppercased().prefix(4) == text.prefix(4)
      lines.append(ManageLine(text: fit(text, m.width), style: isTitle ? .heading : .plain))
    }
    let end = min(body.count, top + visible)
    lines.append(ManageLine(text: footLine(m, position: "lines \(top + 1)-\(end) of \(body.count)")))
    return lines
  }

  /// The keys that apply now.
  static func hints(_ m: ManageModel) -> String {
    if m.prompt != nil { return "Enter done  Esc cancel  ^U clear" }
    if let overlay = m.overlay {
      if case .picker = overlay { return "type to narrow  Up/Down move  Enter choose  Esc close" }
      return "j/k scroll  Esc close"
    }
    if m.showingDetails { return "Esc back  j/k scroll  action keys act on this row  ? help  q quit" }
    if m.tab == .notifications { return "Enter details  1 transactions  / filter  t +1 day  ? help  q quit" }
    switch m.selectedItem?.state {
    case "ask-to-buy"?: return "a approve  d decline  Enter details  b buy  t +1 day  / filter  ? help  q quit"
    case "interrupted"?: return "i resolve  Enter details  b buy  t +1 day  / filter  ? help  q quit"
    default:
      if m.selectedItem?.flags.contains("refund-requested") == true {
        return "a approve refund  d decline refund  Enter open  ? help  q quit"
      }
      if let item = m.selectedItem, case .transaction(let c, let id) = item.key,
        m.store.customer(c)?.transaction(id)?.productType == .autoRenewable
      {
        return "Enter open  r refund  c cancel  e expire  + renew  T period end  ? help  q quit"
      }
      return "Enter details  r refund  f finish  b buy  t +1 day  / filter  ? help  q quit"
    }
  }
}

/// The columns of a list at a width.
private struct Columns {
  var width: Int
  var tab: ManageTab
  var id = 16
  var customer = 8
  /// `MM-DD` at 80 columns (the clock line gives the year), `YYYY-MM-DD HH:MM` from 100.
  var date = 5
  var product = 20

  init(width: Int, tab: ManageTab, longestProduct: Int) {
    self.width = width
    self.tab = tab
    if tab == .notifications { id = 6 }
    if width >= 100 {
      date = 16
      customer = 10
    }
    let rest = width - 2 - id - customer - date - 4
    // The product as wide as the longest one, leaving the last column at least 20 (states
    // like "purchased unfinished"; a notification type 30).
    product = max(12, min(40, longestProduct, rest - (tab == .transactions ? 20 : 30)))
  }

  var header: String {
    ManageScreen.fit(
      "  " + cell("ID", id) + " " + cell("CUSTOMER", customer) + " "
        + (tab == .transactions
          ? cell("PRODUCT", product) + " " + cell(date == 16 ? "PURCHASED" : "DATE", date) + " STATE"
          : cell("DATE", date) + " " + cell("PRODUCT", product) + " TYPE / DELIVERY"),
      width)
  }

  func row(_ item: ManageItem, selected: Bool) -> String {
    let day = ISO8601.string(item.date)
    let when =
      date == 16 ? String(day.prefix(16)).replacingOccurrences(of: "T", with: " ") : String(day.dropFirst(5).prefix(5))
    let text =
      (selected ? "> " : "  ") + cell(item.id, id) + " " + cell(TerminalText.field(item.customer.rawValue), customer)
      + " "
      + (tab == .transactions
        ? cell(TerminalText.field(item.productID), product) + " " + cell(when, date) + " " + item.badges
        : cell(when, date) + " " + cell(TerminalText.field(item.productID), product) + " " + item.badges)
    return ManageScreen.fit(text, width)
  }

  private func cell(_ text: String, _ w: Int) -> String {
    ManageScreen.pad(text, w)
  }
}
