import Foundation

/// A compact, versioned encoding of `StoreState` for session files (format `compact-1`).
///
/// The bulk of a session (transactions, subscriptions, notifications) is written as JSON
/// arrays of primitives in a fixed field order and read back by a streaming reader straight
/// into the model types; everything else is ordinary `Codable` JSON under `base`. It is still
/// JSON text, about a third of the size of the `Codable` form and many times faster to read.
///
///     {"codec":"compact-1","base":{...StoreState without customers and notifications...},
///      "customers":[[name,appTransactionID,familyID,[groups],[transaction...],[subscription...]],...],
///      "notifications":[[type,subtype,sequence,signedDate,customer,transaction,renewalInfo,status],...]}
public enum StateCodec {
  /// The codec name written in the document.
  public static let name = "compact-1"

  /// Why bytes could not be decoded.
  public struct DecodingError: Error, Sendable, CustomStringConvertible {
    /// Byte offset.
    public var offset: Int
    /// What was expected.
    public var message: String
    /// `message at byte N`.
    public var description: String { "\(message) at byte \(offset)" }
  }

  // MARK: Encoding

  /// Encodes a state.
  public static func encode(_ state: StoreState) throws -> [UInt8] {
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
    w.raw(",\"customers\":[")
    for (i, c) in state.customers.enumerated() {
      if i > 0 { w.comma() }
      w.raw("[")
      w.string(c.name); w.comma(); w.string(c.appTransactionID); w.comma(); w.optString(c.familyID); w.comma()
      w.raw("[")
      for (j, g) in c.introductoryOfferUsedGroups.sorted().enumerated() {
        if j > 0 { w.comma() }
        w.string(g)
      }
      w.raw("],[")
      for (j, t) in c.transactions.enumerated() {
        if j > 0 { w.comma() }
        w.transaction(t)
      }
      w.raw("],[")
      for (j, s) in c.subscriptions.enumerated() {
        if j > 0 { w.comma() }
        w.subscription(s)
      }
      w.raw("]]")
    }
    var transactions: [TransactionID: Transaction] = [:]
    for c in state.customers { for t in c.transactions { transactions[t.id] = t } }
    w.raw("],\"notifications\":[")
    for (i, n) in state.notifications.enumerated() {
      if i > 0 { w.comma() }
      w.raw("[")
      w.string(n.notificationType); w.comma(); w.optString(n.subtype); w.comma(); w.int(Int64(n.sequence)); w.comma()
      w.date(n.signedDate); w.comma(); w.string(n.customer); w.comma()
      if let t = n.transaction {
        if let current = transactions[t.id], current.withMutableFields(of: t) == t {
          w.reference(t)
        } else {
          w.transaction(t)
        }
      } else {
        w.raw("null")
      }
      w.comma()
      if let r = n.renewalInfo { w.renewalInfo(r) } else { w.raw("null") }
      w.comma(); w.optString(n.status?.rawValue)
      if let reason = n.consumptionRequestReason { w.comma(); w.string(reason.rawValue) }  // optional trailing field
      w.raw("]")
    }
    w.raw("]}")
    return w.bytes
  }

  struct Writer {
    var bytes: [UInt8] = []
    var decimals: [Decimal: String] = [:]

    mutating func raw(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }
    mutating func comma() { bytes.append(UInt8(ascii: ",")) }
    mutating func int(_ v: Int64) {
      if v < 0 { bytes.append(UInt8(ascii: "-")) }
      uint(v.magnitude)
    }

