import Foundation

/// How a POST went, in transport terms (no StoreKit names): what the notification sender maps
/// onto Apple's `sendAttemptResult`. Read from the attempt the clients return: its status, its
/// completeness, its content type and the one-line reason the clients write (their own words,
/// so the reading lives here, beside them).
package enum HTTPAttemptKind: String, Sendable, CaseIterable {
  /// A final status arrived with its whole body.
  case answered
  /// A 3xx: redirects are never followed.
  case redirect
  /// The deadline passed.
  case timedOut
  /// The connection closed (cleanly) before any byte of an answer.
  case closedWithoutResponse
  /// The connection closed in the middle of the answer's head or body.
  case closedInResponse
  /// Bytes came back that are not an HTTP/1.x answer (or a malformed one).
  case invalidResponse
  /// The answer's `Content-Type` names a charset other than UTF-8, US-ASCII or ISO-8859-1.
  case unsupportedCharset
  /// TLS failed: the handshake, the certificate.
  case tls
  /// No connection: refused, reset, unreachable, a name that does not resolve.
  case socket
  /// Anything else (an unusable URL).
  case other
}

extension HTTPAttempt {
  /// The charsets a notification's answer may declare.
  package static let supportedCharsets: Set<String> = ["utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1"]

  /// What kind of outcome this is (see `HTTPAttemptKind`).
  package var kind: HTTPAttemptKind {
    if let status {
      if (300..<400).contains(status) { return .redirect }
      if status < 200 { return .invalidResponse }
      if !complete { return (error ?? "").lowercased().contains("timed out") ? .timedOut : .closedInResponse }
      if let charset = Self.charset(contentType), !Self.supportedCharsets.contains(charset) {
        return .unsupportedCharset
      }
      return .answered
    }
    let reason = (error ?? "").lowercased()
    if reason.contains("timed out") { return .timedOut }
    if reason.contains("closed without a response") || reason == "no response" { return .closedWithoutResponse }
    if reason.contains("closed in the middle") { return .closedInResponse }
    if reason.hasPrefix("not an http response") || reason.contains("malformed response")
      || reason.hasPrefix("response headers over")
    {
      return .invalidResponse
    }
    if reason.contains("ssl") || reason.contains("tls") || reason.contains("certificate")
      || reason.contains("secure connection")
    {
      return .tls
    }
    if reason.contains("refused") || reason.contains("reset") || reason.contains("unreachable")
      || reason.contains("no route") || reason.hasPrefix("cannot resolve") || reason.hasPrefix("cannot create a socket")
      || reason.hasPrefix("sending the request failed") || reason.contains("broken pipe")
      || reason.contains("could not connect") || reason.contains("network is down")
    {
      return .socket
    }
    return .other
  }

  /// The `charset` parameter of a media type, lower case (nil when there is none): the value
  /// after `charset=` (any case), without the spaces, tabs and double quotes around it. Read
  /// byte by byte: every answer to every POST is asked.
  package static func charset(_ contentType: String?) -> String? {
    guard let contentType else { return nil }
    return contentType.utf8.withContiguousStorageIfAvailable(charset) ?? charset(Array(contentType.utf8)[...])
  }

  private static func charset<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> String?
  where Bytes.Index == Int {
    let semicolon = UInt8(ascii: ";")
    func trimmed(_ range: Range<Int>) -> Range<Int> {
      var (lower, upper) = (range.lowerBound, range.upperBound)
      while lower < upper, bytes[lower] == 32 || bytes[lower] == 9 { lower += 1 }
      while upper > lower, bytes[upper - 1] == 32 || bytes[upper - 1] == 9 { upper -= 1 }
      return lower..<upper
    }
    // The first part (the media type itself, after any empty parts) is not a parameter.
    var i = bytes.startIndex
    while i < bytes.endIndex, bytes[i] == semicolon { i += 1 }
    while i < bytes.endIndex, bytes[i] != semicolon { i += 1 }
    while i < bytes.endIndex {
      let start = i + 1
      var end = start
      while end < bytes.endIndex, bytes[end] != semicolon { end += 1 }
      i = end
      guard let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) else { continue }
      let name = trimmed(start..<equals)
      guard name.count == 7, zip(bytes[name], "charset".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { continue }
      // Spaces and quotes around the value: the spaces first, then the quotes.
      var value = trimmed(equals + 1..<end)
      while value.lowerBound < value.upperBound, bytes[value.lowerBound] == 34 { value = value.dropFirst() }
      while value.lowerBound < value.upperBound, bytes[value.upperBound - 1] == 34 { value = value.dropLast() }
      guard !value.isEmpty else { continue }
      return String(decoding: bytes[value], as: UTF8.self).lowercased()
    }
    return nil
  }
}
