import Foundation
import StoreSim

extension StateCodec {
  /// Encodes a state as `encodeSplit` does, byte for byte, handing the bytes to `sink` about
  /// `chunk` at a time instead of holding them all: a session of a large population is written
  /// without a second copy of itself in memory. `sink` is told whether its bytes belong to the
  /// outbox part (`,"notifications":[…]}`); the bytes before it never do.
  package static func encode(
    _ state: StoreState, chunk: Int = 1 << 20, sink: (UnsafeRawBufferPointer, _ outbox: Bool) throws -> Void
  ) throws {
    var base = state
    base.customers = []
    base.notifications = []
    base.deliveryLog = nil
    var w = Writer()
    w.bytes.reserveCapacity(chunk + 65_536)
    var failure: (any Error)?
    func flush(_ w: inout Writer, outbox: Bool) {
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
        w.customer(c)
        if w.bytes.count >= chunk { flush(&w, outbox: false) }
      }
    }
    flush(&w, outbox: false)
    w.raw(",\"notifications\":")
    var transactions: [TransactionID: Transaction] = [:]
    for c in state.customers { for t in c.transactions { transactions[t.id] = t } }
    w.array { w in
      for n in state.notifications {
        w.notification(n, stored: transactions)
        if w.bytes.count >= chunk { flush(&w, outbox: true) }
      }
    }
    w.raw("}")
    flush(&w, outbox: true)
    if let failure { throw failure }
  }
}