    mutating func uint(_ value: UInt64) {
      var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, on the stack
      var v = value
      var n = 0
      withUnsafeMutableBytes(of: &digits) { scratch in
        repeat {
          scratch[23 - n] = UInt8(48 + v % 10)
          v /= 10
          n += 1
        } while v > 0
        bytes.append(contentsOf: UnsafeMutableRawBufferPointer(rebasing: scratch[(24 - n)...]))
      }
    }
    mutating func bool(_ v: Bool) { if v { raw("true") } else { raw("false") } }
    mutating func date(_ d: Date) { int(Int64((d.timeIntervalSince1970 * 1000).rounded())) }
    mutating func optDate(_ d: Date?) { if let d { date(d) } else { raw("null") } }
    mutating func optString(_ s: String?) { if let s { string(s) } else { raw("null") } }
    mutating func decimal(_ d: Decimal) {
      if let text = decimals[d] { return string(text) }
      let text = NSDecimalNumber(decimal: d).stringValue
      decimals[d] = text
      string(text)
    }

    mutating func string(_ s: String) {
      bytes.append(UInt8(ascii: "\""))
      for b in s.utf8 {
        switch b {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0..<0x20: bytes.append(contentsOf: String(format: "\\u%04x", b).utf8)
        default: bytes.append(b)
        }
      }
      bytes.append(UInt8(ascii: "\""))
    }

    mutating func period(_ p: SubscriptionPeriod) { string(p.iso8601) }

    mutating func transactionOffer(_ o: TransactionOffer?) {
      guard let o else { return raw("null") }
      raw("["); int(Int64(o.type.rawValue)); comma(); optString(o.id); comma(); string(o.paymentMode.rawValue); comma(); period(o.period); raw("]")
    }

    mutating func offer(_ o: SubscriptionOffer?) {
      guard let o else { return raw("null") }
      raw("["); int(Int64(o.type.rawValue)); comma(); optString(o.id); comma(); string(o.paymentMode.rawValue); comma()
      period(o.period); comma(); int(Int64(o.periodCount)); comma(); decimal(o.price); comma(); raw("[")
      for (i, e) in o.eligibility.enumerated() {
        if i > 0 { comma() }
        string(e)
      }
      raw("]"); comma(); bool(o.isEligible); raw("]")
    }

    mutating func transaction(_ t: Transaction) {
      raw("["); uint(t.id); comma(); uint(t.originalID); comma()
      if let w = t.webOrderLineItemID { uint(w) } else { raw("null") }
      comma(); string(t.productID); comma(); string(t.productType.rawValue); comma(); optString(t.subscriptionGroupID); comma()
      date(t.purchaseDate); comma(); date(t.originalPurchaseDate); comma(); optDate(t.expirationDate); comma()
      int(Int64(t.purchasedQuantity)); comma(); optString(t.appAccountToken?.uuidString); comma()
      string(t.ownershipType.rawValue); comma(); optDate(t.revocationDate); comma()
      if let r = t.revocationReason { int(Int64(r.rawValue)) } else { raw("null") }
      comma(); bool(t.isFamilyRevocation); comma(); bool(t.isUpgraded); comma(); transactionOffer(t.offer); comma()
      string(t.reason.rawValue); comma(); decimal(t.price); comma(); string(t.currency); comma(); string(t.storefront); comma()
      string(t.storefrontID); comma(); bool(t.isFinished); comma(); optString(t.sharedFrom); comma()
      if let s = t.sharedTransactionID { uint(s) } else { raw("null") }
      raw("]")
    }

    /// A transaction as it was when a notification carried it: a reference to the stored
    /// transaction plus the fields that may have changed since.
    mutating func reference(_ t: Transaction) {
      raw("[\"ref\","); uint(t.id); comma(); bool(t.isFinished); comma(); bool(t.isUpgraded); comma()
      optDate(t.revocationDate); comma()
      if let r = t.revocationReason { int(Int64(r.rawValue)) } else { raw("null") }
      comma(); bool(t.isFamilyRevocation); comma(); optDate(t.expirationDate); raw("]")
    }

