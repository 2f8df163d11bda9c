import Foundation
import StoreSim

/// The rows of a session's last encoding, kept by a front end that saves the same session
/// again and again (`SessionWork.Kept`: the control API, serve, the shell), so the next save
/// copies the rows of the records that did not change instead of writing them again. A record
/// is unchanged when it is the record at the same place last time, which a copy-on-write
/// record answers at once when it is the same storage (`CopyOnWrite`'s `==`), as every record
/// the change did not touch is. The bytes are exactly those of an encoding from scratch
/// (`StateCodecReuseTests`).
package final class EncodedRows: @unchecked Sendable {
  // Sendable: used only by the unit of work that holds the `Kept` it belongs to.
  /// The state last encoded, and its bytes.
  fileprivate var state: StoreState?
  fileprivate var bytes: [UInt8] = []
  /// Where each customer's transactions' rows are in `bytes`, and each notification's.
  fileprivate var transactionRows: [[Range<Int>]] = []
  fileprivate var notificationRows: [Range<Int>] = []
  /// How many rows the last encoding copied (tests).
  package fileprivate(set) var reused = 0
  /// The configuration last encoded in `base`, and its bytes: no command but a reload or
  /// `settings` changes it, so a save copies them instead of running `JSONEncoder` over the
  /// whole catalogue again (most of `base`).
  fileprivate var configuration: StoreConfiguration?
  fileprivate var configurationBytes: [UInt8] = []
  /// How many times the configuration was encoded (tests: once over saves that keep it).
  package fileprivate(set) var configurationEncodings = 0
  /// The rest of `base` last encoded (the stand-in catalogue, the counters at zero), and its
  /// bytes: a purchase moves only the counters, which are written into these bytes.
  fileprivate var rest: StoreState?
  fileprivate var restBytes: [UInt8] = []
  /// How many times the rest of `base` was encoded (tests).
  package fileprivate(set) var restEncodings = 0

  package init() {}

  /// `base` as `StateCodec.baseEncoder` writes it, with the configuration's bytes copied from
  /// the last save when it is the same configuration: `base` is encoded with a stand-in (an
  /// empty catalogue), whose bytes after the one `"configuration":` key are replaced by the
  /// configuration's. The counters a purchase moves (`nextTransactionID`,
  /// `nextWebOrderLineItemID`, `lastModificationOrder`) are encoded as 0, and their digits
  /// written in place of that 0, so the rest is encoded again only when something else in it
  /// changed. `JSONEncoder` writes a value the same alone or inside another (`sortedKeys`, no
  /// indentation) and an integer as its digits, so the bytes are an encoding from scratch's
  /// (`StateCodecReuseTests`); when a place is not found exactly once, `base` is encoded whole.
  fileprivate func encodeBase(_ base: StoreState) throws -> [UInt8] {
    let encoder = StateCodec.baseEncoder()
    if configuration != base.configuration {
      configurationBytes = Array(try encoder.encode(base.configuration))
      configuration = base.configuration
      configurationEncodings += 1
    }
    var rest = base
    rest.configuration = Self.standIn
    rest.nextTransactionID = 0
    rest.nextWebOrderLineItemID = 0
    if rest.lastModificationOrder != nil { rest.lastModificationOrder = 0 }
    if self.rest != rest {
      restBytes = Array(try encoder.encode(rest))
      self.rest = rest
      restEncodings += 1
    }
    let bytes = restBytes
    var pieces: [(place: Range<Int>, with: [UInt8])] = []
    guard !Self.standInBytes.isEmpty, let at = Self.place(of: Self.key + Self.standInBytes, in: bytes) else {
      return Array(try encoder.encode(base))
    }
    pieces.append(((at + Self.key.count)..<(at + Self.key.count + Self.standInBytes.count), configurationBytes))
    var counters: [([UInt8], UInt64)] = [
      (Self.transactionKey, base.nextTransactionID), (Self.webOrderKey, base.nextWebOrderLineItemID),
    ]
    if let order = base.lastModificationOrder { counters.append((Self.modificationKey, order)) }
    for (key, value) in counters {
      guard let at = Self.place(of: key, in: bytes), at + key.count + 1 < bytes.count,
        bytes[at + key.count] == UInt8(ascii: "0"),
        [UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[at + key.count + 1])
      else { return Array(try encoder.encode(base)) }
      pieces.append(((at + key.count)..<(at + key.count + 1), Array(String(value).utf8)))
    }
    pieces.sort { $0.place.lowerBound < $1.place.lowerBound }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + configurationBytes.count + 64)
    var from = 0
    for piece in pieces {
      out.append(contentsOf: bytes[from..<piece.place.lowerBound])
      out.append(contentsOf: piece.with)
      from = piece.place.upperBound
    }
    out.append(contentsOf: bytes[from...])
    return out
  }

  /// The configuration `base` is encoded with before the real one's bytes take its place.
  private static let standIn = StoreConfiguration(products: [])
  private static let key = Array("\"configuration\":".utf8)
  private static let standInBytes = (try? Array(StateCodec.baseEncoder().encode(standIn))) ?? []
  private static let transactionKey = Array("\"nextTransactionID\":".utf8)
  private static let webOrderKey = Array("\"nextWebOrderLineItemID\":".utf8)
  private static let modificationKey = Array("\"lastModificationOrder\":".utf8)

  /// Where `marker` (a key, which a string cannot hold unescaped, with what follows it) starts
  /// in `bytes`; nil unless it is there exactly once.
  private static func place(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
    guard !marker.isEmpty, bytes.count >= marker.count else { return nil }
    var found: Int?
    var i = 0
    while i <= bytes.count - marker.count {
      if bytes[i] == marker[0], bytes[i..<(i + marker.count)].elementsEqual(marker) {
        guard found == nil else { return nil }
        found = i
        i += marker.count
      } else {
        i += 1
      }
    }
    return found
  }
}

