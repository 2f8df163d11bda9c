import Foundation

/// One HTTP request, as the server read it off a connection (or a tool made it).
package struct HTTPRequest: Sendable {
  package var method: String
  /// The path without the query (`/inApps/v1/transactions/2000000000000001`).
  package var path: String
  /// Query parameters in order, percent-decoded; a name may repeat.
  package var query: [(String, String)] = []
  /// Header fields with lowercased names.
  package var headers: [String: String] = [:]
  package var body: [UInt8] = []
  /// The request target as sent (path and query).
  package var target: String
  /// When the server had read all of the request, in nanoseconds on the server's clock
  /// (`HTTPServer.clock`): every byte of it had arrived before this instant. 0: not known.
  package var received: UInt64 = 0

  /// Splits `target` (`/path?a=1&b=2`) into path and query.
  package init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
      path = String(target[..<q])
      for pair in target[target.index(after: q)...].split(separator: "&") where !pair.isEmpty {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = Self.decode(parts[0])
        let value = parts.count > 1 ? Self.decode(parts[1]) : ""
        query.append((name, value))
      }
    } else {
      path = target
    }
  }

  package static func decode(_ s: Substring) -> String {
    let plus = s.replacingOccurrences(of: "+", with: " ")
    return plus.removingPercentEncoding ?? plus
  }

  package func values(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }
  package func value(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
}
