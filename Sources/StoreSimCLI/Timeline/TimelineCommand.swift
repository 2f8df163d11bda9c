import Foundation
import StoreSim

/// `storesim timeline [GROUP]`.
struct TimelineCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "timeline", group: "Inspection",
    abstract: "A picture of each subscription over time",
    arguments: "[<group>]",
    discussion:
      "One row per customer and group: paid periods, trials and offers, grace, billing retry, expiry, refunds and plan changes, with dates on the axis. Colour only on a terminal.",
    example: "storesim timeline Premium")

  @Arguments(0...1, "group")
  var arguments: [String]
  @Option("<columns>", help: "width of the time axis (default 60)", parse: TimelineCommand.width)
  var width: Int?

  var configurationReferences: [ConfigurationReference] { arguments.prefix(1).map { .groupOrProduct($0) } }

  static func width(_ w: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(w), (20...400).contains(n) else {
      throw CLIError.usage("--width takes 20 to 400 columns", command: "timeline")
    }
    return n
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let arg = arguments.first
    let width = self.width ?? 60
    return try SessionContext.with(inv, mutating: false) { store in
      var groups = store.configuration.subscriptionGroups
      if let arg {
        guard
          let g = store.configuration.group(named: arg)
            ?? store.configuration.product(arg)?.subscription.flatMap({ store.configuration.group($0.groupID) })
        else {
          throw CLIError.refusedArgument(
            Suggest.appending(
              to: "no subscription group '\(arg)'", for: arg, in: groups.flatMap { [$0.id, $0.name] }))
        }
        groups = [g]
      }
      let text = Timeline.render(store: store, groups: groups, width: width, colour: inv.environment.isTerminal)
      if inv.json {
        inv.printJSON(Timeline.json(store: store, groups: groups))
      } else {
        // Names are escaped where they are drawn; the colours are ours.
        inv.environment.writeOut(text + "\n")
      }
      return .success
    }
  }
}
