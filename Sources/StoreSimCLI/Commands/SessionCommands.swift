import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimServer
import StoreSimSession

let initCommand = CommandSpec(
  name: "init", group: "Session and catalogue",
  abstract: "Start a new session from a .storekit configuration",
  arguments: "<config.storekit>",
  options: [
    OptionSpec(name: "start", value: "<date>", help: "virtual start date, ISO 8601 (default: now, whole seconds, UTC)"),
    OptionSpec(name: "bundle-id", value: "<id>", help: "the app's bundle id (default com.example.app)"),
    OptionSpec(name: "environment", value: "<env>", help: "Xcode (default), LocalTesting, Sandbox or Production"),
    OptionSpec(
      name: "force", value: nil,
      help: "replace an existing session (a damaged one is kept as <session>.damaged, .damaged.1, ...)"),
  ],
  discussion: """
    Writes the session file (--session, $STORESIM_SESSION, or .storesim/session.json). Settings
    start from the configuration's settings block. Later commands load the session, act, and
    save it atomically; when the configuration file changes, the next command reloads it.
    """,
  example: "storesim init Configurations/AppleSample.storekit --start 2026-01-01T00:00:00Z",
  run: { inv in
    let config = try inv.positionals(1...1, "configuration file")[0]
    let start = try initStart(inv)
    var environment = try initEnvironment(inv)
    let bundleID = inv.arguments.value("bundle-id") ?? "com.example.app"
    guard !bundleID.isEmpty, !bundleID.contains(where: \.isWhitespace) else {
      throw CLIError.usage("invalid bundle id '\(bundleID)'", command: "init")
    }
    let contentPath = try ConfigurationFile.contentPath(config, environment: inv.environment)
    let (loaded, data) = try ConfigurationFile.load(config, environment: inv.environment)
    for w in loaded.warnings { inv.err(ConfigurationFile.diagnostic(w, file: config)) }
    var report = InitReport(
      session: nil, configuration: config, products: loaded.configuration.products.count,
      warnings: loaded.warnings.count, bundleID: bundleID, environment: environment, now: start)
    if let memory = inv.memory {
      if let forced = memory.environmentOverride { environment = forced }
      let store = Store(configuration: loaded.configuration, start: start, bundleID: bundleID, environment: environment)
      memory.store = store
      report.environment = environment
      report.now = store.now
      report.print(inv)
      return .success
    }
    let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
    let store = Store(configuration: loaded.configuration, start: start, bundleID: bundleID, environment: environment)
    try reportingSessionErrors {
      try AtomicFile.makeFolder((location.file as NSString).deletingLastPathComponent)
      let lock = try SessionLock(location, forWriting: true)
      defer { withExtendedLifetime(lock) {} }
      try replaceExistingSession(inv, location)
      let document = SessionDocument(
        format: SessionDocument.formatName, version: SessionDocument.currentVersion,
        configurationPath: contentPath, configurationDigest: SessionFileFormat.digest(data), state: store.state)
      try SessionFile.write(document, to: location)
    }
    report.session = location.shown
    report.now = store.now
    report.print(inv)
    return .success
  })

/// `--start`, or now in whole seconds.
private func initStart(_ inv: Invocation) throws -> Date {
  if let text = inv.arguments.value("start") { return try ValueParsing.date(text, note: inv.warning) }
  return Date(timeIntervalSince1970: inv.environment.now().timeIntervalSince1970.rounded(.down))
}

/// `--environment`, or Xcode.
private func initEnvironment(_ inv: Invocation) throws -> StoreEnvironment {
  guard let text = inv.arguments.value("environment") else { return .xcode }
  guard let e = StoreEnvironment(userInput: text) else {
    throw CLIError.usage(
      Suggest.appending(
        to: "unknown environment '\(text)'; use Xcode, LocalTesting, Sandbox or Production", for: text,
        in: StoreEnvironment.allCases.map(\.rawValue)),
      command: "init")
  }
  return e
}

/// An existing session file is replaced only with --force; a damaged one is kept aside.
private func replaceExistingSession(_ inv: Invocation, _ location: SessionLocation) throws {
  var existing = stat()
  guard lstat(location.file, &existing) == 0 else { return }
  guard inv.arguments.has("force") else {
    throw CLIError.failed("a session already exists at \(location.shown); pass --force to replace it")
  }
  try AtomicFile.checkWritable(location)
  if (try? SessionFile.read(location.file, shownAs: location.shown)) == nil {
    let kept = try AtomicFile.keepDamaged(location)
    inv.warning("the old session file could not be read; kept it as \(kept)")
  }
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
    if inv.json {
      inv.printJSON(
        .object([
          "session": .string(session ?? "memory"), "configuration": .string(configuration),
          "products": .int(Int64(products)), "now": .int(now.epochMilliseconds),
          "environment": .string(environment.rawValue), "bundleId": .string(bundleID),
          "warnings": .int(Int64(warnings)),
        ]))
    } else {
      let summary =
        "\(configuration), \(products) products, starts \(ISO8601.string(now)), environment \(environment.rawValue)"
      inv.out(session.map { "session \($0): \(summary), bundle \(bundleID)" } ?? "session in memory: \(summary)")
    }
  }
}

