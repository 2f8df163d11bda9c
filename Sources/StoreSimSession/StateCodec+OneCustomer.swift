import Foundation
import StoreSim

extension StateCodec {
  /// Decodes `base` (and the delivery log) and, of the customers' list, only the row of the
  /// customer holding transaction `id` (none when `id` is nil): what `serve` answers a request
  /// about one transaction from while the whole session is still being read (issue 50, item 6).
  /// The other rows are not decoded, only stepped over (their strings and brackets), and only
  /// as far as the row holding the first place the id's digits appear as a whole number; a row
  /// where they appear without it holding the transaction (a string, another field) is passed
  /// over and the search goes on after it. nil when no customer holds it. The notifications are
  /// not read (as `decode(skippingNotifications: true)`); `customersEnd` is where the list ends
  /// (the header's `stateLength`). `row`, when the file's index gives it (`SessionIndex`), is
  /// where that customer's row begins: it alone is decoded, and must hold the transaction.
  package static func decode(
    _ buffer: UnsafeBufferPointer<UInt8>, onlyCustomerHolding id: TransactionID?, customersEnd: Int, row: Int? = nil,
    deliveriesAsRows: Bool = true
  ) throws(DecodingError) -> StoreState? {
    var r = Reader(bytes: buffer)
    r.deliveriesAsRows = deliveriesAsRows
    r.skippingNotifications = true
    try r.expect(UInt8(ascii: "{"))
    try r.key("codec")
    let codecAt = r.i
    guard try r.string() == StateCodec.name else { throw r.fail("unknown codec", at: codecAt) }
    try r.key("base")
    var state = try r.base()
    try r.deliveryRows(&state)
    guard let id else { return state }
    try r.key("customers")
    try r.expect(UInt8(ascii: "["))
    r.ws()
    guard !r.at(UInt8(ascii: "]")) else { return nil }
    let end = min(customersEnd, buffer.count)
    if let row {
      guard row >= r.i, row < end, buffer[row] == UInt8(ascii: "[") else {
        throw DecodingError(offset: row, message: "the index names no row here")
      }
      r.scanner.index = row
      r.needsSeparator = false
      try r.customer()
      guard let customer = r.customers.last, customer.transaction(id) != nil, r.i <= end else {
        throw DecodingError(offset: row, message: "the row the index names does not hold transaction \(id)")
      }
      state.customers = [customer]
      return state
    }
    let digits = Array(String(id).utf8)
    var from = r.i
    while let hit = Self.wholeNumber(digits, in: buffer, from: from, to: end) {
      // Step over whole rows up to the one the hit is in.
      var rowStart = r.i
      var rowEnd = try Self.endOfValue(buffer, at: rowStart, before: end)
      while rowEnd <= hit {
        r.scanner.index = rowEnd
        guard r.skip(UInt8(ascii: ",")) else { return nil }
        r.ws()
        rowStart = r.i
        rowEnd = try Self.endOfValue(buffer, at: rowStart, before: end)
      }
      r.scanner.index = rowStart
      r.needsSeparator = false
      try r.customer()
      if let customer = r.customers.last, customer.transaction(id) != nil {
        state.customers = [customer]
        return state
      }
      r.customers.removeAll()
      from = rowEnd
      r.scanner.index = rowEnd
      guard r.skip(UInt8(ascii: ",")) else { return nil }
      r.ws()
    }
    return nil
  }

  /// Where the digits of `digits` next appear as a whole number (no digit either side) in
  /// `buffer[from..<to]`: compared eight bytes at a time (a transaction id has 16 digits).
  static func wholeNumber(_ digits: [UInt8], in buffer: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
    guard let base = buffer.baseAddress, !digits.isEmpty else { return nil }
    let raw = UnsafeRawPointer(base)
    func isDigit(_ at: Int) -> Bool { at >= 0 && at < buffer.count && (0x30...0x39).contains(buffer[at]) }
    func matches(_ at: Int) -> Bool {
      for k in digits.indices where base[at + k] != digits[k] { return false }
      return true
    }
    let head = digits.count >= 8 ? digits.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } : nil
    var at = from
    while at + digits.count <= to {
      if let head {
        if raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) == head, matches(at), !isDigit(at - 1),
          !isDigit(at + digits.count)
        {
          return at
        }
      } else if matches(at), !isDigit(at - 1), !isDigit(at + digits.count) {
        return at
      }
      at += 1
    }
    return nil
  }

  /// Where the array or object opening at `at` ends (just after its closing bracket), found by
  /// its brackets and strings alone; refused when it does not open there or end before `before`.
  static func endOfValue(_ buffer: UnsafeBufferPointer<UInt8>, at: Int, before: Int) throws(DecodingError) -> Int {
    guard at < before, buffer[at] == UInt8(ascii: "[") || buffer[at] == UInt8(ascii: "{") else {
      throw DecodingError(offset: at, message: "expected a row")
    }
    var depth = 0
    var i = at
    var inString = false
    while i < before {
      let byte = buffer[i]
      if inString {
        if byte == UInt8(ascii: "\\") {
          i += 1
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
      } else if byte == UInt8(ascii: "\"") {
        inString = true
      } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
        depth += 1
      } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
        depth -= 1
        if depth == 0 { return i + 1 }
      }
      i += 1
    }
    throw DecodingError(offset: at, message: "unterminated row")
  }
}
