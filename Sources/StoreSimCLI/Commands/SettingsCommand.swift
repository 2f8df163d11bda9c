import Foundation
import StoreSim
import StoreSimServer

/// `storesim settings [KEY [VALUE]]`.
struct SettingsCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "settings", group: "Session and catalogue",
    abstract: "Show or change the test-environment settings (SKTestSession properties)",
    arguments: "[<key> [<value>]]",
    discussion: """
      Keys: ask-to-buy, interrupted-purchases, fail-transactions (off or an SKError name),
      billing-retry (renewals fail into billing retry), grace-period, storefront (ISO 3166 alpha-3),
      locale, time-rate (an SKTestSession.TimeRate name or number), disable-dialogs, deliver-url
      (POST notifications there as they happen, or off: the URL of the session's environment),
      deliver-url-production and deliver-url-sandbox (App Store Connect's two URLs; the session
      posts to its own environment's), delivery-faults (storesim's own, not Apple's: 'seed=N
      duplicates=P% reorder=DURATION delay=D1-D2 outage=DATE+DURATION' or off; docs/server.md),
      strict-eligibility (an introductory-offer
      eligibility JWS that does not verify fails the purchase with invalidOfferSignature; off: it
      is ignored and normal eligibility applies), and 'error API ERROR|none' for simulated StoreKit errors (setSimulatedError(_:forAPI:)), e.g.
      'settings error purchase networkError'. Initial values come from the configuration.
      """,
    example: "storesim settings billing-retry on")

  @Arguments(0...Int.max, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    let args = arguments
    let mutating = args.count >= 2
    // Keys and values are checked before the session is touched (and so in a scenario's check).
    if let keyText = args.first {
      let key = try settingKey(keyText)
      if args.count >= 2 {
        if key.isDeliveryURL {
          guard args.count == 2 else { throw CLIError.usage("unexpected argument '\(args[2])'", command: "settings") }
          if args[1].lowercased() != "off" { _ = try Delivery.validate(args[1], command: "settings") }
        } else if key == .deliveryFaults {
          _ = try DeliveryFaultsSetting.parse(Array(args.dropFirst()))
        } else if key == .strictEligibility {
          guard args.count == 2 else { throw CLIError.usage("unexpected argument '\(args[2])'", command: "settings") }
          _ = try parseSwitch(args[1], key: key.rawValue)
        } else {
          var scratch = StoreKitSettings()
          try applySetting(key, args, to: &scratch)
        }
      }
    }
    return try SessionContext.with(inv, mutating: mutating) { store in
      guard let keyText = args.first else {
        var d: [String: JSONOutput] = [:]
        for key in SettingKey.allCases { d[key.rawValue] = key.json(store) }
        inv.emit(json: .object(d), line: Table.render(SettingKey.allCases.map { [$0.rawValue, $0.value(store)] }))
        return .success
      }
      let key = try settingKey(keyText)
      if args.count == 1 {
        inv.emit(json: .object([key.rawValue: key.json(store)]), line: key.value(store))
        return .success
      }
      var s = store.settings
      let value = args[1]
      if key.isDeliveryURL {
        guard args.count == 2 else { throw CLIError.usage("unexpected argument '\(args[2])'", command: "settings") }
        let url = value.lowercased() == "off" ? nil : try Delivery.validate(value, command: "settings")
        switch key {
        case .deliverURLProduction: store.setDeliveryURL(url, production: true)
        case .deliverURLSandbox: store.setDeliveryURL(url, production: false)
        default: store.setDeliveryURL(url)
        }
        inv.emit(json: .object([key.rawValue: key.json(store)]), line: "\(key.rawValue) = \(key.value(store))")
        return .success
      }
      if key == .deliveryFaults {
        store.setDeliveryFaults(try DeliveryFaultsSetting.parse(Array(args.dropFirst())))
        inv.emit(json: .object([key.rawValue: key.json(store)]), line: "\(key.rawValue) = \(key.value(store))")
        return .success
      }
      if key == .strictEligibility {
        store.strictIntroductoryOfferEligibility = try parseSwitch(value, key: key.rawValue)
        inv.emit(json: .object([key.rawValue: key.json(store)]), line: "\(key.rawValue) = \(key.value(store))")
        return .success
      }
      try applySetting(key, args, to: &s)
      store.settings = s
      inv.emit(json: .object([key.rawValue: key.json(store)]), line: "\(key.rawValue) = \(key.value(store))")
      return .success
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
  case deliverURLProduction = "deliver-url-production"
  case deliverURLSandbox = "deliver-url-sandbox"
  case deliveryFaults = "delivery-faults"
  case strictEligibility = "strict-eligibility"

  /// One of the notification URLs.
  var isDeliveryURL: Bool { [.deliverURL, .deliverURLProduction, .deliverURLSandbox].contains(self) }

  func value(_ store: Store) -> String {
    let s = store.settings
    switch self {
    case .deliverURL: return store.state.deliveryURL ?? "off"
    case .deliverURLProduction: return store.deliveryURL(production: true) ?? "off"
    case .deliverURLSandbox: return store.deliveryURL(production: false) ?? "off"
    case .deliveryFaults: return store.state.deliveryFaults.map { "\($0.words) (storesim's, not Apple's)" } ?? "off"
    case .strictEligibility: return store.strictIntroductoryOfferEligibility ? "on" : "off"
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
    case .deliverURLProduction: return store.deliveryURL(production: true).map(JSONOutput.string) ?? .null
    case .deliverURLSandbox: return store.deliveryURL(production: false).map(JSONOutput.string) ?? .null
    case .deliveryFaults: return store.state.deliveryFaults.map { .string($0.words) } ?? .null
    case .strictEligibility: return .bool(store.strictIntroductoryOfferEligibility)
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
  case .deliverURL, .deliverURLProduction, .deliverURLSandbox, .deliveryFaults, .strictEligibility: break
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
      Suggest.orValues("unknown StoreKit API '\(value)'", for: value, in: names), command: "settings")
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
