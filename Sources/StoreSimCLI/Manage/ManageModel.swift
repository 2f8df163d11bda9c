import Foundation
import StoreSim

/// The two lists of the manager.
enum ManageTab: Int, Sendable, CaseIterable {
  case transactions = 1
  case notifications = 2

  var title: String { self == .transactions ? "Transactions" : "Notifications" }
}

/// A list to choose from, drawn over the screen; typing narrows it.
struct ManagePicker: Sendable {
  struct Entry: Sendable {
    var label: String
    var action: Action
  }

  indirect enum Action: Sendable {
    /// Runs a storesim command line.
    case run([String])
    /// Opens another list.
    case picker(ManagePicker)
    /// Makes this the acting customer.
    case customer(String)
  }

  var title: String
  var entries: [Entry]
  var query = ""
  var selected = 0
  /// Enter with no match takes the typed text (a new customer's name).
  var typedValue = false

  var visible: [Entry] {
    guard !query.isEmpty else { return entries }
    let q = query.lowercased()
    return entries.filter { $0.label.lowercased().contains(q) }
  }
}

/// A one-line question at the foot of the screen.
struct ManagePrompt: Sendable, Equatable {
  enum Purpose: Sendable, Equatable { case filter, advance, command }
  var purpose: Purpose
  var text = ""

  var label: String {
    switch purpose {
    case .filter: return "/"
    case .advance: return "advance by (1d, 1mo) or to (2026-03-01): "
    case .command: return ":storesim "
    }
  }
}

/// What is drawn over the list.
enum ManageOverlay: Sendable {
  case help(top: Int)
  case picker(ManagePicker)
  /// The whole output of the last action.
  case output(top: Int)
}

/// What the terminal side must do after a key.
enum ManageEffect: Equatable, Sendable {
  case none
  /// Run this storesim command line on the session (the session option is added by the runner).
  case run([String])
  case quit
  /// Draw everything again (Ctrl-L).
  case redraw
  /// Stop like Ctrl-Z does, restoring the terminal first.
  case suspend
}

/// The state of the manager's screen: pure data, changed by keys and by new sessions, drawn
/// by `ManageScreen`. No terminal and no file here, so every behaviour is testable as a value.
struct ManageModel: Sendable {
  private(set) var store: Store
  /// The session file as the user named it.
  var sessionName: String
  /// The customer `b` buys as and `:` commands act for.
  var acting: CustomerID = .default
  var width = 80
  var height = 24
  private(set) var tab: ManageTab = .transactions
  /// The details of the selected row are open, scrolled to `detailsTop`.
  var showingDetails = false
  var detailsTop = 0
  var overlay: ManageOverlay?
  var prompt: ManagePrompt?
  /// The message line: the last result or refusal.
  var message = ""
  /// The whole output of the last command run.
  var lastOutput: [String] = []
  /// Whether the notification outbox was read (a large session opens without it).
  private(set) var hasNotifications: Bool
  private(set) var filters: [ManageTab: ManageFilter] = [:]
  private var selection: [ManageTab: ManageRowKey] = [:]
  private var tops: [ManageTab: Int] = [:]
  private(set) var groups: [ManageGroup]
  private var notificationRefs: [ManageRef]?
  /// The lines of the current list, under the filter.
  private(set) var rows: [ManageRow] = []
  /// The index in `rows` of the selected item (nil when the list is empty).
  private(set) var cursor: Int?
  private(set) var itemCount = 0
  private(set) var totalCount = 0
  /// The longest product id of the current list (the product column is as wide as it needs).
  private(set) var productWidth = 12

  init(store: Store, sessionName: String, hasNotifications: Bool = true) {
    self.store = store
    self.sessionName = sessionName
    self.hasNotifications = hasNotifications
    groups = ManageRows.transactionGroups(store)
    rebuildRows()
  }

  /// A new state of the session (reloaded, or changed by an action); the selection stays on
  /// the same transaction, request or notification when it still exists.
  mutating func replaceStore(_ store: Store, hasNotifications: Bool) {
    self.store = store
    self.hasNotifications = hasNotifications
    groups = ManageRows.transactionGroups(store)
    notificationRefs = nil
    rebuildRows()
  }

  var filter: ManageFilter { filters[tab] ?? ManageFilter(text: "") }
  var selectedItem: ManageItem? { cursor.flatMap { item(at: $0) } }

