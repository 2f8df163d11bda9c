import Foundation
import StoreSim

/// A compact, versioned encoding of `StoreState` for session files (format `compact-1`).
///
/// The bulk of a session (transactions, subscriptions, notifications) is written as JSON
/// arrays of primitives in a fixed field order and read back by a streaming reader straight
/// into the model types. Everything else is ordinary `Codable` JSON under `base`. It is still
/// JSON text, about a third of the size of the `Codable` form and many times faster to read.
/// Every token is read by the core's `JSONScanner`, as the `.storekit` reader reads them.
///
/// Files: this one (entry points), `+Writer` (encoding), `+Reader` (tokens, fields, `base`,
/// the document), `+Records` (the rows of the records declared once: transactions,
/// subscriptions, renewal infos, commitments), `+Rows` (customers, notifications, offers, …),
/// `+Halves` (a large customers' list read in two halves at once, for `Scripts/bench.sh` item 5).
///
///     {"codec":"compact-1","base":{...StoreState without customers, notifications, delivery log...},
///      "deliveries":[[text,...],[[index,url,httpStatus,error,date,result,origin,fault,nextAttempt],...]],
///      "customers":[[name,appTransactionID,familyID,[groups],[transaction...],[subscription...]],...],
///      "notifications":[[type,subtype,sequence,signedDate,customer,transaction,renewalInfo,status],...]}
///
/// `deliveries` (the delivery log, `+Deliveries`) is there when the state has one; files of
/// session version 3 and older keep it in `base`, and are still read.
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
  package static func encode(_ state: StoreState, deliveriesAsRows: Bool = true) throws -> [UInt8] {
    try encodeSplit(state, deliveriesAsRows: deliveriesAsRows).bytes
  }

  /// Encodes a state and tells where the outbox part begins: `bytes[..<outboxStart]` is
  /// everything a read `skippingNotifications` decodes, `bytes[outboxStart...]` is
  /// `,"notifications":[…]}`. A session file checksums the two parts separately.
  /// `deliveriesAsRows: false` writes the delivery log in `base`, as session files of version 3
  /// and older have it.
  package static func encodeSplit(
    _ state: StoreState, deliveriesAsRows: Bool = true
  ) throws -> (bytes: [UInt8], outboxStart: Int) {
    var base = state
    base.customers = []
    base.notifications = []
    if deliveriesAsRows { base.deliveryLog = nil }
    let encoder = baseEncoder()
    var w = Writer()
    w.bytes.reserveCapacity(4096 + state.customers.reduce(0) { $0 + $1.transactions.count } * 600)
    w.raw("{\"codec\":")
    w.string(name)
    w.raw(",\"base\":")
    w.bytes.append(contentsOf: try encoder.encode(base))
    if deliveriesAsRows, let log = state.deliveryLog {
      w.raw(",\"deliveries\":")
      w.deliveries(log)
    }
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

  /// How the `Codable` part (`base`) is written, and compared when read (`WrittenBack`).
  static func baseEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .millisecondsSince1970
    return encoder
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
  /// `Codable` part (`base`) must be what `JSONEncoder` writes for the state it decodes to
  /// (`WrittenBack`: an unknown, misspelt or duplicate key is refused rather than ignored), and nothing but whitespace may follow the document.
  ///
  /// With `skippingNotifications`, the outbox (the last and largest part of a session) is not
  /// read: the state has no notifications. That is for commands that only read transactions or
  /// subscriptions, and such a state must never be saved. The document must still end where a whole
  /// one does.
  ///
  /// `outboxStart` (where `encodeSplit` said the outbox begins; a session file's header keeps
  /// it) lets a large customers' list (`splitting` bytes or more) be read in two halves at once,
  /// on two threads; the result and any error are those of a reading in order.
  package static func decode(
    _ buffer: UnsafeBufferPointer<UInt8>, skippingNotifications: Bool = false, outboxStart: Int? = nil,
    deliveriesAsRows: Bool = true
  ) throws(DecodingError) -> StoreState {
    try read(
      buffer, skippingNotifications: skippingNotifications, outboxStart: outboxStart, splitting: splitting,
      deliveriesAsRows: deliveriesAsRows
    ).state
  }

  /// `decode`, and where the customer row the helper thread began reading at is, when its
  /// half was taken (for tests, which may have the reader wait for the helper's thread to start:
  /// their lists are read in less time than a thread takes to).
  static func read(
    _ buffer: UnsafeBufferPointer<UInt8>, skippingNotifications: Bool, outboxStart: Int?, splitting: Int,
    waitingForHelper: Bool = false, deliveriesAsRows: Bool = true
  ) throws(DecodingError) -> (state: StoreState, secondHalf: Int?) {
    var r = Reader(bytes: buffer)
    r.deliveriesAsRows = deliveriesAsRows
    r.waitsForHelper = waitingForHelper
    r.skippingNotifications = skippingNotifications
    r.customersEnd = outboxStart
    r.splitting = splitting
    let state = try r.document()
    return (state, r.secondHalf)
  }

  /// The size of a customers' list (1 MiB) from which it is read in two halves.
  static let splitting = 1 << 20
}
