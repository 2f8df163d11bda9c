import Foundation
import Testing

@testable import StoreSimCLI

/// A session made with the CLI in a temporary folder, and a manager driving it without a
/// terminal (the same driver `storesim manage` runs, minus the screen).
final class ManageFixture: @unchecked Sendable {
  let cli: CLIHarness
  var driver: ManageDriver

  /// `lines`: storesim commands that prepare the session (after `init` of AppleSample).
  init(_ lines: [String] = ManageFixture.story) throws {
    cli = try CLIHarness()
    let made = cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    #expect(made.code == 0)
    for line in lines {
      let r = cli.run(line)
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, variables: [:], currentDirectory: cli.folder,
      now: { Date(timeIntervalSince1970: 1_767_225_600) })
    driver = try ManageDriver(session: try ManageSession(session: ".storesim/session.json", environment: env))
  }

  /// A session with each kind of row: purchases, a subscription and its renewal, an Ask to
  /// Buy request, a refund, a second customer.
  static let story = [
    "buy nonconsumable.car",
    "buy consumable.fuel.octane87 --quantity 2",
    "buy subscription.standard",
    "finish 2000000000000003",
    "advance 1mo",
    "refund 2000000000000001",
    "buy nonconsumable.utilityvehicle --customer kid",
    "settings ask-to-buy on",
    "buy nonconsumable.racecar",
    "settings ask-to-buy off",
  ]

  var model: ManageModel { driver.model }
  var screen: String { ManageScreen.text(ManageScreen.render(driver.model)) }
  var sessionBytes: Data { FileManager.default.contents(atPath: cli.folder + "/.storesim/session.json") ?? Data() }

  /// Presses keys written as in the key table (`j`, `Enter`, `^C`); a word in quotes is typed
  /// letter by letter (`"1mo"`).
  @discardableResult
  func press(_ keys: String...) -> [ManageEffect] {
    var effects: [ManageEffect] = []
    for k in keys {
      if k.count > 2, k.hasPrefix("\""), k.hasSuffix("\"") {
        for c in k.dropFirst().dropLast() { effects.append(driver.press(.character(c))) }
      } else {
        guard let key = ManageKey.parse(k) else {
          Issue.record("unknown key \(k)")
          continue
        }
        effects.append(driver.press(key))
      }
    }
    return effects
  }

  /// Moves the selection to the row whose id is `id`.
  func select(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) {
    driver.press(.home)
    for _ in 0..<driver.model.rows.count {
      if driver.model.selectedItem?.id == id { return }
      driver.press(.down)
    }
    Issue.record("no row \(id)", sourceLocation: sourceLocation)
  }
}