  /// The text of row `i` (nil for a heading).
  func item(at i: Int) -> ManageItem? {
    rows[i].ref.map { ManageRows.item($0, store) }
  }

  /// Every row of the list under the filter, as text (for tests and small lists).
  var items: [ManageItem] { rows.indices.compactMap(item(at:)) }
  var top: Int { tops[tab] ?? 0 }
  /// Rows of the list on screen: the lines between the four at the top and the four at the foot.
  var listHeight: Int { max(1, height - 8) }
  var isTooSmall: Bool { width < 80 || height < 24 }

  mutating func switchTab(_ new: ManageTab) {
    guard new != tab else { return }
    tab = new
    showingDetails = false
    // A list seen for the first time starts at its top.
    if selection[tab] == nil { cursor = 0 }
    rebuildRows()
  }

  mutating func setFilter(_ text: String) {
    filters[tab] = ManageFilter(text: text)
    rebuildRows()
  }

  /// Recomputes the rows of the current tab, keeps the selection on its key and the cursor on screen.
  mutating func rebuildRows() {
    let f = filter
    switch tab {
    case .transactions:
      rows = f.rows(groups, store)
      totalCount = groups.reduce(0) { $0 + $1.refs.count }
      itemCount = f.isEmpty ? totalCount : rows.count - rows.reduce(0) { $0 + ($1.ref == nil ? 1 : 0) }
    case .notifications:
      if notificationRefs == nil { notificationRefs = ManageRows.notificationRefs(store) }
      rows = f.rows(notificationRefs ?? [], store)
      totalCount = notificationRefs?.count ?? 0
      itemCount = rows.count
    }
    // As wide as the catalogue's longest product id (not the rows': a huge list is not read).
    productWidth = store.configuration.products.reduce(12) { max($0, $1.id.count) }
    let store = store
    if let key = selection[tab],
      let i = rows.firstIndex(where: { $0.ref.map { ManageRows.matches($0, key, store) } ?? false })
    {
      cursor = i
    } else {
      let previous = min(cursor ?? 0, max(0, rows.count - 1))
      cursor = nearestItem(from: previous, forward: true) ?? nearestItem(from: previous, forward: false)
    }
    remember()
  }

  private func nearestItem(from start: Int, forward: Bool) -> Int? {
    var i = start
    while i >= 0 && i < rows.count {
      if rows[i].ref != nil { return i }
      i += forward ? 1 : -1
    }
    return nil
  }

  /// Moves the selection by `delta` items' worth of rows (headings are passed over).
  mutating func move(by delta: Int) {
    guard let c = cursor else { return }
    let target = min(max(c + delta, 0), rows.count - 1)
    cursor =
      nearestItem(from: target, forward: delta > 0) ?? nearestItem(from: target, forward: delta <= 0) ?? c
    remember()
  }

  mutating func moveToEnd(_ last: Bool) {
    guard !rows.isEmpty else { return }
    cursor = last ? nearestItem(from: rows.count - 1, forward: false) : nearestItem(from: 0, forward: true)
    remember()
  }

  /// Keeps the selected key, and scrolls so the cursor (and its group heading when it fits) shows.
  private mutating func remember() {
    if let c = cursor, let ref = rows[c].ref { selection[tab] = ManageRows.key(ref, store) }
    var t = tops[tab] ?? 0
    if let c = cursor {
      if c < t { t = c > 0 && rows[c - 1].ref == nil ? c - 1 : c }
      if c >= t + listHeight { t = c - listHeight + 1 }
    }
    t = max(0, min(t, max(0, rows.count - listHeight)))
    tops[tab] = t
  }

  /// A new screen size: the list is laid out again around the selection.
  mutating func resize(width: Int, height: Int) {
    self.width = width
    self.height = height
    remember()
  }

  /// What the last command printed: the message line gets its first line, and `L` shows all.
  mutating func showResult(code: Int32, stdout: String, stderr: String) {
    let out = stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    let err = stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    lastOutput = out + err
    if code == 0 {
      let first = out.first ?? err.first ?? "done"
      let more = out.count + err.count - 1
      message = first + (more > 0 ? "  (+\(more) more: L shows all)" : "")
    } else {
      message = err.first { $0.hasPrefix("error:") } ?? err.first ?? "error: exit code \(code)"
    }
  }
}
