import StoreSim
import StoreSimHTTP

/// A refusal of the control API: a 4xx whose body is `{"error": {"code", "message", "field"?}}`
/// (docs/control-api.md). Never a 5xx, never a file's contents or a path of the machine.
struct ControlError: Error, Equatable {
  var status: Int
  /// A stable name: `usage`, `refused`, `badData`, `noInput`, `badJSON`, `notFound`, ...
  var code: String
  /// One line saying what was wrong.
  var message: String
  /// The property of the request body that was wrong, when one was.
  var field: String?

  init(_ status: Int, _ code: String, _ message: String, field: String? = nil) {
    self.status = status
    self.code = code
    self.message = message
    self.field = field
  }

  var response: HTTPResponse {
    let error = JSONOutput.object([
      "code": .string(code), "message": .string(message), "field": field.map { .string($0) },
    ])
    return HTTPResponse(status: status, body: JSONOutput.object(["error": error]).rendered(pretty: false) + "\n")
  }

  static func notFound(_ message: String) -> ControlError { ControlError(404, "notFound", message) }
  static func badJSON(_ message: String) -> ControlError { ControlError(400, "badJSON", message) }

  /// The HTTP status of each exit code a command can end with: what the command line calls a
  /// usage error is a 400, a refusal by the store's state a 409, a damaged session a 422, a
  /// session or file that does not exist a 404; the rest are 409 (the request was understood,
  /// the session could not take it), never a 5xx.
  static func status(of code: ExitCode) -> Int {
    switch code {
    case .usage: return 400
    case .dataError: return 422
    case .noInput: return 404
    case .permissionDenied: return 403
    case .success, .failure, .cannotCreate, .ioError: return 409
    }
  }

  /// A command's refusal (its `--json` error object's code and message), naming the option it
  /// speaks of when it names one of `spec`'s.
  init(command error: CLIError, spec: CommandSpec?) {
    var field: String?
    if let spec {
      // `--days must be ...`, or a value parser's `quantity must be ...`.
      let named = error.message.range(of: #"--[a-z][a-z0-9-]*"#, options: .regularExpression).map {
        String(error.message[$0].dropFirst(2))
      }
      let first = error.message.split(separator: " ").first.map(String.init)
      field = [named, first].compactMap { $0 }.first { name in spec.options.contains { $0.name == name } }
    }
    self.init(Self.status(of: error.code), error.code.name, error.message, field: field)
  }
}