/// The settings users can show and change, with their `SKTestSession` names.
enum SettingKey: String, CaseIterable {
  case askToBuy = "ask-to-buy"
  case interruptedPurchases = "interrupted-purchases"
  case failTransactions = "fail-transactions"
  case billingRetry = "billing-retry"
  case gracePeriod = "grace-period"
  case storefront
  case locale
  case timeRate = "time-rate"
  case disableDialogs = "disable-dialogs"
  case error
  case deliverURL = "deliver-url"

  func value(_ store: Store) -> String {
    let s = store.settings
    switch self {
    case .deliverURL: return store.state.deliveryURL ?? "off"
    case .askToBuy: return s.askToBuyEnabled ? "on" : "off"
    case .interruptedPurchases: return s.interruptedPurchasesEnabled ? "on" : "off"
    case .failTransactions: return s.failTransactionsEnabled ? s.failureError.rawValue : "off"
    case .billingRetry: return s.shouldEnterBillingRetryOnRenewal ? "on" : "off"
    case .gracePeriod: return s.billingGracePeriodIsEnabled ? "on" : "off"
    case .storefront: return s.storefront
    case .locale: return s.locale
    case .timeRate: return "\(s.timeRate.name) (\(s.timeRate.rawValue))"
    case .disableDialogs: return s.disableDialogs ? "on" : "off"
    case .error:
      let set = StoreKitAPI.allCases.compactMap { api in s.simulatedError(forAPI: api).map { "\(api.name)=\($0)" } }
      return set.isEmpty ? "none" : set.joined(separator: " ")
    }
  }
}

extension SettingKey {
  /// The value with its type for --json: switches are booleans, the time rate is
  /// `{"name", "value"}`, simulated errors are an object per API, an unset value is null.
  func json(_ store: Store) -> JSONOutput {
    let s = store.settings
    switch self {
    case .deliverURL: return store.state.deliveryURL.map(JSONOutput.string) ?? .null
    case .askToBuy: return .bool(s.askToBuyEnabled)
    case .interruptedPurchases: return .bool(s.interruptedPurchasesEnabled)
    case .failTransactions: return s.failTransactionsEnabled ? .string(s.failureError.rawValue) : .null
    case .billingRetry: return .bool(s.shouldEnterBillingRetryOnRenewal)
    case .gracePeriod: return .bool(s.billingGracePeriodIsEnabled)
    case .storefront: return .string(s.storefront)
    case .locale: return .string(s.locale)
    case .timeRate: return .object(["name": .string(s.timeRate.name), "value": .int(Int64(s.timeRate.rawValue))])
    case .disableDialogs: return .bool(s.disableDialogs)
    case .error:
      var errors: [String: JSONOutput] = [:]
      for api in StoreKitAPI.allCases {
        if let e = s.simulatedError(forAPI: api) { errors[api.name] = .string(e.description) }
      }
      return .object(errors)
    }
  }
}

func parseSwitch(_ text: String, key: String) throws -> Bool {
  switch text.lowercased() {
  case "on", "true", "yes", "1", "enabled": return true
  case "off", "false", "no", "0", "disabled": return false
  default: throw CLIError.usage("setting '\(key)' takes on or off, not '\(text)'", command: "settings")
  }
}

