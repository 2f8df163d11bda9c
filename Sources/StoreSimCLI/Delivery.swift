import Foundation
import StoreSim

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// POSTs notifications as Apple does: `{"signedPayload": "..."}` with a JSON content type.
enum Delivery {
  struct Attempt {
    var status: Int?
    var error: String?
  }

  static func post(_ body: String, to url: URL, timeout: TimeInterval = 10) -> Attempt {
    var request = URLRequest(url: url, timeoutInterval: timeout)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(body.utf8)
    let done = DispatchSemaphore(value: 0)
    let box = AttemptBox()
    let task = URLSession.shared.dataTask(with: request) { _, response, error in
      if let http = response as? HTTPURLResponse {
        box.attempt = Attempt(status: http.statusCode, error: nil)
      } else {
        box.attempt = Attempt(status: nil, error: error.map { $0.localizedDescription } ?? "no response")
      }
      done.signal()
    }
    task.resume()
    if done.wait(timeout: .now() + timeout + 1) == .timedOut {
      task.cancel()
      return Attempt(status: nil, error: "timed out")
    }
    return box.attempt ?? Attempt(status: nil, error: "no response")
  }

  /// POSTs one body to a URL checked by `validate`.
  static func send(_ body: String, to url: String) -> Attempt {
    guard let target = URL(string: url) else { return Attempt(status: nil, error: "invalid URL") }
    return post(body, to: target)
  }

  static func validate(_ text: String, command: String) throws -> String {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
      throw CLIError.usage("'\(text)' is not an http or https URL", command: command)
    }
    return text
  }
}

final class AttemptBox: @unchecked Sendable {
  var attempt: Delivery.Attempt?
}
