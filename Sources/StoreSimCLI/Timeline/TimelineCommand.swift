import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

let timelineCommand = CommandSpec(
  name: "timeline", group: "Inspection",
  abstract: "A picture of each subscription over time",
  arguments: "[<group>]",
  options: [OptionSpec(name: "width", value: "<columns>", help: "width of the time axis (default 60)")],
  discussion:
    "One row per customer and group: paid periods, trials and offers, grace, billing retry, expiry, refunds and plan changes, with dates on the axis. Colour only on a terminal.",
  example: "storesim timeline Premium",
  run: { inv in
    let arg = try inv.positionals(0...1, "group").first
    var width = 60
    if let w = inv.arguments.value("width") {
      guard let n = Int(w), (20...400).contains(n) else {
        throw CLIError.usage("--width takes 20 to 400 columns", command: "timeline")
      }
      width = n
    }
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
  })
