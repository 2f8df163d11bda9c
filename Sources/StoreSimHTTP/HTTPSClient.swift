import Foundation
import StoreSimSync

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `https://` delivery through URLSession, held to the same rules as `HTTPClient`: redirects
/// refused (the 3xx is the answer), the response body cancelled after the body limit, one total
/// deadline.
///
/// Known limit on Linux (swift-corelibs-foundation, seen with Swift 6.3.1): against a server that
/// streams a body without end, URLSession reads it into memory as fast as it arrives, delivers
/// it to the delegate late, and `cancel()` blocks until the transfer ends. `post` still returns
/// by its deadline with the status (the cancel runs on another thread), but the transfer goes on
/// in the background, growing memory, until the server stops or the process exits. Plain
/// `http://` (our own client) has no such limit. macOS URLSession cancels promptly.
package enum HTTPSClient {
  package static func post(
    _ body: Data, to url: HTTPURL, timeout: TimeInterval, bodyLimit: Int, userAgent: String
  ) -> HTTPAttempt {
    guard let target = URL(string: url.normalized) else {
      return .init(status: nil, error: "URLSession cannot use '\(HTTPText.printable(url.normalized))'")
    }
    var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: timeout)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
    request.httpBody = body

    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = timeout
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    let monitor = Monitor(bodyLimit: bodyLimit)
    let session = URLSession(configuration: configuration, delegate: monitor, delegateQueue: nil)
    let task = session.dataTask(with: request)
    task.resume()
    let finished = monitor.done.wait(timeout: .now() + timeout) == .success
    // Cancelled off the caller's thread: on Linux, cancel() of a task flooded with body data
    // blocks until the transfer ends, which would break the deadline.
    DispatchQueue.global().async {
      task.cancel()
      session.invalidateAndCancel()
    }

    let state = monitor.snapshot()
    if let status = state.status {
      var attempt = HTTPAttempt(status: status, error: nil, bodyBytesRead: min(state.bodyBytes, bodyLimit))
      attempt.body = state.body
      attempt.contentType = state.contentType
      attempt.complete = finished && state.error == nil
      if (300..<400).contains(status) {
        let to = state.location.map { " to \(HTTPText.printable($0, limit: 100))" } ?? ""
        attempt.error = "redirect (HTTP \(status)\(to)) not followed"
      }
      return attempt
    }
    if !finished { return .init(status: nil, error: HTTPText.timedOut(timeout)) }
    guard let error = state.error else { return .init(status: nil, error: "no response") }
    let code = (error as NSError).domain == NSURLErrorDomain ? (error as NSError).code : 0
    if code == NSURLErrorTimedOut { return .init(status: nil, error: HTTPText.timedOut(timeout)) }
    #if canImport(FoundationNetworking)
      if code == NSURLErrorBadURL && url.isIPv6Literal {
        // swift-corelibs-foundation#5496: URLSession on Linux refuses IPv6 literal hosts.
        return .init(
          status: nil,
          error:
            "URLSession on Linux cannot reach an IPv6 literal over https (swift-corelibs-foundation#5496); use a host name"
        )
      }
    #endif
    return .init(
      status: nil,
      error: HTTPText.printable(
        error.localizedDescription.prefix(1).lowercased() + error.localizedDescription.dropFirst()))
  }

  /// Records the status, refuses redirects, counts (and drops) body bytes, cancels past the limit.
  /// `@unchecked`: an `NSObject` subclass cannot be checked; its one mutable field is a `Mutex`.
  package final class Monitor: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    package struct State {
      package var status: Int?
      package var location: String?
      package var contentType: String?
      package var bodyBytes = 0
      /// The body bytes, up to the limit.
      package var body: [UInt8] = []
      package var error: Error?
    }

    package let bodyLimit: Int
    package let done = DispatchSemaphore(value: 0)
    private let state = Mutex(State())

    package init(bodyLimit: Int) { self.bodyLimit = bodyLimit }

    package func snapshot() -> State { state.withLock { $0 } }

    private func update(_ change: (inout State) -> Void) { state.withLock(change) }

    package func urlSession(
      _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
      newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
      update {
        $0.status = response.statusCode
        $0.location = response.value(forHTTPHeaderField: "Location") ?? request.url?.absoluteString
      }
      completionHandler(nil)
    }

    package func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
      if let http = response as? HTTPURLResponse {
        update {
          $0.status = http.statusCode
          $0.contentType = http.value(forHTTPHeaderField: "Content-Type")
          if (300..<400).contains(http.statusCode), $0.location == nil {
            $0.location = http.value(forHTTPHeaderField: "Location")
          }
        }
      }
      completionHandler(bodyLimit > 0 ? .allow : .cancel)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      var over = false
      update {
        $0.body += data.prefix(max(0, bodyLimit - $0.bodyBytes))
        $0.bodyBytes += data.count
        over = $0.bodyBytes >= bodyLimit
      }
      // The status is known: the attempt is decided; `post` returns and cancels the task.
      if over { done.signal() }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
      update { $0.error = error }
      done.signal()
    }
  }
}
