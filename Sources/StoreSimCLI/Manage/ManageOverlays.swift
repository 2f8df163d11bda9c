import Foundation
import StoreSim

/// Panels drawn over the list: the key table, a picker, the last command's output.
enum ManageOverlays {
  /// Replaces the lines below the clock line (all but the title and clock) with the panel.
  static func draw(_ overlay: ManageOverlay, over lines: inout [ManageLine], model m: ManageModel) {
    let first = 2
    let height = lines.count - first
    guard height > 2 else { return }
    var panel: [ManageLine]
    switch overlay {
    case .help(let top):
      panel = scrolled("Keys (every action is the storesim command shown)", helpLines(m.width), top: top, height)
    case .output(let top):
      let text = m.lastOutput.isEmpty ? ["(no command run yet)"] : m.lastOutput.map(TerminalText.field)
      panel = scrolled("Output of the last command", text, top: top, height)
    case .picker(let picker):
      panel = pickerLines(picker, height: height, width: m.width)
    }
    for (i, line) in panel.prefix(height).enumerated() {
      lines[first + i] = ManageLine(text: ManageScreen.fit(line.text, m.width), style: line.style)
    }
    for i in (first + panel.count)..<lines.count { lines[i] = ManageLine(text: "") }
  }

  private static func scrolled(_ title: String, _ text: [String], top: Int, _ height: Int) -> [ManageLine] {
    let visible = height - 2
    let start = max(0, min(top, max(0, text.count - visible)))
    var out = [ManageLine(text: "+-- \(title) " + String(repeating: "-", count: 10), style: .heading)]
    out += text.dropFirst(start).prefix(visible).map { ManageLine(text: $0) }
    while out.count < height - 1 { out.append(ManageLine(text: "")) }
    let more = start + visible < text.count ? "  (j/k: more)" : ""
    out.append(ManageLine(text: "+-- Esc closes\(more) " + String(repeating: "-", count: 10), style: .heading))
    return out
  }

  /// The key table in three columns: keys, what they do, the command they run.
  static func helpLines(_ width: Int) -> [String] {
    var out: [String] = []
    var group = ""
    for k in ManageActions.keyTable {
      let label = k.group == group ? "" : k.group
      group = k.group
      out.append(
        " " + ManageScreen.pad(label, 10) + ManageScreen.pad(k.keys, 16) + ManageScreen.pad(k.action, 31)
          + k.command)
    }
    out.append("")
    out.append("  Refusals are the CLI's own message, in the message line; nothing changes.")
    out.append("  Filter words: customer:NAME product:TEXT state:BADGE (e.g. state:unfinished).")
    return out.map { ManageScreen.fit($0, width) }
  }

  private static func pickerLines(_ picker: ManagePicker, height: Int, width: Int) -> [ManageLine] {
    var out = [ManageLine(text: "+-- \(picker.title) " + String(repeating: "-", count: 10), style: .heading)]
    out.append(ManageLine(text: "  > " + picker.query + "_"))
    let visible = picker.visible
    let room = height - 3
    let start = max(0, min(picker.selected - room + 1, max(0, visible.count - room)))
    if visible.isEmpty {
      out.append(
        ManageLine(
          text: picker.typedValue && !picker.query.isEmpty
            ? "  (none matches; Enter takes '\(picker.query)')" : "  (none matches)"))
    }
    for (i, entry) in visible.enumerated().dropFirst(start).prefix(room) {
      let selected = i == picker.selected
      out.append(
        ManageLine(
          text: (selected ? "> " : "  ") + TerminalText.field(entry.label), style: selected ? .selected : .plain))
    }
    while out.count < height - 1 { out.append(ManageLine(text: "")) }
    out.append(
      ManageLine(
        text: "+-- \(visible.count) of \(picker.entries.count) " + String(repeating: "-", count: 10), style: .heading))
    return out
  }
}
