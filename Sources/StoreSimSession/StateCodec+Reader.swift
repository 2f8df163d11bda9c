import Foundation
import StoreSim

extension StateCodec {
  /// Reads what `Writer` writes, one field per call: every value read inside `row` expects the
  /// `,` that separates it from the one before it, as every value written inside
  /// `Writer.array` writes it.
  ///
  /// Two levels: tokens (`ws`, `expect`, `text`, `signed`, `boolean`, `value`), read by the
  /// core's `JSONScanner`, know nothing of separators; fields (`string`, `int`, `bool`, `date`,
  /// `row`, `list`, …) read their separator first.
  struct Reader {
    var scanner: JSONScanner
    /// Where each transaction was decoded (customer, position), for notification references.
    var byID: [TransactionID: (Int32, Int32)] = [:]
    var customers: [Customer] = []
    var decimals: [String: Decimal] = [:]
    var skippingNotifications = false
    /// Where the customers' list ends, when known, and from what size it is read in two halves
    /// (`customerList`).
    var customersEnd: Int?
    var splitting = StateCodec.splitting
    /// Where the second half began, when a helper's was taken.
    var secondHalf: Int?
    /// Whether the reader, halfway, waits for a helper whose thread has not started (tests).
    var waitsForHelper = false
    /// Whether the next value follows another one in the same array or object.
    var needsSeparator = false
    /// Whether the record row being read ended before its trailing fields (`reads`).
    var rowEnded = false
    var deliveriesAsRows = true  // the delivery log may follow the notifications (version 4)

    init(bytes: UnsafeBufferPointer<UInt8>) { scanner = JSONScanner(bytes) }

    /// Where the reader is.
    var i: Int { scanner.index }

    /// Why the bytes are refused, at `offset` (by default where the reader is).
    func fail(_ message: String, at offset: Int? = nil) -> DecodingError {
      DecodingError(offset: offset ?? i, message: message)
    }

    /// A token the scanner refused.
    func fail(_ failure: JSONScanner.Failure) -> DecodingError {
      DecodingError(offset: failure.offset, message: failure.message)
    }

    // MARK: Tokens

    /// The next byte; nil at the end. Read from the buffer here, and `ws` calls the scanner
    /// only when whitespace comes: the scanner is in another module, its calls are not inlined,
    /// and these two run before every token.
    @inline(__always)
    var next: UInt8? {
      let i = scanner.index
      return i < scanner.bytes.count ? scanner.bytes[i] : nil
    }

    @inline(__always)
    mutating func ws() {
      if let byte = next, byte > 0x20 { return }
      scanner.skipWhitespace()
    }

    mutating func expect(_ c: UInt8) throws(DecodingError) {
      ws()
      guard next == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
      scanner.index += 1
    }

    /// Whether the next byte after whitespace is `c` (not consumed).
    mutating func at(_ c: UInt8) -> Bool {
      ws()
      return next == c
    }

    /// Consumes `c` if it comes next, and tells whether it was there.
    mutating func skip(_ c: UInt8) -> Bool {
      guard at(c) else { return false }
      scanner.index += 1
      return true
    }

    /// A JSON string token.
    mutating func text() throws(DecodingError) -> String {
      ws()
      guard next == UInt8(ascii: "\"") else { throw fail("expected '\"'") }
      do { return try scanner.scanString() } catch { throw fail(error) }
    }

    /// A JSON integer token.
    mutating func signed() throws(DecodingError) -> Int64 {
      ws()
      do { return try scanner.scanInteger() } catch { throw fail(error) }
    }

    /// `true` or `false`.
    mutating func boolean() throws(DecodingError) -> Bool {
      ws()
      if next == UInt8(ascii: "t"), scanner.consume(.true) { return true }
      if next == UInt8(ascii: "f"), scanner.consume(.false) { return false }
      throw fail("expected a boolean")
    }

    /// Reads any JSON value, checked strictly: objects with unique keys, numbers that
    /// `Decimal` can hold. Locations are on the state's one line, columns in bytes.
    mutating func value(depth: Int) throws(DecodingError) -> JSONNode {
      guard depth < 64 else { throw fail("nesting too deep") }
      ws()
      let location = TextLocation(line: 1, column: i + 1)
      guard let byte = next else { throw fail("expected a value") }
      switch byte {
      case UInt8(ascii: "{"):
        scanner.index += 1
        var members: [JSONMember] = []
        var keys: Set<String> = []
        if skip(UInt8(ascii: "}")) { return JSONNode(.object(members), at: location) }
        repeat {
          let keyAt = i
          let key = try text()
          try expect(UInt8(ascii: ":"))
          let value = try value(depth: depth + 1)
          guard keys.insert(key).inserted else { throw fail("duplicate key '\(key)'", at: keyAt) }
          members.append(
            JSONMember(key: key, keyLocation: TextLocation(line: 1, column: keyAt + 1), value: value))
        } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        return JSONNode(.object(members), at: location)
      case UInt8(ascii: "["):
        scanner.index += 1
        var elements: [JSONNode] = []
        if skip(UInt8(ascii: "]")) { return JSONNode(.array(elements), at: location) }
        repeat { elements.append(try value(depth: depth + 1)) } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return JSONNode(.array(elements), at: location)
      case UInt8(ascii: "\""): return JSONNode(.string(try text()), at: location)
      case UInt8(ascii: "t"), UInt8(ascii: "f"): return JSONNode(.bool(try boolean()), at: location)
      case UInt8(ascii: "n"):
        guard scanner.consume(.null) else { throw fail("expected a value") }
        return JSONNode(.null, at: location)
      default:
        // A number, refused at its start when malformed (a leading zero included) or too
        // large or small for `Decimal`.
        let start = i
        guard let range = try? scanner.scanNumber(), !(next.map(JSONScanner.isDigit) ?? false),
          case let text = scanner.text(range), JSONNodeDecoder.decimal(text) != nil
        else { throw fail("malformed number", at: start) }
        return JSONNode(.number(text), at: location)
      }
    }

