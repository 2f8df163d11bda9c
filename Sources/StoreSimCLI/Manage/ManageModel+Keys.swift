import Foundation
import StoreSim

extension ManageModel {
  /// Handles one key and says what the terminal side must do.
  mutating func handle(_ key: ManageKey) -> ManageEffect {
    if key == .control("c") { return prompt == nil && overlay == nil ? .quit : closeAll() }
    if key == .control("z") { return .suspend }
    if key == .control("l") { return .redraw }
    if isTooSmall { return key == .character("q") ? .quit : .none }
    if prompt != nil { return handlePrompt(key) }
    if let overlay { return handleOverlay(key, overlay) }
    if let effect = handleView(key) { return effect }
    if showingDetails, handleDetailsMove(key) { return .none }
    if !showingDetails, handleListMove(key) { return .none }
    guard case .character(let c) = key else { return .none }
    return handleAction(c)
  }

  private mutating func closeAll() -> ManageEffect {
    if prompt?.purpose == .filter { setFilter("") }
    prompt = nil
    overlay = nil
    return .none
  }

  /// Keys that change what is shown.
  private mutating func handleView(_ key: ManageKey) -> ManageEffect? {
    switch key {
    case .character("q"): return .quit
    case .character("?"): overlay = .help(top: 0)
    case .character("L"): overlay = .output(top: 0)
    case .character("1"): switchTab(.transactions)
    case .character("2"): switchTab(.notifications)
    case .tab, .backTab: switchTab(tab == .transactions ? .notifications : .transactions)
    case .enter, .right:
      if selectedItem != nil {
        showingDetails = true
        detailsTop = 0
      }
    case .escape, .left:
      if showingDetails {
        showingDetails = false
      } else if !filter.isEmpty {
        setFilter("")
        message = "filter cleared"
      }
    case .character("/"): prompt = ManagePrompt(purpose: .filter, text: filter.text)
    case .character(":"): prompt = ManagePrompt(purpose: .command)
    case .character("@"): prompt = ManagePrompt(purpose: .advance)
    default: return nil
    }
    return ManageEffect.none
  }

  private mutating func handleListMove(_ key: ManageKey) -> Bool {
    let page = listHeight
    switch key {
    case .character("j"), .down: move(by: 1)
    case .character("k"), .up: move(by: -1)
    case .character("g"), .home: moveToEnd(false)
    case .character("G"), .end: moveToEnd(true)
    case .pageDown: move(by: page)
    case .pageUp: move(by: -page)
    case .control("d"): move(by: page / 2)
    case .control("u"): move(by: -page / 2)
    default: return false
    }
    return true
  }

  private mutating func handleDetailsMove(_ key: ManageKey) -> Bool {
    let visible = max(1, height - 6)
    let limit = max(0, ManageDetails.lines(self).count - visible)
    switch key {
    case .character("j"), .down: detailsTop += 1
    case .character("k"), .up: detailsTop -= 1
    case .character("g"), .home: detailsTop = 0
    case .character("G"), .end: detailsTop = limit
    case .pageDown, .control("d"): detailsTop += visible
    case .pageUp, .control("u"): detailsTop -= visible
    default: return false
    }
    detailsTop = max(0, min(detailsTop, limit))
    return true
  }

  /// Keys that act on the session (or open the list that will).
  private mutating func handleAction(_ c: Character) -> ManageEffect {
    let item = selectedItem
    switch c {
    case "b": overlay = .picker(ManageActions.buyPicker(store, acting: acting))
    case "C": overlay = .picker(ManageActions.customerPicker(store, acting: acting))
    case "o": overlay = .picker(ManageActions.settingsPicker(store))
    case "p":
      guard tab == .transactions, item != nil else { return refuse("select a subscription first") }
      overlay = .picker(ManageActions.priceIncreasePicker(item))
    case "T":
      switch ManageActions.advanceToPeriodEnd(tab == .transactions ? item : nil, store: store) {
      case .success(let argv): return .run(argv)
      case .failure(let refusal): return refuse(refusal.message)
      }
    default:
      let rowItem = tab == .transactions ? item : nil
      guard let argv = ManageActions.argv(c, item: rowItem, store: store) else { return .none }
      if !["t", "]"].contains(c) {
        if tab == .notifications { return refuse("actions work on the Transactions list (press 1)") }
        if rowItem == nil { return refuse("no row selected") }
      }
      return .run(argv)
    }
    return .none
  }