/// Reads a setting's value onto `s`, or refuses it: the same code checks a scenario line and
/// changes the session.
func applySetting(_ key: SettingKey, _ args: [String], to s: inout StoreKitSettings) throws {
  let value = args[1]
  if key != .error && args.count > 2 { throw CLIError.usage("unexpected argument '\(args[2])'", command: "settings") }
  switch key {
  case .deliverURL: break
  case .askToBuy: s.askToBuyEnabled = try parseSwitch(value, key: key.rawValue)
  case .interruptedPurchases: s.interruptedPurchasesEnabled = try parseSwitch(value, key: key.rawValue)
  case .billingRetry: s.shouldEnterBillingRetryOnRenewal = try parseSwitch(value, key: key.rawValue)
  case .gracePeriod: s.billingGracePeriodIsEnabled = try parseSwitch(value, key: key.rawValue)
  case .disableDialogs: s.disableDialogs = try parseSwitch(value, key: key.rawValue)
  case .failTransactions:
    if let on = try? parseSwitch(value, key: key.rawValue) {
      s.failTransactionsEnabled = on
    } else {
      s.failTransactionsEnabled = true
      s.failureError = try failureError(value)
    }
  case .storefront:
    guard Storefront.named(value) != nil else {
      throw settingsUsage("unknown storefront '\(value)'", for: value.uppercased(), in: Storefront.knownCodes)
    }
    s.storefront = value.uppercased()
  case .locale:
    guard value.range(of: #"^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,4})*$"#, options: .regularExpression) != nil else {
      throw CLIError.usage("invalid locale '\(value)'; use an identifier like en_US or ja", command: "settings")
    }
    s.locale = value
  case .timeRate:
    guard let rate = TimeRate(userInput: value) else {
      throw settingsUsage("unknown time rate '\(value)'", for: value, in: TimeRate.allCases.map(\.name))
    }
    s.timeRate = rate
  case .error:
    let (api, error) = try simulatedErrorSetting(args)
    s.setSimulatedError(error, forAPI: api)
  }
}

/// A usage error of `settings` with a "did you mean".
private func settingsUsage(_ message: String, for input: String, in candidates: [String]) -> CLIError {
  CLIError.usage(Suggest.appending(to: message, for: input, in: candidates), command: "settings")
}

/// `fail-transactions <SKErrorCode>`.
private func failureError(_ value: String) throws -> SKErrorCode {
  guard let error = SKErrorCode.allCases.first(where: { $0.rawValue.lowercased() == value.lowercased() }) else {
    let names = SKErrorCode.allCases.map(\.rawValue).joined(separator: ", ")
    throw CLIError.usage("fail-transactions takes off, on, or one of \(names)", command: "settings")
  }
  return error
}

/// `error <api> <error>|none`: the API and the error it throws from now on (`nil`: none).
private func simulatedErrorSetting(_ args: [String]) throws -> (StoreKitAPI, SimulatedError?) {
  let value = args[1]
  guard let api = StoreKitAPI(userInput: value) else {
    let names = StoreKitAPI.allCases.map(\.name)
    throw CLIError.usage(
      Suggest.appending(to: "unknown StoreKit API '\(value)'", for: value, in: names) + "; APIs: "
        + names.joined(separator: ", "), command: "settings")
  }
  guard args.count == 3 else { throw CLIError.usage("usage: settings error <api> <error>|none", command: "settings") }
  if args[2].lowercased() == "none" { return (api, nil) }
  guard let error = SimulatedError(userInput: args[2], for: api) else {
    let all = api.families.flatMap { f in f.cases.map { "\(f.rawValue).\($0)" } }
    throw settingsUsage(
      "'\(args[2])' is not an error \(api.name) can throw", for: args[2],
      in: all + all.map { String($0.split(separator: ".")[1]) })
  }
  return (api, error)
}

/// The setting a key names, or a usage error with a "did you mean".
func settingKey(_ keyText: String) throws -> SettingKey {
  guard let key = SettingKey(rawValue: keyText.lowercased()) else {
    throw settingsUsage("unknown setting '\(keyText)'", for: keyText, in: SettingKey.allCases.map(\.rawValue))
  }
  return key
}

