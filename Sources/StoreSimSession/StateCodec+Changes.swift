import Foundation
import StoreSim

// Change lines (session file version 6): a front end that keeps a session loaded (the control
// API, serve, the shell, `manage`) saves a change by appending one line that says what changed
// since its last save, instead of writing the whole file again, so a purchase costs the same
// on a session of ten transactions and of ten thousand. Every other writer, and the keeper
// itself once the lines outgrow the state line, writes the whole file again without them.
//
//     {"checksum":"<16 hex digits>","change":{"counters":[nextTransactionID,nextWebOrderLineItemID,
//      lastModificationOrder],"base":{…}?,"deliveries":[from,[texts,rows]]|null?,
//      "customers":[[index,kept,name,appTransactionID,familyID,[groups],[transaction…],[subscription…]]…],
//      "notifications":[from,[notification…]]}}
//
// `checksum` is `Checksum64` of the bytes of `change`'s value. A customer's entry keeps the
// first `kept` of its transactions and replaces the rest (an index one past the last adds a
// customer); the notifications and the delivery log keep their first `from` rows. `base` is
// there when something in it but the counters changed. A last line without its newline is a
// save still being written (or one cut short before it was acknowledged) and is not read, when
// it begins as a change line does; anything else there is damage.

extension StateCodec {
  /// The bytes before a change line's payload, the checksum's hex digits between them.
  static let changePrefix = Array("{\"checksum\":\"".utf8)
  static let changeMiddle = Array("\",\"change\":".utf8)

  /// A change line (with its newline) that turns `old` into `new`; nil when a line cannot say
  /// it (a customer removed): then the whole file is written.
  static func changeLine(from old: StoreState, to new: StoreState) throws -> [UInt8]? {
    guard new.customers.count >= old.customers.count else { return nil }
    var w = Writer()
    w.raw("{\"counters\":")
    w.array { w in
      w.uint(new.nextTransactionID)
      w.uint(new.nextWebOrderLineItemID)
      w.optUInt(new.lastModificationOrder)
    }
    if baseWithoutCounters(old) != baseWithoutCounters(new) {
      var base = new
      base.customers = []
      base.notifications = []
      base.deliveryLog = nil
      w.raw(",\"base\":")
      w.bytes.append(contentsOf: try baseEncoder().encode(base))
    }
    if old.deliveryLog != new.deliveryLog {
      w.raw(",\"deliveries\":")
      if let log = new.deliveryLog {
        let from = commonPrefix(old.deliveryLog ?? [], log)
        w.array { w in
          w.int(from)
          w.deliveries(Array(log[from...]))
        }
      } else {
        w.null()
      }
    }
    // The transactions this line writes, which its notifications may name by reference.
    var written: [TransactionID: Transaction] = [:]
    w.raw(",\"customers\":")
    w.array { w in
      for (ci, c) in new.customers.enumerated() {
        var kept = 0
        if ci < old.customers.count {
          let before = old.customers[ci]
          if before == c { continue }
          kept = commonPrefix(before.transactions, c.transactions)
        }
        w.array { w in
          w.int(ci)
          w.int(kept)
          w.string(c.id.rawValue)
          w.string(c.appTransactionID)
          w.optString(c.familyID)
          w.strings(c.introductoryOfferUsedGroups.sorted())
          w.array { w in
            for t in c.transactions[kept...] {
              w.record(t.fields)
              written[t.id] = t
            }
          }
          w.array { w in
            for s in c.subscriptions { w.record(s.fields) }
          }
        }
      }
    }
    let from = commonPrefix(old.notifications, new.notifications)
    w.raw(",\"notifications\":")
    w.array { w in
      w.int(from)
      w.array { w in
        for n in new.notifications[from...] { w.notification(n, stored: written) }
      }
    }
    w.raw("}")
    let checksum = w.bytes.withUnsafeBytes { Checksum64.hex(Checksum64.hash($0)) }
    var line = changePrefix
    line.reserveCapacity(changePrefix.count + 16 + changeMiddle.count + w.bytes.count + 2)
    line.append(contentsOf: checksum.utf8)
    line.append(contentsOf: changeMiddle)
    line.append(contentsOf: w.bytes)
    line.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
    return line
  }

