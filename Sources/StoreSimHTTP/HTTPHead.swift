/// The head of an HTTP/1.1 message (RFC 9112 §2–5): a start line and header fields. This is
/// the one place the header grammar is parsed, for the server's requests and the client's
/// responses alike. Lines end in CRLF or in a bare LF (RFC 9112 §2.2 lets a recipient accept
/// either); the head ends at the first empty line.
package struct HTTPHead: Sendable {
  /// The request line or the status line, as sent.
  package var startBytes: [UInt8]
  /// Header fields by lowercased name; a repeated field's values joined by ", " in order.
  package var fields: [String: String]

  /// Where the head in `bytes` (starting at `start`) ends: `end`, the index of the line feed
  /// that closes its last line (the head is `bytes[start..<end]`), and `body`, the index after
  /// the empty line. nil until the empty line has arrived.
  package static func end(in bytes: [UInt8], from start: Int = 0) -> (end: Int, body: Int)? {
    var i = start
    let count = bytes.count
    while i < count - 1 {
      if bytes[i] == 10 {
        if bytes[i + 1] == 10 { return (i, i + 2) }
        if bytes[i + 1] == 13, i + 2 < count, bytes[i + 2] == 10 { return (i, i + 3) }
      }
      i += 1
    }
    return nil
  }

  /// How many bytes of empty lines (CRLF or LF) start `bytes` at `start`: a server ignores them before a request
  /// line (RFC 9112 §2.2), as some clients send one after a request body.
  package static func leadingEmptyLines(_ bytes: [UInt8], from start: Int = 0) -> Int {
    var i = start
    while i < bytes.count {
      if bytes[i] == 10 {
        i += 1
      } else if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
        i += 2
      } else {
        break
      }
    }
    return i - start
  }

  /// Parses a head without its closing empty line: the start line, then one field per line
  /// (`name: value`, no white space in or after the name, the value's surrounding white
  /// space dropped). nil when a field line is malformed (a field name is a token of RFC 9110). Obsolete line folding is refused.
  package init?(_ bytes: ArraySlice<UInt8>) {
    var start = bytes.startIndex
    var end = bytes[start...].firstIndex(of: 10) ?? bytes.endIndex
    startBytes = Array(Self.dropCR(bytes[start..<end]))
    fields = [:]
    while end < bytes.endIndex {
      start = end + 1
      end = bytes[start...].firstIndex(of: 10) ?? bytes.endIndex
      let line = Self.dropCR(bytes[start..<end])
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
      let nameBytes = line[line.startIndex..<colon]
      guard nameBytes.allSatisfy(Self.isTokenCharacter) else { return nil }
      let name = String(unsafeUninitializedCapacity: nameBytes.count) { out in
        for (i, byte) in nameBytes.enumerated() { out[i] = (65...90).contains(byte) ? byte + 32 : byte }
        return nameBytes.count
      }
      var value = line[(colon + 1)...]
      while let f = value.first, f == 32 || f == 9 { value = value.dropFirst() }
      while let l = value.last, l == 32 || l == 9 { value = value.dropLast() }
      let text = String(decoding: value, as: UTF8.self)
      if let earlier = fields[name] {
        fields[name] = earlier + ", " + text
      } else {
        fields[name] = text
      }
    }
  }

  /// A `tchar` of RFC 9110 §5.6.2, the characters a field name is made of.
  static func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
      UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
      return true
    default: return false
    }
  }

  private static func dropCR(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    line.last == 13 ? line.dropLast() : line
  }

  /// The request line's method, target (origin form: it starts with `/`) and version
  /// (`HTTP/1.1` or `HTTP/1.0`); nil when the start line is not such a request line.
  package var requestLine: (method: String, target: String, version: String)? {
    let parts = startBytes.split(separator: 32, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, parts[1].first == UInt8(ascii: "/") else { return nil }
    let version = String(decoding: parts[2], as: UTF8.self)
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return nil }
    return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self), version)
  }

  /// The status line's code (`HTTP/1.x NNN reason`); nil when the start line is not a status line.
  package var statusCode: Int? {
    let parts = startBytes.split(separator: 32, maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0].starts(with: Array("HTTP/1.".utf8)), parts[1].count == 3,
      let code = Int(String(decoding: parts[1], as: UTF8.self)), code >= 100
    else { return nil }
    return code
  }

  /// Whether a comma-separated field value lists `token` (ASCII, any case): `Connection: close`.
  package static func lists(_ value: String?, _ token: String) -> Bool {
    guard let value else { return false }
    return value.utf8.split(separator: UInt8(ascii: ",")).contains { item in
      let trimmed = item.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
      return trimmed.count == token.utf8.count
        && zip(trimmed, token.utf8).allSatisfy { ((65...90).contains($0) ? $0 + 32 : $0) == $1 }
    }
  }
}
