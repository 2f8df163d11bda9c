import Foundation
import StoreSim

/// `storesim timeline [GROUP]`.
struct TimelineCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "timeline", group: "Inspection",
    abstract: "A picture of each subscription over time",
    arguments: "[<group>]",
    discussion:
      "One row per customer and group: paid periods, trials and offers, grace, billing retry, expiry, refunds and plan changes, with dates on the axis. Colour only on a terminal. --svg FILE writes the same as a self-contained SVG drawing (light and dark, the notifications as dated labels; the same session gives the same bytes) to FILE, which must end in .svg; --svg alone or --svg - prints it (as 'report --html' and 'run --timeline' take a file). To draw one group, name it before --svg.",
    example:
      "storesim timeline Premium\nstoresim timeline --svg timeline.svg\nstoresim timeline Premium --svg - | head -3")

  @Arguments(0...1, "group")
  var arguments: [String]
  @Option("<columns>", help: "width of the time axis (default 60)", parse: TimelineCommand.width)
  var width: Int?
  @Option(
    "<file>", help: "write an SVG drawing to FILE (.svg) instead of text; alone or -: print it", valueIsOptional: true)
  var svg: String?

  var configurationReferences: [ConfigurationReference] { arguments.prefix(1).map { .groupOrProduct($0) } }

  static func width(_ w: String, _ context: ParseContext) throws -> Int {
    guard let n = Int(w), (20...400).contains(n) else {
      throw CLIError.usage("--width takes 20 to 400 columns", command: "timeline")
    }
    return n
  }

  func validate() throws {
    if svg != nil, width != nil {
      throw CLIError.usage("--width is for the text picture, not --svg", command: "timeline")
    }
    if let svg, svg != "-", !svg.lowercased().hasSuffix(".svg") {
      // `timeline --svg GROUP` drew GROUP before --svg took a file: refuse, never write it.
      throw CLIError.usage(
        "--svg takes a file ending in .svg, or - for standard output; to draw one group, "
          + "name it first: timeline \(svg) --svg", command: "timeline")
    }
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
    if svg != nil, inv.json { throw CLIError.usage("--svg and --json exclude each other", command: "timeline") }
    let path = try svg.flatMap { $0 == "-" ? nil : try inv.environment.resolve($0) }
    return try SessionContext.with(inv, mutating: false) { store in
      let groups = try Self.groups(arguments.first, in: store)
      if let svg {
        let picture = TimelinePicture.svg(store: store, groups: groups)
        guard let path else {
          inv.environment.writeOut(picture)
          return .success
        }
        try ReportPage.write(picture, to: path, shown: svg, what: "the drawing")
        inv.out("wrote \(svg)")
        return .success
      }
      let text = Timeline.render(store: store, groups: groups, width: width, colour: inv.environment.isTerminal)
      // Names are escaped where they are drawn; the colours are ours.
      inv.emit(json: Timeline.json(store: store, groups: groups)) { inv.environment.writeOut(text + "\n") }
      return .success
    }
  }
}
