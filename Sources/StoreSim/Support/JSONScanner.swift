/// The JSON grammar (RFC 8259) at the byte level: whitespace, literals, numbers and strings,
/// read from a buffer of UTF-8 bytes. It knows nothing of arrays and objects: `JSONParser`
/// builds trees with it and the session reader (`StateCodec`) pulls the values it expects
/// with it, so both read strings, escapes, numbers and literals the same way.
///
/// Its methods are not inlined into other modules (package-level declarations are not, even
/// `@inlinable`, with this toolchain), so a caller in a hot loop reads the next byte from
/// `bytes` itself and calls a method only for a whole token.
package struct JSONScanner {
  /// The bytes read.
  package let bytes: UnsafeBufferPointer<UInt8>
  /// Where the next token starts.
  package var index: Int

  /// Why the bytes are not the token asked for, and at which byte.
  package struct Failure: Error, Sendable, Equatable {
    /// What is wrong.
    package var message: String
    /// The byte offset where the scanner stopped.
    package var offset: Int

    /// A failure at `offset`.
    package init(message: String, offset: Int) {
      self.message = message
      self.offset = offset
    }
  }

  /// A scanner of `bytes` starting at `index`.
  package init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0) {
    self.bytes = bytes
    self.index = index
  }

  /// Whether every byte was read.
  @inline(__always)
  package var isAtEnd: Bool { index >= bytes.count }

  /// The next byte, when there is one.
  @inline(__always)
  package var next: UInt8? { index < bytes.count ? bytes[index] : nil }

  /// The whitespace between tokens: space, tab, line feed, carriage return.
  @inline(__always)
  package static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// Skips whitespace.
  @inline(__always)
  package mutating func skipWhitespace() {
    while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
  }

  /// The byte at `offset` for a message: `'x'`, `byte 0x0A` or `end of file`.
  package func describeByte(at offset: Int) -> String {
    guard offset < bytes.count else { return "end of file" }
    let byte = bytes[offset]
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x\(hex.count < 2 ? "0" + hex : hex)"
  }

  package func fail(_ message: String, at offset: Int) -> Failure { Failure(message: message, offset: offset) }

  /// The bytes of `range` as text (numbers, which are ASCII).
  package func text(_ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  // MARK: Literals

  /// `true`, `false` or `null`.
  package enum Literal {
    case `true`, `false`, null
  }

  /// Reads `literal` if it comes next; otherwise nothing is read.
  @inline(__always)
  package mutating func consume(_ literal: Literal) -> Bool {
    guard bytes.count - index >= 4 else { return false }
    let word = UInt32(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt32.self))
    switch literal {
    case .null:
      guard word == 0x6C6C_756E else { return false }  // "null"
      index += 4
    case .true:
      guard word == 0x6575_7274 else { return false }  // "true"
      index += 4
    case .false:
      guard word == 0x736C_6166, index + 4 < bytes.count, bytes[index + 4] == UInt8(ascii: "e") else {
        return false
      }  // "fals" "e"
      index += 5
    }
    return true
  }

  // MARK: Numbers

  /// `0`…`9`.
  @inline(__always)
  package static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  @inline(__always)
  package mutating func skipDigits() {
    while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
  }

  /// A number, `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: the bytes it was written with.
  /// Like the grammar, it stops after a leading `0`: what follows is the caller's to refuse.
  package mutating func scanNumber() throws(Failure) -> Range<Int> {
    let start = index
    if next == UInt8(ascii: "-") { index += 1 }
    guard let first = next, Self.isDigit(first) else { throw fail("malformed number", at: index) }
    index += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if next == UInt8(ascii: ".") {
      index += 1
      guard let digit = next, Self.isDigit(digit) else { throw fail("malformed number", at: index) }
      skipDigits()
    }
    if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
      index += 1
      if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
      guard let digit = next, Self.isDigit(digit) else { throw fail("malformed number", at: index) }
      skipDigits()
    }
    return start..<index
  }

  /// The digits of an integer (`0|[1-9][0-9]*`, no sign) up to `limit`, read in one pass.
  /// What follows them (a fraction, an exponent) is not read: the caller expects what comes next.
  @inline(__always)
  package mutating func scanDigits(upTo limit: UInt64 = .max) throws(Failure) -> UInt64 {
    var value: UInt64 = 0
    let start = index
    while index < bytes.count, Self.isDigit(bytes[index]) {
      let digit = UInt64(bytes[index] &- 0x30)
      guard value <= (limit - digit) / 10 else { throw fail("integer out of range", at: index) }
      value = value &* 10 &+ digit
      index += 1
    }
    guard index > start else { throw fail("expected an integer", at: index) }
    guard bytes[start] != UInt8(ascii: "0") || index == start + 1 else {
      throw fail("malformed number (leading zero)", at: start)
    }
    return value
  }

  /// An integer, `-?(0|[1-9][0-9]*)`, as an `Int64` (down to `-Int64.max`).
  @inline(__always)
  package mutating func scanInteger() throws(Failure) -> Int64 {
    let negative = next == UInt8(ascii: "-")
    if negative { index += 1 }
    let magnitude = Int64(truncatingIfNeeded: try scanDigits(upTo: UInt64(Int64.max)))
    return negative ? -magnitude : magnitude
  }

  // MARK: Strings

  /// A string (the scanner at its opening quote) with its escapes resolved; its UTF-8 must be
  /// valid. Errors name the first problem in reading order.
  package mutating func scanString() throws(Failure) -> String {
    index += 1  // the opening quote
    let start = index
    var high: UInt8 = 0
    // The common case: no escape before the closing quote.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        if high < 0x80 { return String(decoding: run, as: UTF8.self) }
        guard let text = String(validating: run, as: UTF8.self) else {
          throw fail("invalid UTF-8 in a string", at: index - 1)
        }
        return text
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      high |= byte
      index += 1
    }
    return try scanEscapedString(from: start)
  }

  /// The rest of a string that has an escape (or a problem) at `index`; `start` is just after
  /// the opening quote.
  package mutating func scanEscapedString(from start: Int) throws(Failure) -> String {
    var out: [UInt8] = []
    var runStart = start
    /// The plain bytes before `end`, checked as UTF-8.
    func flush(_ end: Int) throws(Failure) {
      guard end > runStart else { return }
      let run = UnsafeBufferPointer(rebasing: bytes[runStart..<end])
      guard String(validating: run, as: UTF8.self) != nil else {
        throw Failure(message: "invalid UTF-8 in a string", offset: end)
      }
      out.append(contentsOf: run)
    }
    while true {
      guard index < bytes.count else { throw fail("unterminated string", at: index) }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        try flush(index)
        index += 1
        return String(decoding: out, as: UTF8.self)
      }
      if byte < 0x20 {
        throw fail(
          byte == 0x0A ? "unterminated string (line break inside)" : "control character in a string", at: index)
      }
      guard byte == UInt8(ascii: "\\") else {
        index += 1
        continue
      }
      try flush(index)
      index += 1
      guard index < bytes.count else { throw fail("unterminated string", at: index) }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"): out.append(contentsOf: String(try scanUnicodeEscape()).utf8)
      default: throw fail("invalid escape \\\(describeByte(at: index - 1))", at: index - 1)
      }
      runStart = index
    }
  }

  /// The scalar of `XXXX` after `\u` (and of a following `\uXXXX` for a surrogate pair).
  package mutating func scanUnicodeEscape() throws(Failure) -> Unicode.Scalar {
    var code = try scanHex4()
    if (0xD800...0xDBFF).contains(code) {
      guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
        throw fail("unpaired surrogate in a \\u escape", at: index)
      }
      index += 2
      let low = try scanHex4()
      guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in a \\u escape", at: index) }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
    } else if (0xDC00...0xDFFF).contains(code) {
      throw fail("unpaired surrogate in a \\u escape", at: index)
    }
    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape", at: index) }
    return scalar
  }

  package mutating func scanHex4() throws(Failure) -> UInt32 {
    guard bytes.count - index >= 4 else { throw fail("invalid \\u escape", at: index) }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let digit: UInt32
      switch b {
      case 0x30...0x39: digit = UInt32(b - 0x30)
      case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
      case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
      default: throw fail("invalid \\u escape", at: index)
      }
      value = value * 16 + digit
      index += 1
    }
    return value
  }
}
