import Foundation
import StoreSim

/// A compact, versioned encoding of `StoreState` for session files (format `compact-1`).
///
/// The bulk of a session (transactions, subscriptions, notifications) is written as JSON
/// arrays of primitives in a fixed field order and read back by a streaming reader straight
/// into the model types. Everything else is ordinary `Codable` JSON under `base`. It is still
/// JSON text, about a third of the size of the `Codable` form and many times faster to read.
///
///     {"codec":"compact-1","base":{...StoreState without customers and notifications...},
///      "customers":[[name,appTransactionID,familyID,[groups],[transaction...],[subscription...]],...],
///      "notifications":[[type,subtype,sequence,signedDate,customer,transaction,renewalInfo,status],...]}
package enum StateCodec {
  /// The codec name written in the document.
  package static let name = "compact-1"

  /// Why bytes could not be decoded.
  package struct DecodingError: Error, Sendable, CustomStringConvertible {
    /// Byte offset.
    package var offset: Int
    /// What was expected.
    package var message: String
    /// `message at byte N`.
    package var description: String { "\(message) at byte \(offset)" }
  }

  // MARK: Encoding

  /// Encodes a state.
  package static func encode(_ state: StoreState) throws -> [UInt8] { try encodeSplit(state).bytes }

  /// Encodes a state and tells where the outbox part begins: `bytes[..<outboxStart]` is
  /// everything a read `skippingNotifications` decodes, `bytes[outboxStart...]` is
  /// `,"notifications":[…]}`. A session file checksums the two parts separately.
  package static func encodeSplit(_ state: StoreState) throws -> (bytes: [UInt8], outboxStart: Int) {
    var base = state
    base.customers = []
    base.notifications = []
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .millisecondsSince1970
    var w = Writer()
    w.bytes.reserveCapacity(4096 + state.customers.reduce(0) { $0 + $1.transactions.count } * 600)
    w.raw("{\"codec\":")
    w.string(name)
    w.raw(",\"base\":")
    w.bytes.append(contentsOf: try encoder.encode(base))
    w.raw(",\"customers\":")
    w.array { w in
      for c in state.customers { w.customer(c) }
    }
    let outboxStart = w.bytes.count
    w.raw(",\"notifications\":")
    var transactions: [TransactionID: Transaction] = [:]
    for c in state.customers { for t in c.transactions { transactions[t.id] = t } }
    w.array { w in
      for n in state.notifications { w.notification(n, stored: transactions) }
    }
    w.raw("}")
    return (w.bytes, outboxStart)
  }

  /// Writes JSON arrays of primitives: every value written inside `array` is separated from the
  /// one before it, so the field lists below read one field per call.
  struct Writer {
    var bytes: [UInt8] = []
    var decimals: [Decimal: String] = [:]
    /// Whether the next value follows another one in the same array.
    var needsSeparator = false

    /// Structure between values (an object's opening and keys): the next value starts fresh.
    mutating func raw(_ s: StaticString) {
      append(s)
      needsSeparator = false
    }

    /// The bytes of `s`, as they are.
    mutating func append(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    mutating func separate() {
      if needsSeparator { bytes.append(UInt8(ascii: ",")) }
      needsSeparator = true
    }

    /// `[…]`, holding what `body` writes.
    mutating func array(_ body: (inout Writer) -> Void) {
      separate()
      bytes.append(UInt8(ascii: "["))
      needsSeparator = false
      body(&self)
      bytes.append(UInt8(ascii: "]"))
      needsSeparator = true
    }

    mutating func null() {
      separate()
      append("null")
    }

    mutating func int(_ v: Int64) {
      separate()
      if v < 0 { bytes.append(UInt8(ascii: "-")) }
      digits(v.magnitude)
    }

    mutating func int(_ v: Int) { int(Int64(v)) }

    mutating func uint(_ value: UInt64) {
      separate()
      digits(value)
    }

    mutating func digits(_ value: UInt64) {
      var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes, on the stack
      var v = value
      var n = 0
      withUnsafeMutableBytes(of: &scratch) { scratch in
        repeat {
          scratch[23 - n] = UInt8(48 + v % 10)
          v /= 10
          n += 1
        } while v > 0
        bytes.append(contentsOf: UnsafeMutableRawBufferPointer(rebasing: scratch[(24 - n)...]))
      }
    }

    mutating func bool(_ v: Bool) {
      separate()
      append(v ? "true" : "false")
    }

    mutating func date(_ d: Date) { int(d.epochMilliseconds) }
    mutating func optDate(_ d: Date?) { if let d { date(d) } else { null() } }
    mutating func optString(_ s: String?) { if let s { string(s) } else { null() } }
    mutating func optUInt(_ v: UInt64?) { if let v { uint(v) } else { null() } }
    mutating func optInt(_ v: Int?) { if let v { int(v) } else { null() } }
    mutating func optDecimal(_ d: Decimal?) { if let d { decimal(d) } else { null() } }

    mutating func decimal(_ d: Decimal) {
      if let text = decimals[d] { return string(text) }
      let text = NSDecimalNumber(decimal: d).stringValue
      decimals[d] = text
      string(text)
    }

    mutating func string(_ s: String) {
      separate()
      bytes.append(UInt8(ascii: "\""))
      for b in s.utf8 {
        switch b {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case 0..<0x20: bytes.append(contentsOf: String(format: "\\u%04x", b).utf8)
        default: bytes.append(b)
        }
      }
      bytes.append(UInt8(ascii: "\""))
    }

    mutating func strings(_ list: some Sequence<String>) {
      array { w in
        for s in list { w.string(s) }
      }
    }

    mutating func period(_ p: SubscriptionPeriod) { string(p.iso8601) }

    /// `[name, appTransactionID, familyID, [groups], [transaction…], [subscription…]]`.
    mutating func customer(_ c: Customer) {
      array { w in
        w.string(c.id.rawValue)
        w.string(c.appTransactionID)
        w.optString(c.familyID)
        w.strings(c.introductoryOfferUsedGroups.sorted())
        w.array { w in
          for t in c.transactions { w.transaction(t) }
        }
        w.array { w in
          for s in c.subscriptions { w.subscription(s) }
        }
      }
    }

    /// `[type, subtype, sequence, signedDate, customer, transaction, renewalInfo, status(, reason)]`.
    /// A transaction still as stored is written as a reference to it.
    mutating func notification(_ n: ServerNotification, stored transactions: [TransactionID: Transaction]) {
      array { w in
        w.string(n.notificationType.rawValue)
        w.optString(n.subtype?.rawValue)
        w.int(n.sequence)
        w.date(n.signedDate)
        w.string(n.customer.rawValue)
        if let t = n.transaction {
          if let current = transactions[t.id], current.withMutableFields(of: t) == t {
            w.reference(t)
          } else {
            w.transaction(t)
          }
        } else {
          w.null()
        }
        if let r = n.renewalInfo { w.renewalInfo(r) } else { w.null() }
        w.optString(n.status?.rawValue)
        if let reason = n.consumptionRequestReason { w.string(reason.rawValue) }  // optional trailing field
      }
    }

    mutating func transactionOffer(_ o: TransactionOffer?) {
      guard let o else { return null() }
      array { w in
        w.int(o.type.rawValue)
        w.optString(o.id)
        w.string(o.paymentMode.rawValue)
        w.period(o.period)
      }
    }

    mutating func offer(_ o: SubscriptionOffer?) {
      guard let o else { return null() }
      array { w in
        w.int(o.type.rawValue)
        w.optString(o.id)
        w.string(o.paymentMode.rawValue)
        w.period(o.period)
        w.int(o.periodCount)
        w.decimal(o.price)
        w.strings(o.eligibility.map(\.rawValue))
        w.bool(o.isEligible)
      }
    }

    mutating func transaction(_ t: Transaction) {
      array { w in
        w.uint(t.id)
        w.uint(t.originalID)
        w.optUInt(t.webOrderLineItemID)
        w.string(t.productID)
        w.string(t.productType.rawValue)
        w.optString(t.subscriptionGroupID)
        w.date(t.purchaseDate)
        w.date(t.originalPurchaseDate)
        w.optDate(t.expirationDate)
        w.int(t.purchasedQuantity)
        w.optString(t.appAccountToken?.uuidString)
        w.string(t.ownershipType.rawValue)
        w.optDate(t.revocationDate)
        w.optInt(t.revocationReason?.rawValue)
        w.bool(t.isFamilyRevocation)
        w.bool(t.isUpgraded)
        w.transactionOffer(t.offer)
        w.string(t.reason.rawValue)
        w.decimal(t.price)
        w.string(t.currency)
        w.string(t.storefront)
        w.string(t.storefrontID)
        w.bool(t.isFinished)
        w.optString(t.sharedFrom?.rawValue)
        w.optUInt(t.sharedTransactionID)
      }
    }

    /// A transaction as it was when a notification carried it: a reference to the stored
    /// transaction plus the fields that may have changed since.
    mutating func reference(_ t: Transaction) {
      array { w in
        w.string("ref")
        w.uint(t.id)
        w.bool(t.isFinished)
        w.bool(t.isUpgraded)
        w.optDate(t.revocationDate)
        w.optInt(t.revocationReason?.rawValue)
        w.bool(t.isFamilyRevocation)
        w.optDate(t.expirationDate)
      }
    }

    mutating func subscription(_ s: SubscriptionState) {
      array { w in
        w.string(s.groupID)
        w.uint(s.originalID)
        w.string(s.currentProductID)
        w.string(s.autoRenewProductID)
        w.bool(s.willAutoRenew)
        w.date(s.expirationDate)
        w.uint(s.latestTransactionID)
        w.billing(s.billing)
        w.optInt(s.expirationReason?.rawValue)
        w.bool(s.isExpired)
        w.bool(s.isRevoked)
        w.string(s.priceIncreaseStatus.rawValue)
        w.offer(s.pendingOffer)
        w.offer(s.runningOffer)
        w.int(s.runningOfferPeriodsLeft)
        w.date(s.recentSubscriptionStartDate)
        w.int(s.renewalCount)
        w.optString(s.appAccountToken?.uuidString)
        // Optional trailing fields (older files end before them).
        if s.anniversaryDate != nil || s.increasedPrice != nil {
          w.optDate(s.anniversaryDate)
          w.optDecimal(s.increasedPrice)
        }
      }
    }

    /// `[kind, graceDate, retryDate]`: kind 0 healthy, 1 grace period, 2 billing retry.
    mutating func billing(_ b: BillingState) {
      let (kind, grace, retry): (Int, Date?, Date?) =
        switch b {
        case .healthy: (0, nil, nil)
        case .gracePeriod(let grace, let retry): (1, grace, retry)
        case .billingRetry(let retry): (2, nil, retry)
        }
      array { w in
        w.int(kind)
        w.optDate(grace)
        w.optDate(retry)
      }
    }

    mutating func renewalInfo(_ r: RenewalInfo) {
      array { w in
        w.uint(r.originalTransactionID)
        w.string(r.currentProductID)
        w.string(r.autoRenewProductID)
        w.bool(r.willAutoRenew)
        w.optInt(r.expirationReason?.rawValue)
        w.bool(r.isInBillingRetry)
        w.optDate(r.gracePeriodExpirationDate)
        w.string(r.priceIncreaseStatus.rawValue)
        w.transactionOffer(r.offer)
        w.date(r.renewalDate)
        w.date(r.recentSubscriptionStartDate)
        w.decimal(r.renewalPrice)
        w.string(r.currency)
        w.strings(r.eligibleWinBackOfferIDs)
        w.optString(r.appAccountToken?.uuidString)
        w.date(r.signedDate)
      }
    }
  }

  // MARK: Decoding

  /// Decodes a state written by `encode`.
  package static func decode(_ bytes: [UInt8]) throws(DecodingError) -> StoreState {
    try bytes.withUnsafeBufferPointer { (buffer) throws(DecodingError) -> StoreState in try decode(buffer) }
  }

  /// Decodes a state from memory without copying it.
  ///
  /// The reader is strict: the document must be exactly what `encode` writes, give or take
  /// JSON whitespace and string escapes. Literals, commas, colons, brackets, numbers (integers
  /// without leading zeros), string escapes and UTF-8 are checked as JSON requires. The four
  /// keys must come once each in their order, every enumeration code must be known, the
  /// `Codable` part (`base`) must re-encode to the same JSON (so an unknown or misspelt key
  /// is refused rather than ignored), and nothing but whitespace may follow the document.
  ///
  /// With `skippingNotifications`, the outbox (the last and largest part of a session) is not
  /// read: the state has no notifications. That is for commands that only read transactions or
  /// subscriptions, and such a state must never be saved. The document must still end where a whole
  /// one does.
  package static func decode(
    _ buffer: UnsafeBufferPointer<UInt8>, skippingNotifications: Bool = false
  ) throws(DecodingError) -> StoreState {
    var r = Reader(bytes: buffer)
    r.skippingNotifications = skippingNotifications
    return try r.document()
  }

  /// Reads what `Writer` writes, one field per call: every value read inside `row` expects the
  /// `,` that separates it from the one before it, as every value written inside
  /// `Writer.array` writes it.
  ///
  /// Two levels: tokens (`ws`, `expect`, `text`, `signed`, `number`, `value`) know nothing of
  /// separators, fields (`string`, `int`, `bool`, `date`, `row`, `list`, …) read their separator
  /// first.
  struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where each transaction was decoded (customer, position), for notification references.
    var byID: [TransactionID: (Int32, Int32)] = [:]
    var customers: [Customer] = []
    var i = 0
    var decimals: [String: Decimal] = [:]
    var skippingNotifications = false
    /// Whether the next value follows another one in the same array or object.
    var needsSeparator = false

    /// Why the bytes are refused, at `offset` (by default where the reader is).
    func fail(_ message: String, at offset: Int? = nil) -> DecodingError {
      DecodingError(offset: offset ?? i, message: message)
    }

    // MARK: Tokens

    mutating func ws() {
      while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ c: UInt8) throws(DecodingError) {
      ws()
      guard i < bytes.count, bytes[i] == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
      i += 1
    }

    /// Whether the next byte after whitespace is `c` (not consumed).
    mutating func at(_ c: UInt8) -> Bool {
      ws()
      return i < bytes.count && bytes[i] == c
    }

    /// Consumes `c` if it comes next, and tells whether it was there.
    mutating func skip(_ c: UInt8) -> Bool {
      guard at(c) else { return false }
      i += 1
      return true
    }

    /// Whether the next four bytes are `word` (four ASCII letters, little-endian).
    @inline(__always)
    func next4(_ word: UInt32) -> Bool {
      bytes.count - i >= 4
        && UInt32(littleEndian: UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt32.self)) == word
    }

    static let nullWord: UInt32 = 0x6C6C_756E  // "null"
    static let trueWord: UInt32 = 0x6575_7274  // "true"
    static let falsWord: UInt32 = 0x736C_6166  // "fals"

    /// A JSON string token.
    mutating func text() throws(DecodingError) -> String {
      try expect(UInt8(ascii: "\""))
      let start = i
      var escaped = false
      var seen: UInt8 = 0
      while i < bytes.count {
        let b = bytes[i]
        if b == UInt8(ascii: "\"") { break }
        if b == UInt8(ascii: "\\") {
          escaped = true
          i += 2
          continue
        }
        guard b >= 0x20 else { throw fail("control character in a string") }
        seen |= b
        i += 1
      }
      guard i < bytes.count else { throw fail("unterminated string") }
      defer { i += 1 }
      let text = UnsafeBufferPointer(rebasing: bytes[start..<i])
      if !escaped {
        if seen < 0x80 { return String(decoding: text, as: UTF8.self) }
        // Non-ASCII: must be valid UTF-8 (decoding would quietly replace bad bytes).
        let s = String(decoding: text, as: UTF8.self)
        guard s.utf8.elementsEqual(text) else { throw fail("invalid UTF-8 in a string") }
        return s
      }
      // Rare: escapes. Let the strict parser resolve and check them.
      let quoted = [UInt8(ascii: "\"")] + Array(text) + [UInt8(ascii: "\"")]
      guard let node = try? JSONParser.parse(quoted), case .string(let s) = node.value else { throw fail("bad string") }
      return s
    }

    /// Digits of a JSON integer: at least one, no leading zero.
    @inline(__always)
    mutating func digits<T: FixedWidthInteger>(_: T.Type) throws(DecodingError) -> T {
      var v: T = 0
      let start = i
      while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(T(bytes[i] &- 0x30))
        guard !o1, !o2 else { throw fail("integer out of range") }
        v = a
        i += 1
      }
      guard i > start else { throw fail("expected an integer") }
      guard bytes[start] != 0x30 || i == start + 1 else {
        throw fail("malformed number (leading zero)", at: start)
      }
      return v
    }

    /// A JSON integer token.
    mutating func signed() throws(DecodingError) -> Int64 {
      ws()
      guard i < bytes.count, bytes[i] == UInt8(ascii: "-") else { return try digits(Int64.self) }
      i += 1
      return -(try digits(Int64.self))
    }

    /// `true` or `false`.
    mutating func boolean() throws(DecodingError) -> Bool {
      ws()
      if next4(Self.trueWord) {
        i += 4
        return true
      }
      if next4(Self.falsWord), i + 4 < bytes.count, bytes[i + 4] == UInt8(ascii: "e") {
        i += 5
        return false
      }
      throw fail("expected a boolean")
    }

    /// A JSON value, checked strictly (objects with unique keys). Numbers compare by value.
    indirect enum Value: Equatable {
      case null, bool(Bool), number(Decimal), string(String), array([Value]), object([String: Value])
    }

    /// Reads any JSON value as `Value`.
    mutating func value(depth: Int) throws(DecodingError) -> Value {
      guard depth < 64 else { throw fail("nesting too deep") }
      ws()
      guard i < bytes.count else { throw fail("expected a value") }
      switch bytes[i] {
      case UInt8(ascii: "{"):
        i += 1
        var members: [String: Value] = [:]
        if skip(UInt8(ascii: "}")) { return .object(members) }
        repeat {
          let keyAt = i
          let key = try text()
          try expect(UInt8(ascii: ":"))
          guard members.updateValue(try value(depth: depth + 1), forKey: key) == nil else {
            throw fail("duplicate key '\(key)'", at: keyAt)
          }
        } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        return .object(members)
      case UInt8(ascii: "["):
        i += 1
        var elements: [Value] = []
        if skip(UInt8(ascii: "]")) { return .array(elements) }
        repeat { elements.append(try value(depth: depth + 1)) } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return .array(elements)
      case UInt8(ascii: "\""): return .string(try text())
      case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try boolean())
      case UInt8(ascii: "n"):
        guard next4(Self.nullWord) else { throw fail("expected a value") }
        i += 4
        return .null
      default: return .number(try number())
      }
    }

    /// A JSON number (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`) by value.
    mutating func number() throws(DecodingError) -> Decimal {
      let start = i
      let malformed = fail("malformed number", at: start)
      func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
      func digits(_ r: inout Reader) -> Int {
        let from = r.i
        while r.i < r.bytes.count, isDigit(r.bytes[r.i]) { r.i += 1 }
        return r.i - from
      }
      if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
      let whole = i
      guard digits(&self) > 0, bytes[whole] != 0x30 || i == whole + 1 else { throw malformed }
      if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
        i += 1
        guard digits(&self) > 0 else { throw malformed }
      }
      if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
        i += 1
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard digits(&self) > 0 else { throw malformed }
      }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
      guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw malformed }
      return d
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
      if next4(Self.nullWord) {
        i += 4
        return true
      }
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
      return try digits(UInt64.self)
    }

    mutating func optUInt() throws(DecodingError) -> UInt64? { try null() ? nil : try uint() }

    mutating func smallInt() throws(DecodingError) -> Int {
      let v = try int()
      guard let n = Int(exactly: v) else { throw fail("integer out of range") }
      return n
    }

    mutating func bool() throws(DecodingError) -> Bool {
      try separator()
      return try boolean()
    }

    mutating func date() throws(DecodingError) -> Date { Date(epochMilliseconds: try int()) }
    mutating func optDate() throws(DecodingError) -> Date? { try null() ? nil : try date() }

    mutating func decimal() throws(DecodingError) -> Decimal {
      let s = try string()
      if let d = decimals[s] { return d }
      // `Decimal(string:)` reads a prefix and ignores the rest: check the whole text first.
      guard Self.isPlainNumber(s.utf8), let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else {
        throw fail("bad decimal '\(s)'")
      }
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

    /// The `Codable` part, refused unless it is strict JSON that re-encodes to the same JSON:
    /// `JSONDecoder` alone would ignore unknown keys and take a misspelt optional key for an
    /// absent one.
    mutating func base() throws(DecodingError) -> StoreState {
      try separator()
      ws()
      let start = i
      guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { throw fail("expected an object") }
      let original = try value(depth: 0)
      let slice = bytes[start..<i]
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .millisecondsSince1970
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      encoder.dateEncodingStrategy = .millisecondsSince1970
      guard let state = try? decoder.decode(StoreState.self, from: Data(slice)), state.customers.isEmpty,
        state.notifications.isEmpty,
        let again = try? encoder.encode(state),
        let reencoded = Array(again).withUnsafeBufferPointer({ buffer in
          var r = Reader(bytes: buffer)
          return try? r.value(depth: 0)
        }),
        original == reencoded
      else { throw fail("bad base state", at: start) }
      return state
    }

    // MARK: Rows, in the order `Writer` writes them

    /// `[name, appTransactionID, familyID, [groups], [transaction…], [subscription…]]`.
    mutating func customer() throws(DecodingError) {
      let customer = try row { (r: inout Reader) throws(DecodingError) in
        let id = CustomerID(try r.string())
        let app = try r.string()
        let family = try r.optString()
        let groups = try r.list { (r: inout Reader) throws(DecodingError) in try r.string() }
        let transactions = try r.list { (r: inout Reader) throws(DecodingError) in try r.transaction() }
        let subscriptions = try r.list { (r: inout Reader) throws(DecodingError) in try r.subscription() }
        return Customer(
          id: id, transactions: transactions, subscriptions: subscriptions,
          introductoryOfferUsedGroups: Set(groups), familyID: family, appTransactionID: app)
      }
      let c = Int32(customers.count)
      if !skippingNotifications {
        for (n, t) in customer.transactions.enumerated() { byID[t.id] = (c, Int32(n)) }
      }
      customers.append(customer)
    }

    /// `[type, subtype, sequence, signedDate, customer, transaction, renewalInfo, status(, reason)]`.
    mutating func notification() throws(DecodingError) -> ServerNotification {
      try row { (r: inout Reader) throws(DecodingError) in
        let type = try r.raw(NotificationTypeV2.self)
        let subtype = try r.optRaw(Subtype.self)
        let sequence = try r.smallInt()
        let signed = try r.date()
        let customer = CustomerID(try r.string())
        let transaction = try r.null() ? nil : try r.notificationTransaction()
        let info = try r.renewalInfo()
        let status = try r.optRaw(RenewalState.self)
        // Optional trailing field (older files end before it).
        let reason = r.more() ? try r.optRaw(ConsumptionRequestReason.self) : nil
        return ServerNotification(
          notificationType: type, subtype: subtype, sequence: sequence, signedDate: signed, customer: customer,
          transaction: transaction, renewalInfo: info, status: status, consumptionRequestReason: reason)
      }
    }

    mutating func transactionOffer() throws(DecodingError) -> TransactionOffer? {
      if try null() { return nil }
      return try row { (r: inout Reader) throws(DecodingError) in
        let type = try r.rawInt(OfferType.self)
        let id = try r.optString()
        let mode = try r.raw(PaymentMode.self)
        let period = try r.period()
        return TransactionOffer(type: type, id: id, paymentMode: mode, period: period)
      }
    }

    mutating func offer() throws(DecodingError) -> SubscriptionOffer? {
      if try null() { return nil }
      return try row { (r: inout Reader) throws(DecodingError) in
        let type = try r.rawInt(OfferType.self)
        let id = try r.optString()
        let mode = try r.raw(PaymentMode.self)
        let period = try r.period()
        let count = try r.smallInt()
        let price = try r.decimal()
        let eligibility = try r.list { (r: inout Reader) throws(DecodingError) in try r.raw(OfferCodeEligibility.self) }
        let eligible = try r.bool()
        return SubscriptionOffer(
          type: type, id: id, paymentMode: mode, period: period, periodCount: count, price: price,
          eligibility: eligibility, isEligible: eligible)
      }
    }

    mutating func transaction() throws(DecodingError) -> Transaction {
      try row { (r: inout Reader) throws(DecodingError) in try r.transactionFields() }
    }

    /// The fields of a transaction row.
    mutating func transactionFields() throws(DecodingError) -> Transaction {
      let id = try uint()
      let original = try uint()
      let web = try optUInt()
      let product = try string()
      let type = try raw(ProductType.self)
      let group = try optString()
      let purchase = try date()
      let originalPurchase = try date()
      let expiration = try optDate()
      let quantity = try smallInt()
      let token = try uuid()
      let ownership = try raw(OwnershipType.self)
      let revocation = try optDate()
      let revocationReason = try optRawInt(RevocationReason.self)
      let familyRevoke = try bool()
      let upgraded = try bool()
      let offer = try transactionOffer()
      let reason = try raw(TransactionReason.self)
      let price = try decimal()
      let currency = try string()
      let storefront = try string()
      let storefrontID = try string()
      let finished = try bool()
      let sharedFrom = try optString().map { CustomerID($0) }
      let sharedID = try optUInt()
      return Transaction(
        id: id, originalID: original, webOrderLineItemID: web, productID: product, productType: type,
        subscriptionGroupID: group, purchaseDate: purchase, originalPurchaseDate: originalPurchase,
        expirationDate: expiration, purchasedQuantity: quantity, appAccountToken: token, ownershipType: ownership,
        revocationDate: revocation, revocationReason: revocationReason,
        isFamilyRevocation: familyRevoke, isUpgraded: upgraded, offer: offer, reason: reason, price: price,
        currency: currency, storefront: storefront, storefrontID: storefrontID, isFinished: finished,
        sharedFrom: sharedFrom, sharedTransactionID: sharedID)
    }

    /// A full transaction row, or a reference row written by `Writer.reference`.
    mutating func notificationTransaction() throws(DecodingError) -> Transaction {
      try row { (r: inout Reader) throws(DecodingError) in
        guard r.at(UInt8(ascii: "\"")) else { return try r.transactionFields() }
        guard try r.string() == "ref" else { throw r.fail("bad transaction reference") }
        let id = try r.uint()
        guard let (c, n) = r.byID[id] else { throw r.fail("reference to unknown transaction \(id)") }
        var t = r.customers[Int(c)].transactions[Int(n)]
        t.isFinished = try r.bool()
        t.isUpgraded = try r.bool()
        t.revocationDate = try r.optDate()
        t.revocationReason = try r.optRawInt(RevocationReason.self)
        t.isFamilyRevocation = try r.bool()
        t.expirationDate = try r.optDate()
        return t
      }
    }

    mutating func subscription() throws(DecodingError) -> SubscriptionState {
      try row { (r: inout Reader) throws(DecodingError) in
        let group = try r.string()
        let original = try r.uint()
        let current = try r.string()
        let autoRenew = try r.string()
        let will = try r.bool()
        let expiration = try r.date()
        let latest = try r.uint()
        let billing = try r.billing()
        let reason = try r.optRawInt(ExpirationReason.self)
        let expired = try r.bool()
        let revoked = try r.bool()
        let price = try r.raw(PriceIncreaseStatus.self)
        let pending = try r.offer()
        let running = try r.offer()
        let left = try r.smallInt()
        let recent = try r.date()
        let renewals = try r.smallInt()
        let token = try r.uuid()
        // Optional trailing fields (older files end before them).
        var anniversary: Date?
        var increased: Decimal?
        if r.more() {
          anniversary = try r.optDate()
          increased = try r.optDecimal()
        }
        return SubscriptionState(
          groupID: group, originalID: original, currentProductID: current, autoRenewProductID: autoRenew,
          willAutoRenew: will, expirationDate: expiration, latestTransactionID: latest, billing: billing,
          expirationReason: reason, isExpired: expired, isRevoked: revoked, priceIncreaseStatus: price,
          pendingOffer: pending, runningOffer: running, runningOfferPeriodsLeft: left,
          recentSubscriptionStartDate: recent, renewalCount: renewals, appAccountToken: token,
          anniversaryDate: anniversary, increasedPrice: increased)
      }
    }

    /// `[kind, graceDate, retryDate]`, as `Writer.billing` writes it.
    mutating func billing() throws(DecodingError) -> BillingState {
      let (kind, grace, retry) = try row { (r: inout Reader) throws(DecodingError) in
        let kind = try r.smallInt()
        let grace = try r.optDate()
        let retry = try r.optDate()
        return (kind, grace, retry)
      }
      switch (kind, grace, retry) {
      case (0, nil, nil): return .healthy
      case (1, let g?, let r?): return .gracePeriod(gracePeriodExpirationDate: g, retryEndDate: r)
      case (2, nil, let r?): return .billingRetry(retryEndDate: r)
      default: throw fail("bad billing state")
      }
    }

    mutating func renewalInfo() throws(DecodingError) -> RenewalInfo? {
      if try null() { return nil }
      return try row { (r: inout Reader) throws(DecodingError) in
        let original = try r.uint()
        let current = try r.string()
        let autoRenew = try r.string()
        let will = try r.bool()
        let reason = try r.optRawInt(ExpirationReason.self)
        let retry = try r.bool()
        let grace = try r.optDate()
        let price = try r.raw(PriceIncreaseStatus.self)
        let offer = try r.transactionOffer()
        let renewal = try r.date()
        let recent = try r.date()
        let renewalPrice = try r.decimal()
        let currency = try r.string()
        let winBack = try r.list { (r: inout Reader) throws(DecodingError) in try r.string() }
        let token = try r.uuid()
        let signed = try r.date()
        return RenewalInfo(
          originalTransactionID: original, currentProductID: current, autoRenewProductID: autoRenew,
          willAutoRenew: will, expirationReason: reason, isInBillingRetry: retry, gracePeriodExpirationDate: grace,
          priceIncreaseStatus: price, offer: offer, renewalDate: renewal, recentSubscriptionStartDate: recent,
          renewalPrice: renewalPrice, currency: currency, eligibleWinBackOfferIDs: winBack, appAccountToken: token,
          signedDate: signed)
      }
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
      try key("customers")
      _ = try list { (r: inout Reader) throws(DecodingError) -> Void in try r.customer() }
      try key("notifications")
      if skippingNotifications {
        // The outbox is written last: check the document closes after it and go on from its
        // closing bracket, as if it had been read.
        try expect(UInt8(ascii: "["))
        var end = bytes.count
        while end > i, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[end - 1]) { end -= 1 }
        guard end - i >= 2, bytes[end - 1] == UInt8(ascii: "}"), bytes[end - 2] == UInt8(ascii: "]") else {
          throw fail("truncated notifications")
        }
        i = end - 1
      } else {
        state.notifications = try list { (r: inout Reader) throws(DecodingError) in try r.notification() }
      }
      try expect(UInt8(ascii: "}"))
      ws()
      guard i == bytes.count else { throw fail("data after the end") }
      state.customers = customers
      return state
    }
  }
}
