import StoreSim

/// Where commands find the session they act on.
enum SessionContext {
  /// The session file path: `--session`, then `$STORESIM_SESSION`, then `.storesim/session.json`.
  static func path(_ inv: Invocation) -> String {
    inv.arguments.value("session") ?? inv.environment.variables["STORESIM_SESSION"] ?? ".storesim/session.json"
  }

  /// The catalogue and settings of the current session.
  static func catalogue(_ inv: Invocation) throws -> (StoreConfiguration, StoreKitSettings) {
    throw CLIError.noInput("no session at \(path(inv)); pass a configuration file (storesim products FILE)")
  }
}
