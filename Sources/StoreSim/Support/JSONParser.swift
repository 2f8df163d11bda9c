/// A strict RFC 8259 JSON parser over UTF-8 bytes with locations and a nesting limit: arrays
/// and objects here, every token read by `JSONScanner`.
package struct JSONParser {
  /// Deepest nesting of arrays and objects accepted; deeper input is refused, never a crash.
  package static let maximumDepth = 256

  private var scanner: JSONScanner
  private var depth = 0
  /// Whether `[1,]` and `{"a":1,}` are read (as `JSONDecoder` reads them).
  private var allowsTrailingCommas = false

  /// Parses a whole document; anything but whitespace after the value is an error.
  package static func parse(
    _ data: some Collection<UInt8>, allowingTrailingCommas: Bool = false
  ) throws(JSONSyntaxError) -> JSONNode {
    let parsed =
      data.withContiguousStorageIfAvailable { buffer in
        Result { () throws(JSONSyntaxError) in try parse(buffer, allowingTrailingCommas: allowingTrailingCommas) }
      }
      ?? Array(data).withUnsafeBufferPointer { buffer in
        Result { () throws(JSONSyntaxError) in try parse(buffer, allowingTrailingCommas: allowingTrailingCommas) }
      }
    return try parsed.get()
  }

  /// Parses a whole document in memory. `allowingTrailingCommas` reads a comma before a
  /// closing bracket or brace, as `JSONDecoder` does (for files it wrote and read).
  package static func parse(
    _ buffer: UnsafeBufferPointer<UInt8>, allowingTrailingCommas: Bool = false
  ) throws(JSONSyntaxError) -> JSONNode {
    var parser = JSONParser(scanner: JSONScanner(buffer))
    parser.allowsTrailingCommas = allowingTrailingCommas
    return try parser.parseDocument()
  }

  private init(scanner: JSONScanner) {
    self.scanner = scanner
  }

  // MARK: Locations

  /// Lines and columns are counted up to `counted` only when a location is asked for, and
  /// from where the last count stopped, so the text is counted once in all (a one-line file
  /// of thousands of products was quadratic when each location counted its line again).
  private var counted = 0
  private var line = 1
  private var column = 1

  /// The line and column of byte `offset`; columns count scalars.
  private mutating func location(at offset: Int) -> TextLocation {
    if offset < counted {
      counted = 0
      line = 1
      column = 1
    }
    let bytes = scanner.bytes
    while counted < offset && counted < bytes.count {
      let byte = bytes[counted]
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        // Not a UTF-8 continuation byte: a new scalar.
        column += 1
      }
      counted += 1
    }
    return TextLocation(line: line, column: column)
  }

  private mutating func fail(_ message: String) -> JSONSyntaxError {
    JSONSyntaxError(message: message, location: location(at: scanner.index))
  }

  private mutating func fail(_ failure: JSONScanner.Failure) -> JSONSyntaxError {
    JSONSyntaxError(message: failure.message, location: location(at: failure.offset))
  }

  private var describeByte: String { scanner.describeByte(at: scanner.index) }

  // MARK: Values

  private mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
    let bytes = scanner.bytes
    if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { scanner.index = 3 }
    scanner.skipWhitespace()
    if scanner.isAtEnd { throw fail("the file is empty") }
    let node = try parseValue()
    scanner.skipWhitespace()
    if !scanner.isAtEnd { throw fail("unexpected \(describeByte) after the end of the JSON value") }
    return node
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
    let start = location(at: scanner.index)
    guard let byte = scanner.next else { throw fail("unexpected end of file, expected a value") }
    switch byte {
    case UInt8(ascii: "{"): return JSONNode(try parseObject(), at: start)
    case UInt8(ascii: "["): return JSONNode(try parseArray(), at: start)
    case UInt8(ascii: "\""):
      do { return JSONNode(.string(try scanner.scanString()), at: start) } catch { throw fail(error) }
    case UInt8(ascii: "t") where scanner.consume(.true): return JSONNode(.bool(true), at: start)
    case UInt8(ascii: "f") where scanner.consume(.false): return JSONNode(.bool(false), at: start)
    case UInt8(ascii: "n") where scanner.consume(.null): return JSONNode(.null, at: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      do {
        let range = try scanner.scanNumber()
        return JSONNode(.number(scanner.text(range)), at: start)
      } catch {
        throw fail(error)
      }
    default:
      throw fail("expected a JSON value, found \(describeByte)")
    }
  }

  private mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw fail("nesting deeper than \(Self.maximumDepth) levels")
    }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    scanner.index += 1
    var members: [JSONMember] = []
    scanner.skipWhitespace()
    if scanner.next == UInt8(ascii: "}") {
      scanner.index += 1
      depth -= 1
      return .object(members)
    }
    while true {
      scanner.skipWhitespace()
      guard scanner.next == UInt8(ascii: "\"") else { throw fail("expected a quoted key, found \(describeByte)") }
      let keyLocation = location(at: scanner.index)
      let key: String
      do { key = try scanner.scanString() } catch { throw fail(error) }
      scanner.skipWhitespace()
      guard scanner.next == UInt8(ascii: ":") else {
        throw fail("expected ':' after key \"\(key)\", found \(describeByte)")
      }
      scanner.index += 1
      scanner.skipWhitespace()
      let value = try parseValue()
      members.append(JSONMember(key: key, keyLocation: keyLocation, value: value))
      scanner.skipWhitespace()
      guard let byte = scanner.next else { throw fail("unexpected end of file inside an object") }
      scanner.index += 1
      if byte == UInt8(ascii: ","), !closesAfterTrailingComma(UInt8(ascii: "}")) { continue }
      if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") {
        depth -= 1
        return .object(members)
      }
      scanner.index -= 1
      throw fail("expected ',' or '}' in an object, found \(describeByte)")
    }
  }

  /// After a comma: whether `close` follows it and trailing commas are read (then it is read).
  private mutating func closesAfterTrailingComma(_ close: UInt8) -> Bool {
    guard allowsTrailingCommas else { return false }
    scanner.skipWhitespace()
    guard scanner.next == close else { return false }
    scanner.index += 1
    return true
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    scanner.index += 1
    var elements: [JSONNode] = []
    scanner.skipWhitespace()
    if scanner.next == UInt8(ascii: "]") {
      scanner.index += 1
      depth -= 1
      return .array(elements)
    }
    while true {
      scanner.skipWhitespace()
      elements.append(try parseValue())
      scanner.skipWhitespace()
      guard let byte = scanner.next else { throw fail("unexpected end of file inside an array") }
      scanner.index += 1
      if byte == UInt8(ascii: ","), !closesAfterTrailingComma(UInt8(ascii: "]")) { continue }
      if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
        depth -= 1
        return .array(elements)
      }
      scanner.index -= 1
      throw fail("expected ',' or ']' in an array, found \(describeByte)")
    }
  }
}