  private mutating func refuse(_ text: String) -> ManageEffect {
    message = "error: " + text
    return .none
  }

  private mutating func handlePrompt(_ key: ManageKey) -> ManageEffect {
    guard var p = prompt else { return .none }
    switch key {
    case .escape:
      return closeAll()
    case .enter:
      prompt = nil
      switch p.purpose {
      case .filter:
        setFilter(p.text)
        return .none
      case .advance:
        return p.text.trimmingCharacters(in: .whitespaces).isEmpty ? .none : .run(ManageActions.advanceArgv(p.text))
      case .command:
        switch ManageActions.commandArgv(p.text, acting: acting) {
        case .success(let argv): return .run(argv)
        case .failure(let refusal): return refusal.message.isEmpty ? .none : refuse(refusal.message)
        }
      }
    case .backspace:
      if !p.text.isEmpty { p.text.removeLast() }
    case .control("u"):
      p.text = ""
    case .character(let c):
      p.text.append(c)
    default:
      return .none
    }
    prompt = p
    if p.purpose == .filter { setFilter(p.text) }
    return .none
  }

  private mutating func handleOverlay(_ key: ManageKey, _ current: ManageOverlay) -> ManageEffect {
    switch current {
    case .help(let top), .output(let top):
      var t = top
      switch key {
      case .escape, .character("q"), .character("?"), .character("L"), .enter: overlay = nil
      case .character("j"), .down: t += 1
      case .character("k"), .up: t -= 1
      case .pageDown: t += listHeight
      case .pageUp: t -= listHeight
      default: break
      }
      if overlay != nil {
        t = max(0, t)
        if case .help = current { overlay = .help(top: t) } else { overlay = .output(top: t) }
      }
      return .none
    case .picker(var picker):
      return handlePicker(key, &picker)
    }
  }

  private mutating func handlePicker(_ key: ManageKey, _ picker: inout ManagePicker) -> ManageEffect {
    let count = picker.visible.count
    switch key {
    case .escape:
      overlay = nil
      return .none
    case .down, .control("n"): picker.selected = min(picker.selected + 1, max(0, count - 1))
    case .up, .control("p"): picker.selected = max(picker.selected - 1, 0)
    case .pageDown: picker.selected = min(picker.selected + listHeight, max(0, count - 1))
    case .pageUp: picker.selected = max(picker.selected - listHeight, 0)
    case .backspace:
      if !picker.query.isEmpty { picker.query.removeLast() }
      picker.selected = 0
    case .character(let c):
      picker.query.append(c)
      picker.selected = 0
    case .enter:
      overlay = nil
      let visible = picker.visible
      if visible.indices.contains(picker.selected) {
        return choose(visible[picker.selected].action)
      }
      if picker.typedValue, !picker.query.trimmingCharacters(in: .whitespaces).isEmpty {
        return choose(.customer(picker.query.trimmingCharacters(in: .whitespaces)))
      }
      return .none
    default: break
    }
    overlay = .picker(picker)
    return .none
  }

  private mutating func choose(_ action: ManagePicker.Action) -> ManageEffect {
    switch action {
    case .run(let argv): return .run(argv)
    case .picker(let next):
      overlay = .picker(next)
      return .none
    case .customer(let name):
      acting = CustomerID(name)
      message =
        store.hasCustomer(acting)
        ? "acting customer: \(name)" : "acting customer: \(name) (new: made by the first purchase)"
      return .none
    }
  }
}