    // MARK: Fields

    /// Before a value: the `,` that separates it from the one before it.
    @inline(__always)
    mutating func separator() throws(DecodingError) {
      if needsSeparator { try expect(UInt8(ascii: ",")) }
      needsSeparator = true
    }

    /// Whether the value is `null` (then read). Any other value is left to read, its separator
    /// already read.
    @inline(__always)
    mutating func null() throws(DecodingError) -> Bool {
      try separator()
      ws()
      if next == UInt8(ascii: "n"), scanner.consume(.null) { return true }
      needsSeparator = false
      return false
    }

    /// Whether the array goes on after the value just read (then its `,` is read): the items of
    /// a list, or a row's optional trailing fields.
    mutating func more() -> Bool {
      guard skip(UInt8(ascii: ",")) else { return false }
      needsSeparator = false
      return true
    }

    /// `[…]`, holding what `body` reads.
    mutating func row<T>(_ body: (inout Reader) throws(DecodingError) -> T) throws(DecodingError) -> T {
      try separator()
      try expect(UInt8(ascii: "["))
      needsSeparator = false
      let value = try body(&self)
      try expect(UInt8(ascii: "]"))
      needsSeparator = true
      return value
    }

    /// `[item, item, ...]`.
    mutating func list<T>(_ item: (inout Reader) throws(DecodingError) -> T) throws(DecodingError) -> [T] {
      try row { (r: inout Reader) throws(DecodingError) in
        var out: [T] = []
        guard !r.at(UInt8(ascii: "]")) else { return out }
        repeat { out.append(try item(&r)) } while r.more()
        return out
      }
    }

    /// `"name":`, the next member of an object. Its value starts fresh.
    mutating func key(_ name: String) throws(DecodingError) {
      try separator()
      let start = i
      guard try text() == name else { throw fail("expected the key '\(name)'", at: start) }
      try expect(UInt8(ascii: ":"))
      needsSeparator = false
    }

    mutating func string() throws(DecodingError) -> String {
      try separator()
      return try text()
    }

    mutating func optString() throws(DecodingError) -> String? { try null() ? nil : try string() }

    mutating func int() throws(DecodingError) -> Int64 {
      try separator()
      return try signed()
    }

    mutating func uint() throws(DecodingError) -> UInt64 {
      try separator()
      ws()
      let v: UInt64
      do { v = try scanner.scanDigits() } catch { throw fail(error) }
      guard SessionBounds.holds(integer: v) else { throw fail("integer out of range") }
      return v
    }

    mutating func optUInt() throws(DecodingError) -> UInt64? { try null() ? nil : try uint() }

    /// A count, within `SessionBounds.counts`.
    mutating func smallInt() throws(DecodingError) -> Int {
      let v = try int()
      guard SessionBounds.counts.contains(v), let n = Int(exactly: v) else { throw fail("count out of range") }
      return n
    }

    mutating func bool() throws(DecodingError) -> Bool {
      try separator()
      return try boolean()
    }

    mutating func date() throws(DecodingError) -> Date {
      let ms = try int()
      guard SessionBounds.holds(milliseconds: ms) else { throw fail("date out of range") }
      return Date(epochMilliseconds: ms)
    }
    mutating func optDate() throws(DecodingError) -> Date? { try null() ? nil : try date() }

    mutating func decimal() throws(DecodingError) -> Decimal {
      let s = try string()
      if let d = decimals[s] { return d }
      // `Decimal(string:)` reads a prefix and ignores the rest: check the whole text first.
      guard Self.isPlainNumber(s.utf8), let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else {
        throw fail("bad decimal '\(s)'")
      }
      guard SessionBounds.holds(price: d) else { throw fail("price out of range") }
      decimals[s] = d
      return d
    }

    mutating func optDecimal() throws(DecodingError) -> Decimal? { try null() ? nil : try decimal() }