let settingsCommand = CommandSpec(
  name: "settings", group: "Session and catalogue",
  abstract: "Show or change the test-environment settings (SKTestSession properties)",
  arguments: "[<key> [<value>]]",
  discussion: """
    Keys: ask-to-buy, interrupted-purchases, fail-transactions (off or an SKError name),
    billing-retry (renewals fail into billing retry), grace-period, storefront (ISO 3166 alpha-3),
    locale, time-rate (an SKTestSession.TimeRate name or number), disable-dialogs, deliver-url
    (POST notifications there as they happen, or off), and 'error API ERROR|none' for simulated StoreKit errors (setSimulatedError(_:forAPI:)), e.g.
    'settings error purchase networkError'. Initial values come from the configuration.
    """,
  example: "storesim settings billing-retry on",
  run: { inv in
    let args = inv.arguments.positionals
    let mutating = args.count >= 2
    // Keys and values are checked before the session is touched (and so in a scenario's check).
    if let keyText = args.first {
      let key = try settingKey(keyText)
      if args.count >= 2 {
        if key == .deliverURL {
          guard args.count == 2 else { throw CLIError.usage("unexpected argument '\(args[2])'", command: "settings") }
          if args[1].lowercased() != "off" { _ = try Delivery.validate(args[1], command: "settings") }
        } else {
          var scratch = StoreKitSettings()
          try applySetting(key, args, to: &scratch)
        }
      }
    }
    return try SessionContext.with(inv, mutating: mutating) { store in
      guard let keyText = args.first else {
        if inv.json {
          var d: [String: JSONOutput] = [:]
          for key in SettingKey.allCases { d[key.rawValue] = key.json(store) }
          inv.printJSON(.object(d))
        } else {
          inv.out(Table.render(SettingKey.allCases.map { [$0.rawValue, $0.value(store)] }))
        }
        return .success
      }
      let key = try settingKey(keyText)
      if args.count == 1 {
        inv.out(inv.json ? JSONOutput.object([key.rawValue: key.json(store)]).rendered() : key.value(store))
        return .success
      }
      var s = store.settings
      let value = args[1]
      if key == .deliverURL {
        guard args.count == 2 else { throw CLIError.usage("unexpected argument '\(args[2])'", command: "settings") }
        store.setDeliveryURL(value.lowercased() == "off" ? nil : try Delivery.validate(value, command: "settings"))
        inv.out(
          inv.json
            ? JSONOutput.object([key.rawValue: key.json(store)]).rendered() : "\(key.rawValue) = \(key.value(store))")
        return .success
      }
      try applySetting(key, args, to: &s)
      store.settings = s
      inv.out(
        inv.json
          ? JSONOutput.object([key.rawValue: key.json(store)]).rendered() : "\(key.rawValue) = \(key.value(store))")
      return .success
    }
  })

let resetCommand = CommandSpec(
  name: "reset", group: "Session and catalogue",
  abstract: "Clear transactions and/or restore the configuration's settings",
  options: [
    OptionSpec(
      name: "transactions", value: nil, help: "clearTransactions(): remove every transaction, subscription and request"),
    OptionSpec(
      name: "settings", value: nil, help: "resetToDefaultState(): settings back to the configuration's values"),
  ],
  discussion: "Without options, does both. The clock and the notifications sent so far stay.",
  example: "storesim reset --transactions",
  run: { inv in
    _ = try inv.positionals(0...0, "")
    let both = !inv.arguments.has("transactions") && !inv.arguments.has("settings")
    return try SessionContext.with(inv, mutating: true) { store in
      if both || inv.arguments.has("transactions") { store.clearTransactions() }
      if both || inv.arguments.has("settings") { store.resetToDefaultState() }
      inv.out(
        inv.json
          ? #"{"reset": true}"#
          : "reset "
            + (both ? "transactions and settings" : inv.arguments.has("transactions") ? "transactions" : "settings"))
      return .success
    }
  })

let familyCommand = CommandSpec(
  name: "family", group: "Session and catalogue",
  abstract: "Show or change the acting customer's Family Sharing group",
  arguments: "[add <name> | remove <name>]",
  discussion:
    "Family-shareable purchases of any member reach the others as their own family-shared transactions; removing a member revokes them (REVOKE).",
  example: "storesim family add kid",
  run: { inv in
    let args = try inv.positionals(0...2, "")
    return try SessionContext.with(inv, mutating: !args.isEmpty) { store in
      let me = SessionContext.customer(inv)
      var events: [StoreEvent] = []
      if let action = args.first {
        guard args.count == 2 else { throw CLIError.usage("family \(action) needs a customer name", command: "family") }
        switch action {
        case "add": events = try store.addFamilyMember(CustomerID(args[1]), to: me).events
        case "remove": events = try store.removeFamilyMember(CustomerID(args[1])).events
        default: throw CLIError.usage("unknown family action '\(action)'; use add or remove", command: "family")
        }
      }
      let family = store.customer(me)?.familyID
      let members = store.customerIDs.filter { family != nil && store.customer($0)?.familyID == family }.map(\.rawValue)
      if inv.json {
        inv.printJSON(
          .object(["members": .array(members.map(JSONOutput.string)), "events": .array(events.map(Render.eventJSON))]))
      } else {
        if !events.isEmpty { inv.out(Render.events(events)) }
        inv.out(members.isEmpty ? "\(me) has no family" : "family: " + members.joined(separator: ", "))
      }
      return .success
    }
  })

let nowCommand = CommandSpec(
  name: "now", group: "Subscriptions and time",
  abstract: "Print the virtual date",
  example: "storesim now",
  run: { inv in
    try inspecting(inv, 0...0, "") { store, _, _, _ in
      if inv.json {
        inv.printJSON(
          .object([
            "now": .int(store.now.epochMilliseconds),
            "date": .string(ISO8601.string(store.now)),
          ]))
      } else {
        inv.out(ISO8601.string(store.now))
      }
      return .success
    }
  })
