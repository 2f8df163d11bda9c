import StoreSim
import StoreSimSession

/// The session store as commands use it: paths resolved against the command's environment,
/// and the store's refusals as `CLIError`s with the exit code the contract gives their kind.
extension CLIError {
  init(_ error: SessionStoreError) {
    switch error.kind {
    case .badPath: self = .refusedArgument(error.message)
    case .badData: self = .data(error.message)
    case .noInput: self = .noInput(error.message)
    case .cannotCreate: self.init(code: .cannotCreate, message: error.message)
    case .ioError: self.init(code: .ioError, message: error.message)
    case .permissionDenied: self.init(code: .permissionDenied, message: error.message)
    case .failed: self = .failed(error.message)
    }
  }
}

/// Runs `body`, turning a session store refusal into the `CLIError` commands report.
func reportingSessionErrors<T>(_ body: () throws -> T) throws -> T {
  do {
    return try body()
  } catch let error as SessionStoreError {
    throw CLIError(error)
  }
}

extension SessionLocation {
  /// Checks and resolves a session path as the user wrote it (relative to the working
  /// directory, `~/` to the home folder).
  init(shown: String, environment: CLIEnvironment) throws {
    self = try reportingSessionErrors { try SessionLocation(shown: shown, resolve: environment.absolutePath) }
  }
}
