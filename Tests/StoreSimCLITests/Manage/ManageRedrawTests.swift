import Foundation
import StoreSim
import Testing

@testable import StoreSimCLI
@testable import StoreSimTestSupport

/// What reaches the terminal: only the lines that changed, so scrolling a long list never
/// writes more than the screen.
@Suite struct ManageRedrawTests {
  /// A store of `count` purchases (consumables and non-consumables, two customers).
  static func bigStore(_ count: Int) throws -> Store {
    var store = Fixtures.store()
    try store.addCustomer("kid")
    for i in 0..<count {
      _ = try store.purchase("fuel", customer: i % 2 == 0 ? .default : "kid", at: nil)
    }
    return store
  }

  @Test func oneRowMoveRedrawsAFewLinesAndAPageAtMostTheScreen() throws {
    var model = ManageModel(store: try Self.bigStore(2000), sessionName: "s.json")
    var writer = ManageFrameWriter(colour: false)
    let full = writer.update(ManageScreen.render(model), width: 80, full: true)
    #expect(writer.linesWritten == 24)
    _ = model.handle(.character("j"))
    let step = writer.update(ManageScreen.render(model), width: 80, full: false)
    // The row left, the row selected, the summary line.
    #expect(writer.linesWritten == 3)
    #expect(step.utf8.count < full.utf8.count / 4)
    var most = 0
    for key in [ManageKey.pageDown, .pageDown, .character("j"), .pageUp, .character("G"), .character("g")] {
      for _ in 0..<20 {
        _ = model.handle(key)
        _ = writer.update(ManageScreen.render(model), width: 80, full: false)
        most = max(most, writer.linesWritten)
      }
    }
    #expect(most <= 24)
    #expect(most >= 16)  // a page move rewrites the list rows
    let again = writer.update(ManageScreen.render(model), width: 80, full: false)
    #expect(again.isEmpty && writer.linesWritten == 0)
  }

  @Test func aFrameFitsTheScreenAndStylesWholeLines() throws {
    var model = ManageModel(store: try Self.bigStore(50), sessionName: "s.json")
    model.resize(width: 100, height: 30)
    let frame = ManageScreen.render(model)
    #expect(frame.count == 30)
    #expect(frame.allSatisfy { $0.text.count <= 100 })
    #expect(frame[0].style == .bar)
    #expect(frame.filter { $0.style == .selected }.count == 1)
    var writer = ManageFrameWriter(colour: false)
    let bytes = writer.update(frame, width: 100, full: true)
    #expect(bytes.hasPrefix("\u{1B}[0m\u{1B}[2J"))
    #expect(!bytes.contains("\u{1B}[1;36m") && !bytes.contains("\u{1B}[31m"))  // no colour under NO_COLOR
    var coloured = ManageFrameWriter(colour: true)
    #expect(coloured.update(frame, width: 100, full: true).contains("\u{1B}[1;36m"))
  }
}
