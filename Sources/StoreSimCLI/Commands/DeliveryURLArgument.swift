import StoreSimHTTP
import StoreSimServer

extension Delivery {
  /// Checks a delivery URL given on the command line completely (see `HTTPURL`) and returns it
  /// unchanged; a usage error names the command.
  static func validate(_ text: String, command: String) throws -> String {
    do {
      _ = try HTTPURL(text)
    } catch {
      throw CLIError.usage(
        "'\(HTTPText.printable(text))' is not a usable http or https URL: \(error.reason)", command: command)
    }
    return text
  }
}
