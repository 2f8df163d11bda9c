import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A notification endpoint, checked completely when it is parsed: scheme `http` or `https`
/// (any case), a host (name, IPv4 address or bracketed IPv6 literal), an optional port 1–65535,
/// and a path/query of printable ASCII. No userinfo, no fragment, no whitespace or control
/// characters. `reason` of a refused text is one short line naming what is wrong.
struct DeliveryURL: Sendable, Hashable, CustomStringConvertible {
  enum Scheme: String, Sendable { case http, https }

  /// The text as given (delivery records are keyed by it).
  var text: String
  var scheme: Scheme
  /// Host without brackets: `example.com`, `127.0.0.1`, `::1`.
  var host: String
  /// The port connected to (given, or 80/443).
  var port: Int
  /// Whether the text named the port.
  var portGiven: Bool
  /// Request target: path and query, never empty (`/` at least).
  var target: String

  var isIPv6Literal: Bool { host.contains(":") }

  /// `Host` header value: the host (bracketed when IPv6) and the port when it was given.
  var hostHeader: String {
    let h = isIPv6Literal ? "[\(host)]" : host
    return portGiven ? "\(h):\(port)" : h
  }

  /// The same URL normalised (lower-case scheme), for URLSession.
  var normalized: String { "\(scheme.rawValue)://\(hostHeader)\(target)" }

  var description: String { text }

  struct Invalid: Error, Sendable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
  }

  init(_ text: String) throws(Invalid) {
    self.text = text
    func refuse(_ reason: String) -> Invalid { Invalid(reason: reason) }

    if text.isEmpty { throw refuse("empty URL") }
    for scalar in text.unicodeScalars {
      if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar.properties.isWhitespace {
        throw refuse("contains whitespace (percent-encode it as %20)")
      }
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
        throw refuse("contains a control character (U+\(String(format: "%04X", scalar.value)))")
      }
      if scalar.value > 0x7E { throw refuse("contains the non-ASCII character '\(scalar)' (percent-encode it)") }
    }

    guard let schemeEnd = text.range(of: "://") else {
      // `mailto:x` names a scheme; `localhost:8080/x` and `127.0.0.1:8080` lack one.
      if let colon = text.firstIndex(of: ":"), let first = text.first, first.isLetter,
        text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
        text[text.index(after: colon)...].first?.isNumber != true
      {
        let s = text[..<colon].lowercased()
        if s == "http" || s == "https" { throw refuse("missing '//' after '\(text[..<colon]):'") }
        throw refuse("unsupported scheme '\(text[..<colon])' (use http or https)")
      }
      throw refuse("missing scheme (use http:// or https://)")
    }
    let schemeText = text[..<schemeEnd.lowerBound]
    guard let scheme = Scheme(rawValue: schemeText.lowercased()) else {
      throw refuse(
        schemeText.isEmpty
          ? "missing scheme (use http:// or https://)" : "unsupported scheme '\(schemeText)' (use http or https)")
    }
    self.scheme = scheme

    let rest = text[schemeEnd.upperBound...]
    if rest.contains("#") { throw refuse("has a fragment ('#...'), which is never sent to a server; remove it") }
    let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    if authority.contains("@") { throw refuse("has userinfo ('user@'), which is not supported; remove it") }
    if authority.isEmpty { throw refuse("missing host") }

    var hostPart: Substring
    var portPart: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw refuse("unterminated IPv6 literal (missing ']')") }
      hostPart = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw refuse("unexpected '\(after)' after the IPv6 literal") }
        portPart = after.dropFirst()
      }
      if hostPart.isEmpty { throw refuse("missing host") }
      if hostPart.contains("%") { throw refuse("IPv6 zone identifiers ('%...') are not supported") }
      var address = in6_addr()
      guard inet_pton(AF_INET6, String(hostPart), &address) == 1 else {
        throw refuse("invalid IPv6 address '\(hostPart)'")
      }
    } else {
      let colons = authority.filter { $0 == ":" }.count
      if colons > 1 { throw refuse("an IPv6 address must be in brackets, like http://[::1]:8080/") }
      if let colon = authority.firstIndex(of: ":") {
        hostPart = authority[..<colon]
        portPart = authority[authority.index(after: colon)...]
      } else {
        hostPart = authority
      }
      if hostPart.isEmpty { throw refuse("missing host") }
      if let bad = hostPart.first(where: {
        !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_"))
      }) {
        throw refuse("invalid character '\(bad)' in host '\(hostPart)'")
      }
      if hostPart.allSatisfy({ $0.isNumber || $0 == "." }) {
        var address = in_addr()
        guard inet_pton(AF_INET, String(hostPart), &address) == 1 else {
          throw refuse("invalid IPv4 address '\(hostPart)'")
        }
      }
    }
    self.host = String(hostPart)

    if let portPart {
      if portPart.isEmpty { throw refuse("empty port after ':'") }
      guard portPart.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw refuse("invalid port '\(portPart)'") }
      guard portPart.count <= 5, let port = Int(portPart), (1...65535).contains(port) else {
        throw refuse("invalid port \(portPart) (use 1-65535)")
      }
      self.port = port
      self.portGiven = true
    } else {
      self.port = scheme == .http ? 80 : 443
      self.portGiven = false
    }

    var target = String(rest[authorityEnd...])
    if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
    var bytes = Array(target.utf8)[...]
    while let byte = bytes.popFirst() {
      switch byte {
      case UInt8(ascii: "%"):
        guard bytes.count >= 2, bytes.prefix(2).allSatisfy({ Self.isHex($0) }) else {
          throw refuse("invalid percent-escape in '\(target)' ('%' must be followed by two hex digits)")
        }
      case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
        UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
        throw refuse("character '\(Character(UnicodeScalar(byte)))' in the path must be percent-encoded")
      default: break
      }
    }
    self.target = target
  }

  private static func isHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
  }
}
