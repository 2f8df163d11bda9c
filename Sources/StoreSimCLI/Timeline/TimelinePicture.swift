import Foundation
import StoreSim

/// `timeline --svg`: each subscription's life as an SVG drawing on one time axis per group.
///
/// The bytes depend only on the session (no clock, no random ids, coordinates rounded to whole
/// pixels), the colours follow `prefers-color-scheme` from an embedded style sheet, and nothing
/// outside the file is referred to.
enum TimelinePicture {
  static let width = 960
  static let plotLeft = 170
  static let plotRight = 940
  /// Roughly how wide one character of the 11 px monospaced labels is.
  static let characterWidth = 7.0

  /// The kinds of period, their legend text, in drawing order.
  static let kinds: [(kind: String, label: String)] = [
    ("paid", "paid period"), ("trial", "free trial"), ("offer", "offer"), ("grace", "grace period"),
    ("billingRetry", "billing retry"), ("refunded", "refunded / revoked"),
  ]

  static let style = """
    .tl-root{--bg:#ffffff;--fg:#1d1d1f;--muted:#6e6e73;--grid:#d2d2d7;--paid:#2e9e4f;--trial:#2aa7c9;\
    --offer:#2f6fdb;--grace:#d9a400;--billingRetry:#d93b30;--refunded:#9b4fd0;--change:#1d1d1f}
    @media (prefers-color-scheme: dark){.tl-root{--bg:#1c1c1e;--fg:#f5f5f7;--muted:#a1a1a6;--grid:#3a3a3c;\
    --paid:#32d74b;--trial:#64d2ff;--offer:#5e9bff;--grace:#ffd60a;--billingRetry:#ff6961;--refunded:#da8fff;\
    --change:#f5f5f7}}
    .tl-root text{fill:var(--fg);font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
    .tl-root .tl-bg{fill:var(--bg)} .tl-root .tl-muted{fill:var(--muted)} .tl-root .tl-head{font-weight:bold;font-size:13px}
    .tl-root .tl-axis{stroke:var(--grid);stroke-width:1} .tl-root .tl-now{stroke:var(--muted);stroke-dasharray:4 3}
    .tl-root .tl-change{stroke:var(--change);stroke-width:2} .tl-root .tl-mark{stroke:var(--muted);stroke-width:1}
    .tl-root .tl-paid{fill:var(--paid)} .tl-root .tl-trial{fill:var(--trial)} .tl-root .tl-offer{fill:var(--offer)}
    .tl-root .tl-grace{fill:var(--grace)} .tl-root .tl-billingRetry{fill:var(--billingRetry)}
    .tl-root .tl-refunded{fill:var(--refunded)} .tl-root .tl-bar-label{fill:#ffffff;font-size:10px}
    """

  /// The whole SVG document.
  static func svg(store: Store, groups: [SubscriptionGroup]) -> String {
    var body = ""
    var y = 30
    body += text(12, y, "storesim timeline — virtual now \(ISO8601.string(store.now))", class: "tl-head")
    y += 14
    for group in groups {
      y += 22
      body += text(12, y, "\(group.name) (\(group.id))", class: "tl-head")
      let rows = store.customerIDs.map { ($0, Timeline.periods(store: store, group: group, customer: $0)) }.filter {
        !$0.1.isEmpty
      }
      guard !rows.isEmpty else {
        y += 18
        body += text(12, y, "no subscriptions", class: "tl-muted")
        continue
      }
      let start = rows.flatMap { $0.1 }.map(\.start).min()!
      let end = max(store.now, rows.flatMap { $0.1 }.map(\.end).max()!)
      let axis = Axis(start: start, end: end)
      y += 12
      let axisTop = y
      body += axisDrawing(axis, top: y)
      y += 26
      var lanes = ""
      for (customer, periods) in rows {
        let drawn = lane(
          store: store, group: group, customer: customer, periods: periods, axis: axis, top: y)
        lanes += drawn.markup
        y = drawn.bottom + 10
      }
      // The line of the virtual now goes first, under the bars and labels drawn over it.
      let nowX = axis.x(store.now)
      body += #"<line class="tl-now" x1="\#(nowX)" y1="\#(axisTop)" x2="\#(nowX)" y2="\#(y + 2)"/>"# + lanes
      body += text(nowX - 10, y + 14, "now", class: "tl-muted")
      y += 18
    }
    y += 26
    var x = 12
    for (kind, label) in kinds {
      body += #"<rect class="tl-\#(kind)" x="\#(x)" y="\#(y - 9)" width="14" height="10"/>"#
      body += text(x + 18, y, label)
      x += 30 + Int(Double(label.count) * characterWidth)
    }
    body += #"<line class="tl-change" x1="\#(x + 2)" y1="\#(y - 10)" x2="\#(x + 2)" y2="\#(y + 2)"/>"#
    body += text(x + 8, y, "plan change")
    let height = y + 16
    return #"<svg xmlns="http://www.w3.org/2000/svg" class="tl-root" width="\#(width)" height="\#(height)" "#
      + #"viewBox="0 0 \#(width) \#(height)" role="img" aria-label="storesim timeline">"# + "\n"
      + "<title>storesim timeline</title>\n<style>\n\(style)\n</style>\n"
      + #"<rect class="tl-bg" x="0" y="0" width="\#(width)" height="\#(height)"/>"# + "\n" + body + "</svg>\n"
  }