    mutating func subscription(_ s: SubscriptionState) {
      raw("["); string(s.groupID); comma(); uint(s.originalID); comma(); string(s.currentProductID); comma()
      string(s.autoRenewProductID); comma(); bool(s.willAutoRenew); comma(); date(s.expirationDate); comma()
      uint(s.latestTransactionID); comma()
      switch s.billing {
      case .healthy: raw("[0,null,null]")
      case .gracePeriod(let g, let r): raw("[1,"); date(g); comma(); date(r); raw("]")
      case .billingRetry(let r): raw("[2,null,"); date(r); raw("]")
      }
      comma()
      if let e = s.expirationReason { int(Int64(e.rawValue)) } else { raw("null") }
      comma(); bool(s.isExpired); comma(); bool(s.isRevoked); comma(); string(s.priceIncreaseStatus.rawValue); comma()
      offer(s.pendingOffer); comma(); offer(s.runningOffer); comma(); int(Int64(s.runningOfferPeriodsLeft)); comma()
      date(s.recentSubscriptionStartDate); comma(); int(Int64(s.renewalCount)); comma(); optString(s.appAccountToken?.uuidString)
      // Optional trailing fields (older files end before them).
      if s.anniversaryDate != nil || s.increasedPrice != nil {
        comma(); optDate(s.anniversaryDate); comma()
        if let p = s.increasedPrice { decimal(p) } else { raw("null") }
      }
      raw("]")
    }

    mutating func renewalInfo(_ r: RenewalInfo) {
      raw("["); uint(r.originalTransactionID); comma(); string(r.currentProductID); comma(); string(r.autoRenewProductID); comma()
      bool(r.willAutoRenew); comma()
      if let e = r.expirationReason { int(Int64(e.rawValue)) } else { raw("null") }
      comma(); bool(r.isInBillingRetry); comma(); optDate(r.gracePeriodExpirationDate); comma()
      string(r.priceIncreaseStatus.rawValue); comma(); transactionOffer(r.offer); comma(); date(r.renewalDate); comma()
      date(r.recentSubscriptionStartDate); comma(); decimal(r.renewalPrice); comma(); string(r.currency); comma(); raw("[")
      for (i, id) in r.eligibleWinBackOfferIDs.enumerated() {
        if i > 0 { comma() }
        string(id)
      }
      raw("]"); comma(); optString(r.appAccountToken?.uuidString); comma(); date(r.signedDate); raw("]")
    }
  }

  // MARK: Decoding

  /// Decodes a state written by `encode`.
  public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> StoreState {
    try bytes.withUnsafeBufferPointer { (buffer) throws(DecodingError) -> StoreState in try decode(buffer) }
  }

  /// Decodes a state from memory without copying it.
  ///
  /// With `skippingNotifications`, the outbox (the last and largest part of a session) is not
  /// read: the state has no notifications. That is for commands that only read transactions or
  /// subscriptions; such a state must never be saved. The document must still end where a whole
  /// one does.
  public static func decode(_ buffer: UnsafeBufferPointer<UInt8>, skippingNotifications: Bool = false) throws(DecodingError) -> StoreState {
    var r = Reader(bytes: buffer)
    r.skippingNotifications = skippingNotifications
    return try r.document()
  }

  struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where each transaction was decoded (customer, position), for notification references.
    var byID: [TransactionID: (Int32, Int32)] = [:]
    var customers: [Customer] = []
    var i = 0
    var decimals: [String: Decimal] = [:]
    var skippingNotifications = false

    func fail(_ message: String) -> DecodingError { DecodingError(offset: i, message: message) }

    mutating func ws() {
      while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ c: UInt8) throws(DecodingError) {
      ws()
      guard i < bytes.count, bytes[i] == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
      i += 1
    }

    /// Consumes `,` if present; returns whether it was there.
    mutating func comma() -> Bool {
      ws()
      if i < bytes.count, bytes[i] == UInt8(ascii: ",") { i += 1; return true }
      return false
    }

    mutating func isNull() -> Bool {
      ws()
      if bytes.count - i >= 4, bytes[i] == UInt8(ascii: "n"), bytes[i + 1] == UInt8(ascii: "u"), bytes[i + 2] == UInt8(ascii: "l"), bytes[i + 3] == UInt8(ascii: "l") {
        i += 4
        return true
      }
      return false
    }

