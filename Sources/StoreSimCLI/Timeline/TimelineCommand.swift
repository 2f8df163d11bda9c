import Foundation
import StoreSim

/// `storesim timeline [GROUP]`.
struct TimelineCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "timeline", group: "Inspection",
    abstract: "A picture of each subscription over time",
    arguments: "[<group>]",
    discussion:
      "One row per customer and group: paid periods, trials and offers, grace, billing retry, expiry, refunds and plan changes, with dates on the axis. Colour only on a terminal. --svg prints the same as a self-contained SVG drawing (light and dark, the notifications as dated labels; the same session gives the same bytes).",
    example: "storesim timeline Premium\nstoresim timeline --svg > timeline.svg")

  @Arguments(0...1, "group")
  var arguments: [String]
  @Option("<columns>", help: "width of the time axis (default 60)", parse: TimelineCommand.width)
  var width: Int?
  @Flag(help: "print an SVG drawing instead of text")
  var svg: Bool

  var configurationReferences: [ConfigurationReference] { arguments.prefix(1).map { .groupOrProduct($0) } }

  static func width(_ w: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(w), (20...400).contains(n) else {
      throw CLIError.usage("--width takes 20 to 400 columns", command: "timeline")
    }
    return n
  }

  func validate() throws {
    if svg, width != nil { throw CLIError.usage("--width is for the text picture, not --svg", command: "timeline") }
  }

  /// The groups a `timeline` argument names: a group's id or name, or a product of it; all
  /// groups without one.
  static func groups(_ arg: String?, in store: Store) throws -> [SubscriptionGroup] {
    let groups = store.configuration.subscriptionGroups
    guard let arg else { return groups }
    guard
      let g = store.configuration.group(named: arg)
        ?? store.configuration.product(arg)?.subscription.flatMap({ store.configuration.group($0.groupID) })
    else {
      throw CLIError.refusedArgument(
        Suggest.appending(to: "no subscription group '\(arg)'", for: arg, in: groups.flatMap { [$0.id, $0.name] }))
    }
    return [g]
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let width = self.width ?? 60
    if svg, inv.json { throw CLIError.usage("--svg and --json exclude each other", command: "timeline") }
    return try SessionContext.with(inv, mutating: false) { store in
      let groups = try Self.groups(arguments.first, in: store)
      if svg {
        inv.environment.writeOut(TimelinePicture.svg(store: store, groups: groups))
        return .success
      }
      let text = Timeline.render(store: store, groups: groups, width: width, colour: inv.environment.isTerminal)
      // Names are escaped where they are drawn; the colours are ours.
      inv.emit(json: Timeline.json(store: store, groups: groups)) { inv.environment.writeOut(text + "\n") }
      return .success
    }
  }
}
