import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimSession

/// `storesim init CONFIG`: a new session.
struct InitCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "init", group: "Session and catalogue",
    abstract: "Start a new session from a .storekit configuration",
    arguments: "<config.storekit>",
    discussion: """
      Writes the session file (--session, $STORESIM_SESSION, or .storesim/session.json). Settings
      start from the configuration's settings block. Later commands load the session, act, and
      save it atomically; when the configuration file changes, the next command reloads it.
      --api-key AuthKey.p8 --key-id KID --issuer ISS gives the session the team's In-App
      Purchase key (only its public half is kept): offers signed with it (kid KID, and iss ISS in
      a JWS) are honoured as with the configuration's subscriptionOffersKeyPair, and serve and
      api check bearer tokens with it when they are given no --api-key.
      """,
    example: "storesim init Configurations/AppleSample.storekit --start 2026-01-01T00:00:00Z")

  @Arguments(1...1, "configuration file")
  var arguments: [String]
  @Option(
    "<date>", help: "virtual start date, ISO 8601 (default: now, whole seconds, UTC)", parse: ValueParsing.dateOption)
  var start: Date?
  @Option("<id>", help: "the app's bundle id (default com.example.app)")
  var bundleID: String?
  @Option("<env>", help: "Xcode (default), LocalTesting, Sandbox or Production", parse: InitCommand.environment)
  var environment: StoreEnvironment?
  @Flag(help: "replace an existing session (a damaged one is kept as <session>.damaged, .damaged.1, ...)")
  var force: Bool
  @Option("<path>", help: "P-256 key (PEM or DER) the signing chain is made from (default: a new random key)")
  var signingKey: String?
  @Option("<n>", help: "the app's Apple id that Production data carries (appAppleId)", parse: InitCommand.appAppleID)
  var appAppleID: Int64?
  @OptionGroup var teamKey: APIKeyOptions

  /// `--app-apple-id`: a positive integer.
  static func appAppleID(_ text: String, _ context: ParseContext) throws -> Int64 {
    guard let n = Int64(text), n > 0 else {
      throw CLIError.usage("invalid app Apple id '\(text)'; expected a positive integer", command: "init")
    }
    return n
  }

  /// `--environment`.
  static func environment(_ text: String, _ context: ParseContext) throws -> StoreEnvironment {
    guard let e = StoreEnvironment(userInput: text) else {
      throw CLIError.usage(
        Suggest.orValues(
          "unknown environment '\(text)'", for: text, in: StoreEnvironment.allCases.map(\.rawValue)),
        command: "init")
    }
    return e
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let config = arguments[0]
    let start = self.start ?? Date(timeIntervalSince1970: inv.environment.now().timeIntervalSince1970.rounded(.down))
    var environment = self.environment ?? .xcode
    let bundleID = self.bundleID ?? "com.example.app"
    guard !bundleID.isEmpty, !bundleID.contains(where: \.isWhitespace) else {
      throw CLIError.usage("invalid bundle id '\(bundleID)'", command: "init")
    }
    let rootKey = try signingKey.map { try KeyFile.read($0, option: "--signing-key", inv) }
    let teamKey = try self.teamKey.key(inv, command: "init").map {
      OfferKey(keyID: $0.keyID, publicKey: $0.publicKey, issuer: $0.issuer)
    }
    let contentPath = try ConfigurationFile.contentPath(config, environment: inv.environment)
    let (loaded, data) = try ConfigurationFile.load(config, environment: inv.environment)
    for w in loaded.warnings { inv.err(ConfigurationFile.diagnostic(w, file: config)) }
    var report = InitReport(
      session: nil, configuration: config, products: loaded.configuration.products.count,
      warnings: loaded.warnings.count, bundleID: bundleID, environment: environment, now: start)
    if let memory = inv.memory {
      if let forced = memory.environmentOverride { environment = forced }
      if self.start == nil { memory.startedOnWallClock = true }
      var store = Store(configuration: loaded.configuration, start: start, bundleID: bundleID, environment: environment)
      store.tieReceipts(toDownload: downloadID(inv))
      // A scenario's session signs reproducibly: its key is derived unless one is given.
      store.useSigning(rootKey.map { SigningIdentity(rootKey: $0, environment: environment) }, appAppleID: appAppleID)
      store.useTeamKey(teamKey)
      memory.store = store
      report.environment = environment
      report.now = store.now
      report.print(inv)
      return .success
    }
    let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
    var store = Store(configuration: loaded.configuration, start: start, bundleID: bundleID, environment: environment)
    // A receipt of this session, and no other, is authenticated (rule verify-receipt-tied-to-session).
    store.tieReceipts(toDownload: downloadID(inv))
    store.useSigning(signingIdentity(inv, rootKey, environment), appAppleID: appAppleID)
    store.useTeamKey(teamKey)
    let document = SessionDocument(
      format: SessionDocument.formatName, version: SessionDocument.currentVersion,
      configurationPath: contentPath, configurationDigest: SessionFileFormat.digest(data), state: store.state)
    try SessionWork(location: location, warn: inv.warning).create(document) {
      guard force else {
        throw CLIError.failed("a session already exists at \(location.shown); pass --force to replace it")
      }
    }
    report.session = location.shown
    report.now = store.now
    report.print(inv)
    return .success
  }
}

