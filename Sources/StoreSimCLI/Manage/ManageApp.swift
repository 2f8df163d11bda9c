import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `storesim manage` on a terminal: the driver's frames drawn, keys read, the session watched.
enum ManageApp {
  /// How often the session file is looked at for changes made by other processes.
  static let pollMilliseconds: Int32 = 250

  static func run(_ inv: Invocation) throws -> ExitCode {
    guard inv.environment.isTerminal, ManageTerminal.isAvailable else {
      throw CLIError(
        code: .usage,
        message:
          "storesim manage needs a terminal (standard input and output); use 'storesim transactions' and 'storesim timeline' instead"
      )
    }
    // The session is read before the screen is taken: a missing or damaged one is the CLI's
    // usual one-line error. The notification outbox follows the first screen.
    var driver = try ManageDriver(session: try ManageSession(inv), fast: true)
    if let name = inv.globals.customer { driver.model.acting = .init(name) }
    let variables = inv.environment.variables
    let colour = (variables["NO_COLOR"] ?? "").isEmpty && variables["TERM"] != "dumb"
    var writer = ManageFrameWriter(colour: colour)
    ManageTerminal.enter()
    defer { ManageTerminal.leave() }
    var full = true
    func draw() {
      // Back from a stop (fg after ^Z or kill -TSTP): raw mode and the screen again, whole.
      if ManageTerminal.continued() {
        ManageTerminal.enter()
        full = true
      }
      if ManageTerminal.resized() {
        full = true
      }
      let size = ManageTerminal.size()
      if size.width != driver.model.width || size.height != driver.model.height {
        driver.model.resize(width: size.width, height: size.height)
        full = true
      }
      ManageTerminal.write(writer.update(ManageScreen.render(driver.model), width: size.width, full: full))
      full = false
    }
    draw()
    driver.loadAll()
    draw()
    var decoder = ManageKeyDecoder()
    while true {
      guard let bytes = ManageTerminal.readInput(timeout: pollMilliseconds) else { return .success }
      for key in decoder.decode(bytes) {
        switch driver.press(key) {
        case .quit: return .success
        case .suspend:
          ManageTerminal.suspend()
          _ = ManageTerminal.continued()
          full = true
        case .redraw: full = true
        case .none, .run: break
        }
      }
      driver.refreshIfChanged()
      draw()
    }
  }
}
