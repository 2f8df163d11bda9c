import Foundation
import StoreSim

extension StateCodec {
  /// Writes JSON arrays of primitives: every value written inside `array` is separated from the
  /// one before it, so the field lists below read one field per call.
  struct Writer {
    var bytes: [UInt8] = []
    var decimals: [Decimal: String] = [:]
    /// Whether the next value follows another one in the same array.
    var needsSeparator = false
    /// Unset trailing fields of the current record row not written yet: a later set one writes
    /// them first (as `[0]` in a transaction, `null` in a trailing group), so each keeps its place.
    var skippedTrailing = 0
    /// Whether the current record row's trailing group is being written (`writes`).
    var groupOpen = false

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
      JSONString.write(s, escaping: .required, into: &bytes)
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
          for t in c.transactions { w.record(t.fields) }
        }
        w.array { w in
          for s in c.subscriptions { w.record(s.fields) }
        }
      }
    }

    /// `[type, subtype, sequence, signedDate, customer, transaction, renewalInfo, status(, reason)]`.
    /// A transaction still as stored is written as a reference to it.
    mutating func notification(_ n: ServerNotification, stored transactions: [TransactionID: Transaction]) {
      notification(n, stored: n.transaction.flatMap { transactions[$0.id] })
    }

    /// The row of `n`, whose transaction's id is stored as `current` (nil when it is not).
    mutating func notification(_ n: ServerNotification, stored current: Transaction?) {
      array { w in
        w.string(n.notificationType.rawValue)
        w.optString(n.subtype?.rawValue)
        w.int(n.sequence)
        w.date(n.signedDate)
        w.string(n.customer.rawValue)
        if let t = n.transaction {
          if let current, current.withMutableFields(of: t) == t {
            w.reference(t)
          } else {
            w.record(t.fields)
          }
        } else {
          w.null()
        }
        if let r = n.renewalInfo { w.record(r) } else { w.null() }
        w.optString(n.status?.rawValue)
        // Optional trailing fields (older files end before them); the original of an imported
        // notification is version 5's.
        let original = n.original
        if n.consumptionRequestReason != nil || n.massExtensionRequestIdentifier != nil || original != nil {
          w.optString(n.consumptionRequestReason?.rawValue)
        }
        if n.massExtensionRequestIdentifier != nil || original != nil { w.optString(n.massExtensionRequestIdentifier) }
        if let original { w.original(original) }
      }
    }

    /// `[notificationUUID, header, payload, signature, isCompact]` (`OriginalNotification`).
    mutating func original(_ o: OriginalNotification) {
      array { w in
        w.optString(o.notificationUUID)
        w.string(o.header)
        w.string(o.payload)
        w.string(o.signature)
        w.bool(o.isCompact)
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
  }
}
