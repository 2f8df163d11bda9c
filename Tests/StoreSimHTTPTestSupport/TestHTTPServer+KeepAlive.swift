import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `TestHTTPServer.Behavior.keepAlive`: a receiver that keeps its connections alive.
extension TestHTTPServer {
  enum KeptStep: Sendable {
    case answer(Int)
    /// Reads the request and closes without answering.
    case closeUnanswered
    /// Reads the request and never answers; waits until the client closes.
    case silent
  }

  /// `.keepAlive`: one step per request read on the connection.
  func serveKept(_ fd: Int32, _ steps: [KeptStep]) -> Bool {
    var pending: [UInt8] = []
    for step in steps {
      guard let request = readRequest(fd, &pending) else { return !isStopping }
      record(request)
      switch step {
      case .answer(let status):
        let body = "ok"
        guard sendAll(fd, Array("HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        else { return false }
      case .closeUnanswered: return true
      case .silent: return waitForTheClientToClose(fd)
      }
    }
    return true
  }
}

extension [TestHTTPServer.KeptStep] {
  /// `count` answers of `status`.
  static func answers(_ status: Int, _ count: Int) -> Self { Array(repeating: .answer(status), count: count) }
}
