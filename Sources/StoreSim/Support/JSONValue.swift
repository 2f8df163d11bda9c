/// A parsed JSON document that remembers where each value stood in the text.
///
/// The `.storekit` reader needs line and column numbers for its diagnostics, duplicate keys kept
/// in order, and numbers kept as written (prices are decimals, never binary floating point), so
/// storesim reads JSON with this small parser instead of `JSONSerialization`.
package indirect enum JSONValue: Sendable, Equatable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, exactly as written in the text.
  case number(String)
  /// A string with escapes resolved.
  case string(String)
  /// An array of located values.
  case array([JSONNode])
  /// An object's members in document order, duplicates included.
  case object([JSONMember])

  /// A short name of the value's kind for messages ("a string", "an object").
  package var kindDescription: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

/// A JSON value with the location of its first character.
package struct JSONNode: Sendable, Equatable {
  /// The value.
  package var value: JSONValue
  /// Where the value starts.
  package var location: TextLocation

  /// Creates a node.
  package init(_ value: JSONValue, at location: TextLocation) {
    self.value = value
    self.location = location
  }

  /// The members when the value is an object.
  package var members: [JSONMember]? {
    if case .object(let members) = value { return members }
    return nil
  }

  /// The first member with this key, when the value is an object.
  package subscript(key: String) -> JSONNode? {
    members?.first(where: { $0.key == key })?.value
  }
}

/// One `"key": value` pair of an object.
package struct JSONMember: Sendable, Equatable {
  /// The key.
  package var key: String
  /// Where the key starts.
  package var keyLocation: TextLocation
  /// The value.
  package var value: JSONNode
}

/// Why a text is not JSON, and where.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  package var message: String
  /// Where the parser stopped.
  package var location: TextLocation

  /// `line:column: message`.
  package var description: String { "\(location): \(message)" }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes with locations and a nesting limit.
package struct JSONParser {
  /// Deepest nesting of arrays and objects accepted; deeper input is refused, never a crash.
  package static let maximumDepth = 256

  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var lineStart = 0
  private var depth = 0

  /// Parses a whole document; anything but whitespace after the value is an error.
  package static func parse(_ data: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONNode {
    var parser = JSONParser(bytes: Array(data))
    return try parser.parseDocument()
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Where the column count of `location` stopped, so a long line is scanned once, not once
  /// per value (a one-line file of thousands of products was quadratic).
  private var columnIndex = 0
  private var column = 1

  private var location: TextLocation {
    mutating get {
      if columnIndex < lineStart || columnIndex > index {
        columnIndex = lineStart
        column = 1
      }
      // Columns count scalars: skip UTF-8 continuation bytes on this line.
      while columnIndex < index && columnIndex < bytes.count {
        if bytes[columnIndex] & 0xC0 != 0x80 { column += 1 }
        columnIndex += 1
      }
      return TextLocation(line: line, column: column)
    }
  }

  private mutating func fail(_ message: String) -> JSONSyntaxError {
    JSONSyntaxError(message: message, location: location)
  }

  private mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    skipWhitespace()
    if index >= bytes.count { throw fail("the file is empty") }
    let node = try parseValue()
    skipWhitespace()
    if index < bytes.count { throw fail("unexpected \(describeByte()) after the end of the JSON value") }
    return node
  }

  private func describeByte() -> String {
    guard index < bytes.count else { return "end of file" }
    let byte = bytes[index]
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return String(format: "byte 0x%02X", byte)
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0D: index += 1
      case 0x0A:
        index += 1
        line += 1
        lineStart = index
      default: return
      }
    }
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
    let start = location
    guard index < bytes.count else { throw fail("unexpected end of file, expected a value") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return JSONNode(try parseObject(), at: start)
    case UInt8(ascii: "["): return JSONNode(try parseArray(), at: start)
    case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: start)
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return JSONNode(.bool(true), at: start)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return JSONNode(.bool(false), at: start)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return JSONNode(.null, at: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return JSONNode(.number(try parseNumber()), at: start)
    default:
      throw fail("expected a JSON value, found \(describeByte())")
    }
  }

  private mutating func expectLiteral(_ word: StaticString) throws(JSONSyntaxError) {
    let literal = word.withUTF8Buffer { Array($0) }
    guard bytes.count - index >= literal.count,
      Array(bytes[index..<index + literal.count]) == literal
    else { throw fail("expected a JSON value, found \(describeByte())") }
    index += literal.count
  }

  private mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw fail("nesting deeper than \(Self.maximumDepth) levels")
    }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    index += 1
    var members: [JSONMember] = []
    skipWhitespace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
      index += 1
      depth -= 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw fail("expected a quoted key, found \(describeByte())")
      }
      let keyLocation = location
      let key = try parseString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw fail("expected ':' after key \"\(key)\", found \(describeByte())")
      }
      index += 1
      skipWhitespace()
      let value = try parseValue()
      members.append(JSONMember(key: key, keyLocation: keyLocation, value: value))
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end of file inside an object") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      if bytes[index] == UInt8(ascii: "}") {
        index += 1
        depth -= 1
        return .object(members)
      }
      throw fail("expected ',' or '}' in an object, found \(describeByte())")
    }
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    index += 1
    var elements: [JSONNode] = []
    skipWhitespace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
      index += 1
      depth -= 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue())
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end of file inside an array") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      if bytes[index] == UInt8(ascii: "]") {
        index += 1
        depth -= 1
        return .array(elements)
      }
      throw fail("expected ',' or ']' in an array, found \(describeByte())")
    }
  }

  private mutating func parseNumber() throws(JSONSyntaxError) -> String {
    let start = index
    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw fail("malformed number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while index < bytes.count && isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("malformed number") }
      while index < bytes.count && isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
      index += 1
      if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("malformed number") }
      while index < bytes.count && isDigit(bytes[index]) { index += 1 }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  private mutating func parseString() throws(JSONSyntaxError) -> String {
    index += 1  // opening quote
    var scalars = String.UnicodeScalarView()
    var runStart = index
    func flush(_ end: Int) throws(JSONSyntaxError) {
      if end > runStart {
        guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
          throw JSONSyntaxError(message: "invalid UTF-8 in a string", location: location)
        }
        scalars.append(contentsOf: text.unicodeScalars)
      }
    }
    while true {
      guard index < bytes.count else { throw fail("unterminated string") }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        try flush(index)
        index += 1
        return String(scalars)
      }
      if byte < 0x20 {
        throw fail(byte == 0x0A ? "unterminated string (line break inside)" : "control character in a string")
      }
      if byte == UInt8(ascii: "\\") {
        try flush(index)
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"):
          var code = try parseHex4()
          if (0xD800...0xDBFF).contains(code) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw fail("unpaired surrogate in a \\u escape") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in a \\u escape") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00...0xDFFF).contains(code) {
            throw fail("unpaired surrogate in a \\u escape")
          }
          guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
          scalars.append(scalar)
        default:
          index -= 1
          throw fail("invalid escape \\\(describeByte())")
        }
        runStart = index
        continue
      }
      index += 1
    }
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
    guard bytes.count - index >= 4 else { throw fail("invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let digit: UInt32
      switch b {
      case 0x30...0x39: digit = UInt32(b - 0x30)
      case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
      case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
      default: throw fail("invalid \\u escape")
      }
      value = value * 16 + digit
      index += 1
    }
    return value
  }
}