/// The session's `download_id`: 63 random bits from the environment (never 0, which means "no
/// tie"), so a test's fixed random bytes give the same receipts.
func downloadID(_ inv: Invocation) -> Int64 {
  let value = inv.environment.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1
  return Int64(max(value, 1))
}

/// The session's signing identity: from `--signing-key`, else from 32 random bytes.
private func signingIdentity(
  _ inv: Invocation, _ rootKey: P256.PrivateKey?, _ environment: StoreEnvironment
)
  -> SigningIdentity
{
  if let rootKey { return SigningIdentity(rootKey: rootKey, environment: environment) }
  return SigningIdentity(randomBytes: inv.environment.randomBytes(32), environment: environment)
}

/// What `init` prints: the session (`nil`: in memory), the configuration and where the clock starts.
private struct InitReport {
  var session: String?
  var configuration: String
  var products: Int
  var warnings: Int
  var bundleID: String
  var environment: StoreEnvironment
  var now: Date

  func print(_ inv: Invocation) {
    let summary =
      "\(configuration), \(products) products, starts \(ISO8601.string(now)), environment \(environment.rawValue)"
    inv.emit(
      json: .object([
        "session": .string(session ?? "memory"), "configuration": .string(configuration),
        "products": .int(Int64(products)), "now": .int(now.epochMilliseconds),
        "environment": .string(environment.rawValue), "bundleId": .string(bundleID),
        "warnings": .int(Int64(warnings)),
      ]),
      line: session.map { "session \($0): \(summary), bundle \(bundleID)" } ?? "session in memory: \(summary)")
  }
}

/// `storesim reset`.
struct ResetCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "reset", group: "Session and catalogue",
    abstract: "Clear transactions and/or restore the configuration's settings",
    discussion: "Without options, does both. The clock and the notifications sent so far stay.",
    example: "storesim reset --transactions")

  @Arguments(0...0, "")
  var arguments: [String]
  @Flag(help: "clearTransactions(): remove every transaction, subscription and request")
  var transactions: Bool
  @Flag(help: "resetToDefaultState(): settings back to the configuration's values")
  var settings: Bool

  func run(_ inv: Invocation) throws -> ExitCode {
    let both = !transactions && !settings
    return try SessionContext.with(inv, mutating: true) { store in
      if both || transactions { store.clearTransactions() }
      if both || settings { store.resetToDefaultState() }
      if inv.printsJSON { inv.writeJSON(#"{"reset": true}"#) }
      if inv.printsText {
        inv.out("reset " + (both ? "transactions and settings" : transactions ? "transactions" : "settings"))
      }
      return .success
    }
  }
}

/// `storesim family [add|remove NAME]`.
struct FamilyCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "family", group: "Session and catalogue",
    abstract: "Show or change the acting customer's Family Sharing group",
    arguments: "[add <name> | remove <name>]",
    discussion:
      "Family-shareable purchases of any member reach the others as their own family-shared transactions; removing a member revokes them (REVOKE).",
    example: "storesim family add kid")

  @Arguments(0...2, "")
  var arguments: [String]

  /// `add NAME` or `remove NAME`.
  func validate() throws {
    guard let action = arguments.first else { return }
    guard arguments.count == 2 else {
      throw CLIError.usage("family \(action) needs a customer name", command: "family")
    }
    guard action == "add" || action == "remove" else {
      throw CLIError.usage("unknown family action '\(action)'; use add or remove", command: "family")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    let args = arguments
    return try SessionContext.with(inv, mutating: !args.isEmpty) { store in
      let me = SessionContext.customer(inv)
      var events: [StoreEvent] = []
      if let action = args.first {
        switch action {
        case "add": events = try store.addFamilyMember(CustomerID(args[1]), to: me).events
        default: events = try store.removeFamilyMember(CustomerID(args[1])).events
        }
      }
      let family = store.customer(me)?.familyID
      let members = store.customerIDs.filter { family != nil && store.customer($0)?.familyID == family }.map(\.rawValue)
      inv.emit(
        json: .object([
          "members": .array(members.map(JSONOutput.string)), "events": .array(events.map(Render.eventJSON)),
        ])
      ) {
        if !events.isEmpty { inv.out(Render.events(events)) }
        inv.out(members.isEmpty ? "\(me) has no family" : "family: " + members.joined(separator: ", "))
      }
      return .success
    }
  }
}

/// `storesim now`.
struct NowCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "now", group: "Subscriptions and time",
    abstract: "Print the virtual date",
    example: "storesim now")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv) { store, _ in
      inv.emit(
        json: .object(["now": .int(store.now.epochMilliseconds), "date": .string(ISO8601.string(store.now))]),
        line: ISO8601.string(store.now))
      return .success
    }
  }
}