  /// Dates to pixels on one group's axis.
  struct Axis {
    var start: Date
    var end: Date
    func x(_ date: Date) -> Int {
      let span = max(end.timeIntervalSince(start), 1)
      let fraction = min(1, max(0, date.timeIntervalSince(start) / span))
      return plotLeft + Int((fraction * Double(plotRight - plotLeft)).rounded())
    }
    /// A date as the labels show it: the day, or the day and time when the axis spans under
    /// three days.
    func label(_ date: Date) -> String {
      let text = ISO8601.string(date)
      return end.timeIntervalSince(start) < 3 * 86_400 ? String(text.prefix(16)) : String(text.prefix(10))
    }
  }

  /// The axis line with six dated ticks.
  static func axisDrawing(_ axis: Axis, top: Int) -> String {
    var out = #"<line class="tl-axis" x1="\#(plotLeft)" y1="\#(top)" x2="\#(plotRight)" y2="\#(top)"/>"#
    var last = ""
    for i in 0...5 {
      let date = axis.start.addingTimeInterval(axis.end.timeIntervalSince(axis.start) * Double(i) / 5)
      let label = axis.label(date)
      guard label != last else { continue }
      last = label
      let x = axis.x(date)
      out += #"<line class="tl-axis" x1="\#(x)" y1="\#(top - 4)" x2="\#(x)" y2="\#(top + 4)"/>"#
      let width = Int(Double(label.count) * characterWidth)
      out += text(min(max(x - width / 2, plotLeft - 20), plotRight - width), top + 16, label, class: "tl-muted")
    }
    return out + "\n"
  }

  /// One customer's row: the periods as bars, plan changes, and the notifications as dated
  /// labels stacked under the bar so none overlaps another.
  static func lane(
    store: Store, group: SubscriptionGroup, customer: CustomerID, periods: [Timeline.Period], axis: Axis, top: Int
  ) -> (markup: String, bottom: Int) {
    var out = text(12, top + 12, customer.rawValue)
    var previousProduct: String?
    for p in periods {
      let a = axis.x(p.start), b = max(axis.x(p.end), a + 2)
      let onFailure = p.transaction == nil
      let y = onFailure ? top + 11 : top
      let h = onFailure ? 6 : 16
      var tip = "\(p.kind) \(axis.label(p.start)) – \(axis.label(p.end))"
      if let t = p.transaction { tip += " · \(t.productID) · transaction \(t.id)" }
      out += #"<rect class="tl-\#(p.kind)" x="\#(a)" y="\#(y)" width="\#(b - a)" height="\#(h)">"#
      out += "<title>\(XMLText.escaped(tip))</title></rect>"
      if let t = p.transaction {
        if let previous = previousProduct, previous != t.productID {
          out += #"<line class="tl-change" x1="\#(a)" y1="\#(top - 4)" x2="\#(a)" y2="\#(top + 20)">"#
          out += "<title>\(XMLText.escaped("plan change: \(previous) → \(t.productID)"))</title></line>"
        }
        previousProduct = t.productID
        let label = t.productID
        if Double(b - a - 6) >= Double(label.count) * characterWidth * 0.92 {
          out += text(a + 3, top + 11, label, class: "tl-bar-label")
        }
      }
    }
    // Notifications: a tick under the bar and `DATE TYPE/SUBTYPE` on the first label row free there
    // (the tick stays short: a line down to a lower row would cross the labels above it).
    var rowEnds: [Int] = []
    var bottom = top + 18
    for n in Timeline.notifications(store: store, group: group, customer: customer) {
      let x = axis.x(n.signedDate)
      let label =
        "\(axis.label(n.signedDate)) \(n.notificationType.rawValue)" + (n.subtype.map { "/\($0.rawValue)" } ?? "")
      let width = Int(Double(label.count) * characterWidth)
      let left = max(12, min(x - 2, Self.width - 12 - width))
      let row = rowEnds.firstIndex { $0 < left } ?? rowEnds.count
      if row == rowEnds.count { rowEnds.append(0) }
      rowEnds[row] = left + width + 8
      let y = top + 32 + row * 14
      out += #"<line class="tl-mark" x1="\#(x)" y1="\#(top + 17)" x2="\#(x)" y2="\#(top + 22)"/>"#
      out += text(left, y, label, class: "tl-muted")
      bottom = max(bottom, y + 4)
    }
    return (out + "\n", bottom)
  }

  static func text(_ x: Int, _ y: Int, _ content: String, class name: String? = nil) -> String {
    let attribute = name.map { #" class="\#($0)""# } ?? ""
    return #"<text x="\#(x)" y="\#(y)"\#(attribute)>\#(XMLText.escaped(content))</text>"#
  }
}