    mutating func string() throws(DecodingError) -> String {
      try expect(UInt8(ascii: "\""))
      let start = i
      var plain = true
      while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
        if bytes[i] == UInt8(ascii: "\\") { plain = false; i += 1 }
        i += 1
      }
      guard i < bytes.count else { throw fail("unterminated string") }
      defer { i += 1 }
      if plain {
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
      }
      // Rare: escapes; let the strict parser resolve them.
      let quoted = [UInt8(ascii: "\"")] + Array(bytes[start..<i]) + [UInt8(ascii: "\"")]
      guard let node = try? JSONParser.parse(quoted), case .string(let s) = node.value else { throw fail("bad string escape") }
      return s
    }

    mutating func optString() throws(DecodingError) -> String? { isNull() ? nil : try string() }

    mutating func int() throws(DecodingError) -> Int64 {
      ws()
      var negative = false
      if i < bytes.count, bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
      var v: Int64 = 0
      let start = i
      while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(Int64(bytes[i] - 0x30))
        guard !o1, !o2 else { throw fail("integer out of range") }
        v = a
        i += 1
      }
      guard i > start else { throw fail("expected an integer") }
      return negative ? -v : v
    }

    mutating func uint() throws(DecodingError) -> UInt64 {
      ws()
      var v: UInt64 = 0
      let start = i
      while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
        guard !o1, !o2 else { throw fail("integer out of range") }
        v = a
        i += 1
      }
      guard i > start else { throw fail("expected an unsigned integer") }
      return v
    }

    mutating func optUInt() throws(DecodingError) -> UInt64? { isNull() ? nil : try uint() }
    mutating func smallInt() throws(DecodingError) -> Int {
      let v = try int()
      guard let n = Int(exactly: v) else { throw fail("integer out of range") }
      return n
    }
    mutating func optSmallInt() throws(DecodingError) -> Int? { isNull() ? nil : try smallInt() }

    mutating func bool() throws(DecodingError) -> Bool {
      ws()
      if bytes.count - i >= 4, bytes[i] == UInt8(ascii: "t") { i += 4; return true }
      if bytes.count - i >= 5, bytes[i] == UInt8(ascii: "f") { i += 5; return false }
      throw fail("expected a boolean")
    }

    mutating func date() throws(DecodingError) -> Date { Date(timeIntervalSince1970: Double(try int()) / 1000) }
    mutating func optDate() throws(DecodingError) -> Date? { isNull() ? nil : try date() }

    mutating func decimal() throws(DecodingError) -> Decimal {
      let s = try string()
      if let d = decimals[s] { return d }
      guard let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw fail("bad decimal '\(s)'") }
      decimals[s] = d
      return d
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

    mutating func rawInt<T: RawRepresentable>(_: T.Type) throws(DecodingError) -> T where T.RawValue == Int {
      let n = try smallInt()
      guard let v = T(rawValue: n) else { throw fail("unknown value \(n)") }
      return v
    }

    mutating func period() throws(DecodingError) -> SubscriptionPeriod {
      let s = try string()
      guard let p = SubscriptionPeriod(iso8601: s) else { throw fail("bad period '\(s)'") }
      return p
    }

    /// Reads `[item, item, ...]`.
    mutating func list<T>(_ item: (inout Reader) throws(DecodingError) -> T) throws(DecodingError) -> [T] {
      try expect(UInt8(ascii: "["))
      var out: [T] = []
      ws()
      if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return out }
      repeat { out.append(try item(&self)) } while comma()
      try expect(UInt8(ascii: "]"))
      return out
    }

    /// The bytes of the next JSON value (an object or array), for Codable decoding.
    mutating func rawValue() throws(DecodingError) -> Slice<UnsafeBufferPointer<UInt8>> {
      ws()
      let start = i
      var depth = 0
      var inString = false
      while i < bytes.count {
        let b = bytes[i]
        i += 1
        if inString {
          if b == UInt8(ascii: "\\") { i += 1 } else if b == UInt8(ascii: "\"") { inString = false }
          continue
        }
        switch b {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return bytes[start..<i] }
        default: break
        }
      }
      throw fail("unterminated value")
    }

    mutating func transactionOffer() throws(DecodingError) -> TransactionOffer? {
      if isNull() { return nil }
      try expect(UInt8(ascii: "["))
      let type = try rawInt(OfferType.self); _ = comma()
      let id = try optString(); _ = comma()
      let mode = try raw(PaymentMode.self); _ = comma()
      let period = try period()
      try expect(UInt8(ascii: "]"))
      return TransactionOffer(type: type, id: id, paymentMode: mode, period: period)
    }

    mutating func offer() throws(DecodingError) -> SubscriptionOffer? {
      if isNull() { return nil }
      try expect(UInt8(ascii: "["))
      let type = try rawInt(OfferType.self); _ = comma()
      let id = try optString(); _ = comma()
      let mode = try raw(PaymentMode.self); _ = comma()
      let period = try period(); _ = comma()
      let count = try smallInt(); _ = comma()
      let price = try decimal(); _ = comma()
      let eligibility = try list { (r: inout Reader) throws(DecodingError) in try r.string() }; _ = comma()
      let eligible = try bool()
      try expect(UInt8(ascii: "]"))
      return SubscriptionOffer(type: type, id: id, paymentMode: mode, period: period, periodCount: count, price: price, eligibility: eligibility, isEligible: eligible)
    }

    mutating func transaction() throws(DecodingError) -> Transaction {
      try expect(UInt8(ascii: "["))
      let id = try uint(); _ = comma()
      let original = try uint(); _ = comma()
      let web = try optUInt(); _ = comma()
      let product = try string(); _ = comma()
      let type = try raw(ProductType.self); _ = comma()
      let group = try optString(); _ = comma()
      let purchase = try date(); _ = comma()
      let originalPurchase = try date(); _ = comma()
      let expiration = try optDate(); _ = comma()
      let quantity = try smallInt(); _ = comma()
      let token = try uuid(); _ = comma()
      let ownership = try raw(OwnershipType.self); _ = comma()
      let revocation = try optDate(); _ = comma()
      let reasonCode = try optSmallInt(); _ = comma()
      let familyRevoke = try bool(); _ = comma()
      let upgraded = try bool(); _ = comma()
      let offer = try transactionOffer(); _ = comma()
      let reason = try raw(TransactionReason.self); _ = comma()
      let price = try decimal(); _ = comma()
      let currency = try string(); _ = comma()
      let storefront = try string(); _ = comma()
      let storefrontID = try string(); _ = comma()
      let finished = try bool(); _ = comma()
      let sharedFrom = try optString(); _ = comma()
      let sharedID = try optUInt()
      try expect(UInt8(ascii: "]"))
      return Transaction(
        id: id, originalID: original, webOrderLineItemID: web, productID: product, productType: type,
        subscriptionGroupID: group, purchaseDate: purchase, originalPurchaseDate: originalPurchase,
        expirationDate: expiration, purchasedQuantity: quantity, appAccountToken: token, ownershipType: ownership,
        revocationDate: revocation, revocationReason: reasonCode.flatMap(RevocationReason.init(rawValue:)),
        isFamilyRevocation: familyRevoke, isUpgraded: upgraded, offer: offer, reason: reason, price: price,
        currency: currency, storefront: storefront, storefrontID: storefrontID, isFinished: finished,
        sharedFrom: sharedFrom, sharedTransactionID: sharedID)
    }

    /// A full transaction row, or a reference row written by `Writer.reference`.
    mutating func notificationTransaction() throws(DecodingError) -> Transaction {
      ws()
      guard bytes.count - i > 2, bytes[i] == UInt8(ascii: "["), bytes[i + 1] == UInt8(ascii: "\"") else { return try transaction() }
      try expect(UInt8(ascii: "["))
      guard try string() == "ref" else { throw fail("bad transaction reference") }
      _ = comma()
      let id = try uint(); _ = comma()
      guard let (c, n) = byID[id] else { throw fail("reference to unknown transaction \(id)") }
      var t = customers[Int(c)].transactions[Int(n)]
      t.isFinished = try bool(); _ = comma()
      t.isUpgraded = try bool(); _ = comma()
      t.revocationDate = try optDate(); _ = comma()
      t.revocationReason = try optSmallInt().flatMap(RevocationReason.init(rawValue:)); _ = comma()
      t.isFamilyRevocation = try bool(); _ = comma()
      t.expirationDate = try optDate()
      try expect(UInt8(ascii: "]"))
      return t
    }

    mutating func subscription() throws(DecodingError) -> SubscriptionState {
      try expect(UInt8(ascii: "["))
      let group = try string(); _ = comma()
      let original = try uint(); _ = comma()
      let current = try string(); _ = comma()
      let autoRenew = try string(); _ = comma()
      let will = try bool(); _ = comma()
      let expiration = try date(); _ = comma()
      let latest = try uint(); _ = comma()
      try expect(UInt8(ascii: "["))
      let kind = try smallInt(); _ = comma()
      let d1 = try optDate(); _ = comma()
      let d2 = try optDate()
      try expect(UInt8(ascii: "]"))
      let billing: BillingState
      switch (kind, d1, d2) {
      case (0, _, _): billing = .healthy
      case (1, let g?, let r?): billing = .gracePeriod(gracePeriodExpirationDate: g, retryEndDate: r)
      case (2, _, let r?): billing = .billingRetry(retryEndDate: r)
      default: throw fail("bad billing state")
      }
      _ = comma()
      let reason = try optSmallInt().flatMap(ExpirationReason.init(rawValue:)); _ = comma()
      let expired = try bool(); _ = comma()
      let revoked = try bool(); _ = comma()
      let price = try raw(PriceIncreaseStatus.self); _ = comma()
      let pending = try offer(); _ = comma()
      let running = try offer(); _ = comma()
      let left = try smallInt(); _ = comma()
      let recent = try date(); _ = comma()
      let renewals = try smallInt(); _ = comma()
      let token = try uuid()
      var anniversary: Date?
      var increased: Decimal?
      if comma() {
        anniversary = try optDate(); _ = comma()
        increased = isNull() ? nil : try decimal()
      }
      try expect(UInt8(ascii: "]"))
      return SubscriptionState(
        groupID: group, originalID: original, currentProductID: current, autoRenewProductID: autoRenew,
        willAutoRenew: will, expirationDate: expiration, latestTransactionID: latest, billing: billing,
        expirationReason: reason, isExpired: expired, isRevoked: revoked, priceIncreaseStatus: price,
        pendingOffer: pending, runningOffer: running, runningOfferPeriodsLeft: left,
        recentSubscriptionStartDate: recent, renewalCount: renewals, appAccountToken: token,
        anniversaryDate: anniversary, increasedPrice: increased)
    }

    mutating func renewalInfo() throws(DecodingError) -> RenewalInfo? {
      if isNull() { return nil }
      try expect(UInt8(ascii: "["))
      let original = try uint(); _ = comma()
      let current = try string(); _ = comma()
      let autoRenew = try string(); _ = comma()
      let will = try bool(); _ = comma()
      let reason = try optSmallInt().flatMap(ExpirationReason.init(rawValue:)); _ = comma()
      let retry = try bool(); _ = comma()
      let grace = try optDate(); _ = comma()
      let price = try raw(PriceIncreaseStatus.self); _ = comma()
      let offer = try transactionOffer(); _ = comma()
      let renewal = try date(); _ = comma()
      let recent = try date(); _ = comma()
      let renewalPrice = try decimal(); _ = comma()
      let currency = try string(); _ = comma()
      let winBack = try list { (r: inout Reader) throws(DecodingError) in try r.string() }; _ = comma()
      let token = try uuid(); _ = comma()
      let signed = try date()
      try expect(UInt8(ascii: "]"))
      return RenewalInfo(
        originalTransactionID: original, currentProductID: current, autoRenewProductID: autoRenew, willAutoRenew: will,
        expirationReason: reason, isInBillingRetry: retry, gracePeriodExpirationDate: grace, priceIncreaseStatus: price,
        offer: offer, renewalDate: renewal, recentSubscriptionStartDate: recent, renewalPrice: renewalPrice,
        currency: currency, eligibleWinBackOfferIDs: winBack, appAccountToken: token, signedDate: signed)
    }

    mutating func document() throws(DecodingError) -> StoreState {
      try expect(UInt8(ascii: "{"))
      var base: StoreState?
      var notifications: [ServerNotification] = []
      var codec: String?
      repeat {
        let key = try string()
        try expect(UInt8(ascii: ":"))
        switch key {
        case "codec": codec = try string()
        case "base":
          let slice = try rawValue()
          let decoder = JSONDecoder()
          decoder.dateDecodingStrategy = .millisecondsSince1970
          do { base = try decoder.decode(StoreState.self, from: Data(slice)) } catch { throw fail("bad base state") }
        case "customers":
          _ = try list { (r: inout Reader) throws(DecodingError) -> Void in
            try r.expect(UInt8(ascii: "["))
            let name = try r.string(); _ = r.comma()
            let app = try r.string(); _ = r.comma()
            let family = try r.optString(); _ = r.comma()
            let groups = try r.list { (r: inout Reader) throws(DecodingError) in try r.string() }; _ = r.comma()
            let transactions = try r.list { (r: inout Reader) throws(DecodingError) in try r.transaction() }; _ = r.comma()
            let subscriptions = try r.list { (r: inout Reader) throws(DecodingError) in try r.subscription() }
            try r.expect(UInt8(ascii: "]"))
            let c = Int32(r.customers.count)
            if !r.skippingNotifications {
              for (n, t) in transactions.enumerated() { r.byID[t.id] = (c, Int32(n)) }
            }
            r.customers.append(Customer(name: name, transactions: transactions, subscriptions: subscriptions, introductoryOfferUsedGroups: Set(groups), familyID: family, appTransactionID: app))
          }
        case "notifications" where skippingNotifications:
          // The outbox is written last: check the document closes after it and go on from its
          // closing bracket, as if it had been read.
          try expect(UInt8(ascii: "["))
          var end = bytes.count
          while end > i, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[end - 1]) { end -= 1 }
          guard end - i >= 2, bytes[end - 1] == UInt8(ascii: "}"), bytes[end - 2] == UInt8(ascii: "]") else {
            throw fail("truncated notifications")
          }
          i = end - 1
        case "notifications":
          notifications = try list { (r: inout Reader) throws(DecodingError) -> ServerNotification in
            try r.expect(UInt8(ascii: "["))
            let type = try r.string(); _ = r.comma()
            let subtype = try r.optString(); _ = r.comma()
            let sequence = try r.smallInt(); _ = r.comma()
            let signed = try r.date(); _ = r.comma()
            let customer = try r.string(); _ = r.comma()
            let transaction = r.isNull() ? nil : try r.notificationTransaction(); _ = r.comma()
            let info = try r.renewalInfo(); _ = r.comma()
            let status = try r.optString().flatMap(RenewalState.init(rawValue:))
            let reason = r.comma() ? try r.optString().flatMap(ConsumptionRequestReason.init(rawValue:)) : nil
            try r.expect(UInt8(ascii: "]"))
            return ServerNotification(notificationType: type, subtype: subtype, sequence: sequence, signedDate: signed, customer: customer, transaction: transaction, renewalInfo: info, status: status, consumptionRequestReason: reason)
          }
        default: throw fail("unknown key '\(key)'")
        }
      } while comma()
      try expect(UInt8(ascii: "}"))
      ws()
      guard i == bytes.count else { throw fail("data after the end") }
      guard codec == StateCodec.name else { throw fail("unknown codec '\(codec ?? "none")'") }
      guard var state = base else { throw fail("missing base state") }
      state.customers = self.customers
      state.notifications = notifications
      return state
    }
  }
}