  /// The state's `base` without the counters every purchase moves, to tell whether a change
  /// line must carry `base`.
  private static func baseWithoutCounters(_ state: StoreState) -> StoreState {
    var base = state
    base.customers = []
    base.notifications = []
    base.deliveryLog = nil
    base.nextTransactionID = 0
    base.nextWebOrderLineItemID = 0
    if base.lastModificationOrder != nil { base.lastModificationOrder = 0 }
    return base
  }

  /// How many leading elements two lists share. Elements whose bytes are the same are the same
  /// value (a record in a copy-on-write box: the same box), so the bytes are compared first,
  /// without copying (retaining) each element: a session's lists are compared on every save,
  /// and they hold thousands.
  private static func commonPrefix<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
    let n = min(a.count, b.count)
    let stride = MemoryLayout<T>.stride
    return a.withUnsafeBufferPointer { pa in
      b.withUnsafeBufferPointer { pb in
        guard n > 0, let ra = UnsafeRawPointer(pa.baseAddress), let rb = UnsafeRawPointer(pb.baseAddress) else {
          return 0
        }
        var i = 0
        while i < n {
          if memcmp(ra + i * stride, rb + i * stride, stride) != 0, pa[i] != pb[i] { break }
          i += 1
        }
        return i
      }
    }
  }

  /// Applies the change lines in `bytes` (what follows the state line) to `state`, in order.
  /// A last line without its newline is not read. `skippingNotifications` leaves the
  /// notifications unread, as the state line's were.
  static func applyChanges(
    _ bytes: UnsafeBufferPointer<UInt8>, to state: inout StoreState, skippingNotifications: Bool
  ) throws(DecodingError) {
    var byID: [TransactionID: (Int32, Int32)]?
    var start = 0
    while start < bytes.count {
      guard let end = bytes[start...].firstIndex(of: 0x0A) else {
        // A save being written, or cut short before it was acknowledged: not read. Anything
        // else after the last line is damage.
        let tail = bytes[start...]
        guard tail.starts(with: changePrefix) || changePrefix.starts(with: tail) else {
          throw DecodingError(offset: start, message: "data after the last change line")
        }
        return
      }
      let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
      let head = changePrefix.count + 16 + changeMiddle.count
      guard line.count > head + 1, line.starts(with: changePrefix),
        line[(changePrefix.count + 16)..<head].elementsEqual(changeMiddle), line[line.count - 1] == UInt8(ascii: "}")
      else { throw DecodingError(offset: start, message: "bad change line") }
      let payload = UnsafeBufferPointer(rebasing: line[head..<(line.count - 1)])
      let checksum = String(decoding: line[changePrefix.count..<(changePrefix.count + 16)], as: UTF8.self)
      guard Checksum64.hex(Checksum64.hash(UnsafeRawBufferPointer(payload))) == checksum else {
        throw DecodingError(offset: start, message: "change line checksum mismatch")
      }
      if !skippingNotifications, byID == nil {
        var index: [TransactionID: (Int32, Int32)] = [:]
        for (c, customer) in state.customers.enumerated() {
          for (n, t) in customer.transactions.enumerated() { index[t.id] = (Int32(c), Int32(n)) }
        }
        byID = index
      }
      var r = Reader(bytes: payload)
      r.skippingNotifications = skippingNotifications
      r.customers = state.customers
      r.byID = byID ?? [:]
      do {
        try r.change(&state)
      } catch {
        throw DecodingError(offset: start + head + error.offset, message: error.message)
      }
      byID = skippingNotifications ? nil : r.byID
      start = end + 1
    }
  }
}

