import StoreSim
import StoreSimSession

extension SessionLocation {
  /// Checks and resolves a session path as the user wrote it (relative to the working
  /// directory, `~/` to the home folder).
  init(shown: String, environment: CLIEnvironment) throws {
    try self.init(shown: shown, resolve: environment.absolutePath)
  }
}
