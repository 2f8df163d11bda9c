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
package struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
  package enum Scheme: String, Sendable { case http, https }

  /// The text as given (delivery records are keyed by it).
  package var text: String
  package var scheme: Scheme
  /// Host without brackets: `example.com`, `127.0.0.1`, `::1`.
  package var host: String
  /// The port connected to (given, or 80/443).
  package var port: Int
  /// Whether the text named the port.
  package var portGiven: Bool
  /// Request target: path and query, never empty (`/` at least).
  package var target: String

  package var isIPv6Literal: Bool { host.contains(":") }

  /// `Host` header value: the host (bracketed when IPv6) and the port when it was given.
  package var hostHeader: String {
    let h = isIPv6Literal ? "[\(host)]" : host
    return portGiven ? "\(h):\(port)" : h
  }

  /// The same URL normalised (lower-case scheme), for URLSession.
  package var normalized: String { "\(scheme.rawValue)://\(hostHeader)\(target)" }

  package var description: String { text }

  package struct Invalid: Error, Sendable, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
    package init(_ reason: String) { self.reason = reason }
  }

  package init(_ text: String) throws(Invalid) {
    self.text = text
    try Self.checkCharacters(text)
    let (scheme, rest) = try Self.scheme(of: text)
    self.scheme = scheme
    if rest.contains("#") { throw Invalid("has a fragment ('#...'), which is never sent to a server; remove it") }
    let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    if authority.contains("@") { throw Invalid("has userinfo ('user@'), which is not supported; remove it") }
    if authority.isEmpty { throw Invalid("missing host") }
    let (host, portText) =
      authority.hasPrefix("[") ? try Self.bracketedHost(authority) : try Self.namedHost(authority)
    self.host = String(host)
    if let portText {
      self.port = try Self.port(portText)
      self.portGiven = true
    } else {
      self.port = scheme == .http ? 80 : 443
      self.portGiven = false
    }
    self.target = try Self.target(rest[authorityEnd...])
  }

  /// Refuses whitespace, control characters and non-ASCII anywhere in the text.
  private static func checkCharacters(_ text: String) throws(Invalid) {
    if text.isEmpty { throw Invalid("empty URL") }
    for scalar in text.unicodeScalars {
      if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar.properties.isWhitespace {
        throw Invalid("contains whitespace (percent-encode it as %20)")
      }
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
        throw Invalid("contains a control character (U+\(String(format: "%04X", scalar.value)))")
      }
      if scalar.value > 0x7E { throw Invalid("contains the non-ASCII character '\(scalar)' (percent-encode it)") }
    }
  }

  /// The scheme and what follows `://`.
  private static func scheme(of text: String) throws(Invalid) -> (Scheme, Substring) {
    guard let schemeEnd = text.range(of: "://") else {
      // `mailto:x` names a scheme; `localhost:8080/x` and `127.0.0.1:8080` lack one.
      if let colon = text.firstIndex(of: ":"), let first = text.first, first.isLetter,
        text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
        text[text.index(after: colon)...].first?.isNumber != true
      {
        let s = text[..<colon].lowercased()
        if s == "http" || s == "https" { throw Invalid("missing '//' after '\(text[..<colon]):'") }
        throw Invalid("unsupported scheme '\(text[..<colon])' (use http or https)")
      }
      throw Invalid("missing scheme (use http:// or https://)")
    }
    let schemeText = text[..<schemeEnd.lowerBound]
    guard let scheme = Scheme(rawValue: schemeText.lowercased()) else {
      throw Invalid(
        schemeText.isEmpty
          ? "missing scheme (use http:// or https://)" : "unsupported scheme '\(schemeText)' (use http or https)")
    }
    return (scheme, text[schemeEnd.upperBound...])
  }

  /// `[v6-address]` and the port text after `]:`, if any.
  private static func bracketedHost(_ authority: Substring) throws(Invalid) -> (Substring, Substring?) {
    guard let close = authority.firstIndex(of: "]") else { throw Invalid("unterminated IPv6 literal (missing ']')") }
    let host = authority[authority.index(after: authority.startIndex)..<close]
    var portText: Substring?
    let after = authority[authority.index(after: close)...]
    if !after.isEmpty {
      guard after.hasPrefix(":") else { throw Invalid("unexpected '\(after)' after the IPv6 literal") }
      portText = after.dropFirst()
    }
    if host.isEmpty { throw Invalid("missing host") }
    if host.contains("%") { throw Invalid("IPv6 zone identifiers ('%...') are not supported") }
    var address = in6_addr()
    guard inet_pton(AF_INET6, String(host), &address) == 1 else { throw Invalid("invalid IPv6 address '\(host)'") }
    return (host, portText)
  }

  /// A host name or IPv4 address and the port text after `:`, if any.
  private static func namedHost(_ authority: Substring) throws(Invalid) -> (Substring, Substring?) {
    let colons = authority.filter { $0 == ":" }.count
    if colons > 1 { throw Invalid("an IPv6 address must be in brackets, like http://[::1]:8080/") }
    var host = authority
    var portText: Substring?
    if let colon = authority.firstIndex(of: ":") {
      host = authority[..<colon]
      portText = authority[authority.index(after: colon)...]
    }
    if host.isEmpty { throw Invalid("missing host") }
    if let bad = host.first(where: {
      !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_"))
    }) {
      throw Invalid("invalid character '\(bad)' in host '\(host)'")
    }
    if host.allSatisfy({ $0.isNumber || $0 == "." }) {
      var address = in_addr()
      guard inet_pton(AF_INET, String(host), &address) == 1 else { throw Invalid("invalid IPv4 address '\(host)'") }
    }
    return (host, portText)
  }

  private static func port(_ text: Substring) throws(Invalid) -> Int {
    if text.isEmpty { throw Invalid("empty port after ':'") }
    guard text.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw Invalid("invalid port '\(text)'") }
    guard text.count <= 5, let port = Int(text), (1...65535).contains(port) else {
      throw Invalid("invalid port \(text) (use 1-65535)")
    }
    return port
  }

  /// Path and query (`/` when empty); percent-escapes must be complete and unsafe characters encoded.
  private static func target(_ text: Substring) throws(Invalid) -> String {
    var target = String(text)
    if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
    var bytes = Array(target.utf8)[...]
    while let byte = bytes.popFirst() {
      switch byte {
      case UInt8(ascii: "%"):
        guard bytes.count >= 2, bytes.prefix(2).allSatisfy({ Self.isHex($0) }) else {
          throw Invalid("invalid percent-escape in '\(target)' ('%' must be followed by two hex digits)")
        }
      case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
        UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
        throw Invalid("character '\(Character(UnicodeScalar(byte)))' in the path must be percent-encoded")
      default: break
      }
    }
    return target
  }

  private static func isHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
  }
}