    /// `-?digits(.digits)?`, as `NSDecimalNumber.stringValue` writes.
    static func isPlainNumber(_ text: String.UTF8View) -> Bool {
      var it = text.makeIterator()
      var b = it.next()
      if b == UInt8(ascii: "-") { b = it.next() }
      var intDigits = 0
      var fracDigits = 0
      var dot = false
      while let c = b {
        if c >= 0x30, c <= 0x39 {
          if dot { fracDigits += 1 } else { intDigits += 1 }
        } else if c == UInt8(ascii: "."), !dot {
          dot = true
        } else {
          return false
        }
        b = it.next()
      }
      return intDigits > 0 && (!dot || fracDigits > 0)
    }

    mutating func uuid() throws(DecodingError) -> UUID? {
      guard let s = try optString() else { return nil }
      guard let u = UUID(uuidString: s) else { throw fail("bad UUID") }
      return u
    }

    mutating func raw<T: RawRepresentable>(_: T.Type) throws(DecodingError) -> T where T.RawValue == String {
      let s = try string()
      guard let v = T(rawValue: s) else { throw fail("unknown value '\(s)'") }
      return v
    }

    /// A string field that must be one of `table`'s raw values. A plain one (no escapes) is
    /// matched on its bytes, without making a `String`; anything else is read as any string is
    /// and refused as `raw` refuses it.
    mutating func known<T: RawRepresentable>(
      _ table: [(utf8: [UInt8], value: T)]
    ) throws(DecodingError) -> T where T.RawValue == String {
      try separator()
      ws()
      let bytes = scanner.bytes
      let start = scanner.index
      if start < bytes.count, bytes[start] == UInt8(ascii: "\"") {
        var end = start + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\""), end > start + 1, let base = bytes.baseAddress {
          let length = end - start - 1
          for entry in table where entry.utf8.count == length {
            let same = entry.utf8.withUnsafeBytes { memcmp($0.baseAddress!, base + start + 1, length) == 0 }
            if same {
              scanner.index = end + 1
              return entry.value
            }
          }
        }
      }
      let s = try text()
      guard let v = T(rawValue: s) else { throw fail("unknown value '\(s)'") }
      return v
    }

    mutating func optRaw<T: RawRepresentable>(_: T.Type) throws(DecodingError) -> T? where T.RawValue == String {
      try null() ? nil : try raw(T.self)
    }

    mutating func rawInt<T: RawRepresentable>(_: T.Type) throws(DecodingError) -> T where T.RawValue == Int {
      let n = try smallInt()
      guard let v = T(rawValue: n) else { throw fail("unknown value \(n)") }
      return v
    }

    mutating func optRawInt<T: RawRepresentable>(_: T.Type) throws(DecodingError) -> T? where T.RawValue == Int {
      try null() ? nil : try rawInt(T.self)
    }

    mutating func period() throws(DecodingError) -> SubscriptionPeriod {
      let s = try string()
      guard let p = SubscriptionPeriod(iso8601: s) else { throw fail("bad period '\(s)'") }
      return p
    }

    /// The `Codable` part, refused unless it is exactly what `JSONEncoder` writes for the
    /// state it decodes to (`WrittenBack`): `JSONDecoder` alone would
    /// ignore unknown keys and take a misspelt optional key for an absent one.
    mutating func base() throws(DecodingError) -> StoreState {
      try separator()
      ws()
      let start = i
      guard next == UInt8(ascii: "{") else { throw fail("expected an object") }
      let node = try value(depth: 0)
      guard
        let state = WrittenBack.decode(
          StoreState.self, from: node, encoder: StateCodec.baseEncoder(), bounded: true),
        state.customers.isEmpty, state.notifications.isEmpty
      else { throw fail("bad base state", at: start) }
      return state
    }

    /// `{"codec":…,"base":…,"customers":[…],"notifications":[…]}`, keys in that order.
    mutating func document() throws(DecodingError) -> StoreState {
      try expect(UInt8(ascii: "{"))
      try key("codec")
      let codecAt = i
      let codec = try string()
      guard codec == StateCodec.name else { throw fail("unknown codec '\(codec)'", at: codecAt) }
      try key("base")
      var state = try base()
      try deliveryRows(&state)
      try key("customers")
      try customerList()
      try key("notifications")
      if skippingNotifications {
        // The outbox is written last: check the document closes after it and go on from its
        // closing bracket, as if it had been read.
        try expect(UInt8(ascii: "["))
        let bytes = scanner.bytes
        var end = bytes.count
        while end > i, JSONScanner.isWhitespace(bytes[end - 1]) { end -= 1 }
        guard end - i >= 2, bytes[end - 1] == UInt8(ascii: "}"), bytes[end - 2] == UInt8(ascii: "]") else {
          throw fail("truncated notifications")
        }
        scanner.index = end - 1
      } else {
        state.notifications = try list { (r: inout Reader) throws(DecodingError) in try r.notification() }
      }
      try expect(UInt8(ascii: "}"))
      ws()
      guard scanner.isAtEnd else { throw fail("data after the end") }
      state.customers = customers
      return state
    }
  }
}