extension StateCodec.Writer {
  /// Writes a row with `write`, or copies it from `previous` when `same`; returns where it is.
  mutating func row(
    copying previous: Range<Int>?, from old: [UInt8], same: Bool, reused: inout Int,
    _ write: (inout StateCodec.Writer) -> Void
  ) -> Range<Int> {
    separate()
    needsSeparator = false
    let start = bytes.count
    if same, let previous {
      bytes.append(contentsOf: old[previous])
      reused += 1
    } else {
      write(&self)
    }
    needsSeparator = true
    return start..<bytes.count
  }
}

extension StateCodec {
  /// `encodeSplit`, copying the rows of records unchanged since the encoding `rows` kept, and
  /// keeping this one's in `rows` for the next; `newline` ends the bytes with a newline (a
  /// session file's state line).
  static func encodeSplit(
    _ state: StoreState, reusing rows: EncodedRows, newline: Bool = false
  ) throws -> (bytes: [UInt8], outboxStart: Int) {
    let old = rows.state
    let oldBytes = rows.bytes
    var reused = 0
    var base = state
    base.customers = []
    base.notifications = []
    base.deliveryLog = nil
    var w = Writer()
    w.bytes.reserveCapacity(oldBytes.count + 65_536)
    w.raw("{\"codec\":")
    w.string(name)
    w.raw(",\"base\":")
    w.bytes.append(contentsOf: try rows.encodeBase(base))
    if let log = state.deliveryLog {
      w.raw(",\"deliveries\":")
      w.deliveries(log)
    }
    // The notifications' rows may be copied only when every stored transaction they may name
    // is the one they named last time: all of last time's at their places, the new ones new.
    var storedAsBefore = old != nil
    var transactionRows: [[Range<Int>]] = []
    w.raw(",\"customers\":")
    w.array { w in
      for (ci, c) in state.customers.enumerated() {
        let before = old.flatMap { ci < $0.customers.count ? $0.customers[ci] : nil }
        if let before, before.id != c.id || before.transactions.count > c.transactions.count {
          storedAsBefore = false
        }
        var ranges: [Range<Int>] = []
        w.array { w in
          w.string(c.id.rawValue)
          w.string(c.appTransactionID)
          w.optString(c.familyID)
          w.strings(c.introductoryOfferUsedGroups.sorted())
          w.array { w in
            for (ti, t) in c.transactions.enumerated() {
              let previous = before.flatMap { ti < $0.transactions.count ? $0.transactions[ti] : nil }
              let same = previous == t
              if previous != nil, !same { storedAsBefore = false }
              if previous == nil, let old, t.id < old.nextTransactionID { storedAsBefore = false }
              let at = ci < rows.transactionRows.count && ti < rows.transactionRows[ci].count
              ranges.append(
                w.row(
                  copying: at ? rows.transactionRows[ci][ti] : nil, from: oldBytes, same: same, reused: &reused
                ) { w in w.record(t.fields) })
            }
          }
          w.array { w in
            for s in c.subscriptions { w.record(s.fields) }
          }
        }
        transactionRows.append(ranges)
      }
    }
    if let old, old.customers.count > state.customers.count { storedAsBefore = false }
    let outboxStart = w.bytes.count
    w.raw(",\"notifications\":")
    // The stored transactions a notification's row may name, gathered when a row is written.
    var stored: [TransactionID: Transaction]?
    var notificationRows: [Range<Int>] = []
    w.array { w in
      for (k, n) in state.notifications.enumerated() {
        let previous = old.flatMap { k < $0.notifications.count ? $0.notifications[k] : nil }
        let at = k < rows.notificationRows.count ? rows.notificationRows[k] : nil
        notificationRows.append(
          w.row(copying: at, from: oldBytes, same: storedAsBefore && previous == n, reused: &reused) { w in
            if stored == nil {
              var transactions: [TransactionID: Transaction] = [:]
              for c in state.customers { for t in c.transactions { transactions[t.id] = t } }
              stored = transactions
            }
            w.notification(n, stored: stored!)
          })
      }
    }
    w.raw("}")
    if newline { w.bytes.append(0x0A) }
    rows.state = state
    rows.bytes = w.bytes
    rows.transactionRows = transactionRows
    rows.notificationRows = notificationRows
    rows.reused = reused
    return (w.bytes, outboxStart)
  }
}