extension StateCodec.Reader {
  /// A change line's payload, applied to `state`.
  mutating func change(_ state: inout StoreState) throws(StateCodec.DecodingError) {
    try expect(UInt8(ascii: "{"))
    try key("counters")
    let (transactionID, webOrder, order) = try row { (r: inout Self) throws(StateCodec.DecodingError) in
      (try r.uint(), try r.uint(), try r.optUInt())
    }
    if try optionalKey("base") {
      let at = i
      var base = try base()
      // As the whole file's reader: the delivery log is rows, and the counters are the line's.
      guard base.deliveryLog == nil, base.nextTransactionID == transactionID,
        base.nextWebOrderLineItemID == webOrder, base.lastModificationOrder == order
      else { throw fail("a base that disagrees with the line", at: at) }
      base.customers = state.customers
      base.notifications = state.notifications
      base.deliveryLog = state.deliveryLog
      state = base
    }
    state.nextTransactionID = transactionID
    state.nextWebOrderLineItemID = webOrder
    state.lastModificationOrder = order
    if try optionalKey("deliveries") {
      if try null() {
        state.deliveryLog = nil
      } else {
        let (from, rows) = try row { (r: inout Self) throws(StateCodec.DecodingError) in
          (try r.smallInt(), try r.deliveries())
        }
        let log = state.deliveryLog ?? []
        guard from <= log.count else { throw fail("delivery rows from past the end") }
        state.deliveryLog = Array(log[..<from]) + rows
      }
    }
    try key("customers")
    _ = try list { (r: inout Self) throws(StateCodec.DecodingError) in try r.changedCustomer() }
    state.customers = customers
    try key("notifications")
    if skippingNotifications {
      _ = try value(depth: 0)
    } else {
      let (from, rows) = try row { (r: inout Self) throws(StateCodec.DecodingError) in
        (try r.smallInt(), try r.list { (r: inout Self) throws(StateCodec.DecodingError) in try r.notification() })
      }
      guard from <= state.notifications.count else { throw fail("notifications from past the end") }
      state.notifications = Array(state.notifications[..<from]) + rows
    }
    try expect(UInt8(ascii: "}"))
    ws()
    guard scanner.isAtEnd else { throw fail("data after the end") }
  }

  /// `[index, kept, name, appTransactionID, familyID, [groups], [transaction…], [subscription…]]`
  /// into `customers` (and `byID`, when the notifications are read).
  mutating func changedCustomer() throws(StateCodec.DecodingError) {
    let at = i
    let (index, customer, kept) = try row { (r: inout Self) throws(StateCodec.DecodingError) in
      let index = try r.smallInt()
      let kept = try r.smallInt()
      guard index <= r.customers.count else { throw r.fail("customer \(index) past the end", at: at) }
      let before = index < r.customers.count ? r.customers[index].transactions : []
      guard kept <= before.count, index < r.customers.count || kept == 0 else {
        throw r.fail("kept transactions past the end", at: at)
      }
      let id = CustomerID(try r.string())
      let app = try r.string()
      let family = try r.optString()
      let groups = try r.list { (r: inout Self) throws(StateCodec.DecodingError) in try r.string() }
      let added = try r.list { (r: inout Self) throws(StateCodec.DecodingError) in try r.transaction() }
      let subscriptions = try r.list { (r: inout Self) throws(StateCodec.DecodingError) in try r.subscription() }
      if !r.skippingNotifications {
        for t in before[kept...] where r.byID[t.id]?.0 == Int32(index) { r.byID[t.id] = nil }
      }
      let customer = Customer(
        id: id, transactions: Array(before[..<kept]) + added, subscriptions: subscriptions,
        introductoryOfferUsedGroups: Set(groups), familyID: family, appTransactionID: app)
      return (index, customer, kept)
    }
    if !skippingNotifications {
      for n in kept..<customer.transactions.count { byID[customer.transactions[n].id] = (Int32(index), Int32(n)) }
    }
    if index == customers.count { customers.append(customer) } else { customers[index] = customer }
  }

  /// Whether the next member of the object is `name` (then its `:` is read); anything else is
  /// left to read.
  mutating func optionalKey(_ name: String) throws(StateCodec.DecodingError) -> Bool {
    let (start, separated) = (scanner.index, needsSeparator)
    guard (try? separator()) != nil, (try? text()) == name else {
      (scanner.index, needsSeparator) = (start, separated)
      return false
    }
    try expect(UInt8(ascii: ":"))
    needsSeparator = false
    return true
  }
}
