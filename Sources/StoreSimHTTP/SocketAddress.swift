import Foundation
import StoreSimSync

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One resolved socket address.
package struct SocketAddress: Sendable {
  package var family: Int32
  package var bytes: [UInt8]

  package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    bytes.withUnsafeBytes { raw in
      body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
    }
  }

  /// Whether `host` is a numeric IPv4 or IPv6 address (not a name).
  package static func isNumeric(_ host: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
  }

  /// Addresses of `host` (a name or a numeric address), in getaddrinfo's order. Numeric hosts
  /// never touch the resolver; names are resolved on a helper thread so the deadline holds
  /// (a resolver that outlives it is abandoned and finishes on its own).
  package static func resolve(
    host: String, port: Int, deadline: WaitDeadline
  ) -> Result<[SocketAddress], HTTPClient.Failure> {
    if isNumeric(host) { return lookup(host: host, port: port, numeric: true) }

    let box = Mutex<Result<[SocketAddress], HTTPClient.Failure>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      let result = lookup(host: host, port: port, numeric: false)
      box.withLock { $0 = result }
      done.signal()
    }
    thread.start()
    if done.wait(timeout: .now() + deadline.remaining) == .timedOut { return .failure(.timedOut) }
    return box.withLock { $0 } ?? .failure(.failed("cannot resolve '\(host)'"))
  }

  private static func lookup(host: String, port: Int, numeric: Bool) -> Result<[SocketAddress], HTTPClient.Failure> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = HTTPClient.streamSocketType
    hints.ai_flags = AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0)
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &list)
    guard rc == 0, let first = list else {
      let reason = rc == EAI_SYSTEM ? HTTPClient.errorText(errno) : String(cString: gai_strerror(rc))
      return .failure(.failed("cannot resolve '\(host)': \(reason.prefix(1).lowercased() + reason.dropFirst())"))
    }
    defer { freeaddrinfo(first) }
    var result: [SocketAddress] = []
    var node: UnsafeMutablePointer<addrinfo>? = first
    while let entry = node {
      if let address = entry.pointee.ai_addr, entry.pointee.ai_family == AF_INET || entry.pointee.ai_family == AF_INET6
      {
        let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
        result.append(SocketAddress(family: entry.pointee.ai_family, bytes: bytes))
      }
      node = entry.pointee.ai_next
    }
    return result.isEmpty ? .failure(.failed("cannot resolve '\(host)': no IPv4 or IPv6 address")) : .success(result)
  }
}
