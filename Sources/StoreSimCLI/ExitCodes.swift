import StoreSim

/// The exit-code contract (README.md, "Exit codes").
public enum ExitCode: Int32, Sendable {
  /// Success.
  case success = 0
  /// The command ran and the store refused, a purchase did not go through, or an expectation failed.
  case failure = 1
  /// Usage error.
  case usage = 64
  /// Bad data: unreadable configuration, scenario or session file.
  case dataError = 65
  /// A named input file or the session does not exist.
  case noInput = 66
  /// A file cannot be created (EX_CANTCREAT).
  case cannotCreate = 73
  /// An input/output error: disk full, closed or full output (EX_IOERR).
  case ioError = 74
  /// Permission denied (EX_NOPERM).
  case permissionDenied = 77
}

/// An error the CLI reports as one line and an exit code.
struct CLIError: Error {
  var code: ExitCode
  var message: String
  /// For usage errors: the command whose usage line to show.
  var usageOf: String?

  static func usage(_ message: String, command: String? = nil) -> CLIError {
    CLIError(code: .usage, message: message, usageOf: command ?? "")
  }
  /// A usage error (64) that needs no usage line: the command line names something that does not
  /// exist (a group, a customer, a transaction) or asks for something absurd.
  static func refusedArgument(_ message: String) -> CLIError { CLIError(code: .usage, message: message) }
  static func data(_ message: String) -> CLIError { CLIError(code: .dataError, message: message) }
  static func noInput(_ message: String) -> CLIError { CLIError(code: .noInput, message: message) }
  static func failed(_ message: String) -> CLIError { CLIError(code: .failure, message: message) }
}

extension ExitCode {
  /// The stable name of the code in JSON error objects (`{"error", "code", "exitCode"}`).
  var name: String {
    switch self {
    case .success: return "ok"
    case .failure: return "refused"
    case .usage: return "usage"
    case .dataError: return "badData"
    case .noInput: return "noInput"
    case .cannotCreate: return "cannotCreate"
    case .ioError: return "ioError"
    case .permissionDenied: return "permissionDenied"
    }
  }

  /// One line for the README and `--help`: every code and what it means.
  static let table: [(ExitCode, String)] = [
    (.success, "success"),
    (.failure, "the store answered no (failed, cancelled, ineligible, refused by the state); a scenario failed"),
    (.usage, "usage: unknown command, option, product, transaction, request, customer or setting; bad value"),
    (.dataError, "bad data: unreadable configuration, scenario or session file; a scenario with errors"),
    (.noInput, "a named input file or the session does not exist"),
    (.cannotCreate, "a file cannot be created"),
    (.ioError, "input/output error: disk full, closed output"),
    (.permissionDenied, "permission denied"),
  ]
}
