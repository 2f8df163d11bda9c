import Foundation
import StoreSim

extension StateCodec {
  /// Encodes a state as `encodeSplit` does, byte for byte, handing the bytes to `sink` about
  /// `chunk` at a time instead of holding them all: a session of a large population is written
  /// without a second copy of itself in memory. `sink` is told whether its bytes belong to the
  /// outbox part (`,"notifications":[…]}`); the bytes before it never do. `customerRow` is told
  /// where each customer's row begins (its `[`), in the bytes handed to `sink`, in order.
  /// `written`, when the state's first notifications were written out (`OutboxFile`), gives
  /// their rows, copied in their places.
  package static func encode(
    _ state: StoreState, chunk: Int = 1 << 20, customerRow: (Int) -> Void = { _ in }, written: OutboxFile? = nil,
    sink: (UnsafeRawBufferPointer, _ outbox: Bool) throws -> Void
  ) throws {
    var base = state
    base.customers = []
    base.notifications = []
    base.deliveryLog = nil
    var w = Writer()
    w.bytes.reserveCapacity(chunk + 65_536)
    var failure: (any Error)?
    var flushed = 0
    func flush(_ w: inout Writer, outbox: Bool) {
      flushed += w.bytes.count
      guard failure == nil else { return }
      do {
        try w.bytes.withUnsafeBytes { try sink($0, outbox) }
      } catch {
        failure = error
      }
      w.bytes.removeAll(keepingCapacity: true)
    }
    w.raw("{\"codec\":")
    w.string(name)
    w.raw(",\"base\":")
    w.bytes.append(contentsOf: try baseEncoder().encode(base))
    if let log = state.deliveryLog {
      w.raw(",\"deliveries\":")
      w.deliveries(log)
    }
    w.raw(",\"customers\":")
    w.array { w in
      for c in state.customers {
        customerRow(flushed + w.bytes.count + (w.needsSeparator ? 1 : 0))
        w.customer(c)
        if w.bytes.count >= chunk { flush(&w, outbox: false) }
      }
    }
    flush(&w, outbox: false)
    w.raw(",\"notifications\":")
    var first = 0
    if let written, written.count > 0 {
      w.separate()
      w.bytes.append(UInt8(ascii: "["))
      flush(&w, outbox: true)
      if failure == nil {
        do {
          try written.replay { try sink($0, true) }
        } catch {
          failure = error
        }
      }
      w.needsSeparator = true
      first = written.count
    } else {
      w.separate()
      w.bytes.append(UInt8(ascii: "["))
      w.needsSeparator = false
    }
    var transactions: [TransactionID: Transaction] = [:]
    if first < state.notifications.count {
      for c in state.customers { for t in c.transactions { transactions[t.id] = t } }
    }
    for n in state.notifications[first...] {
      w.notification(n, stored: transactions)
      if w.bytes.count >= chunk { flush(&w, outbox: true) }
    }
    w.bytes.append(UInt8(ascii: "]"))
    w.raw("}")
    flush(&w, outbox: true)
    if let failure { throw failure }
  }
}
