import Foundation
import StoreSim

/// `storesim consent revoke`: a parent or guardian withdraws consent for the customer's use of
/// the app (rule rescind-consent-carries-app-data).
struct ConsentCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "consent", group: "Purchases",
    abstract: "A parent or guardian revokes consent for the app (RESCIND_CONSENT)",
    arguments: "revoke",
    discussion: """
      revoke: as Settings > Developer > Sandbox Apple Account > Revoke App Consent, for the
      customer (--customer, default the session's). Sends RESCIND_CONSENT (no subtype), whose
      payload carries appData (bundleId, environment and the customer's
      signedAppTransactionInfo) instead of data; appAppleId is left out (a .storekit file has
      none, and the sandbox sends none). Purchases do not change and the app is told nothing.
      """,
    example: "storesim consent revoke --customer kid")

  static let actions = ["revoke"]

  @Arguments(0...1, "action (revoke)")
  var arguments: [String]

  func validate() throws {
    guard let action = arguments.first else {
      throw CLIError.usage("missing action: revoke", command: "consent")
    }
    guard Self.actions.contains(action) else {
      throw CLIError.usage(
        Suggest.appending(to: "unknown consent action '\(action)'", for: action, in: Self.actions),
        command: "consent")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    try SessionContext.with(inv, mutating: true) { store in
      let events = try store.revokeConsent(customer: SessionContext.customer(inv)).events
      printEvents(inv, events, store: store)
      return .success
    }
  }
}
