// Performance work kept for one figure: `Scripts/bench.sh` row 4, "time for 10x the
// transactions costs at most 11x the time" (a history of 5,000 subscribers against one of 500).
// On a large session each subscription lives in memory no cache holds any more; reading a
// batch of deadlines' records together first makes the batch wait for memory about once instead
// of once per deadline. Measured in `storesim-bench`: with two fields of each subscription read
// ahead and no index, row 4 was 11.7 (missed); with the reads below, 10.5. Delete this file
// (and `runDue`'s call) when row 4 holds without it on a quiet machine.

extension Store {
  /// Reads `batch`'s records ahead of processing them (`warm`), so the reads stay.
  func readAhead(_ batch: [Due]) { blackHole(warm(batch)) }

  /// How many deadlines `runDue` takes from the queue and warms at a time.
  static let dueBatchSize = 16

  /// Reads what processing the batch will read first, so the memory loads overlap: each
  /// customer, every cache line of each subscription, the end of each transaction list and the
  /// part of each transaction index a renewal appends to (when only two fields of each
  /// subscription and no index were read here, a run of 5,000 subscribers cost 11.7 times one of
  /// 500 in `storesim-bench`; with them, 10.5). Returns a value computed
  /// from every read, for `blackHole`, so that the reads are not optimised away.
  func warm(_ batch: [Due]) -> UInt64 {
    var sink: UInt64 = 0
    for due in batch where due.customer.index < state.customers.count {
      let count = state.customers[due.customer].subscriptions.count
      sink &+= UInt64(count) &+ UInt64(state.customers[due.customer].transactions.count)
    }
    for due in batch
    where due.customer.index < state.customers.count
      && due.subscription < state.customers[due.customer].subscriptions.count
    {
      sink &+= UInt64(self[due.customer, due.subscription].warmth())
      if due.customer.index < transactionIndex.count {
        sink &+= UInt64(transactionIndex[due.customer.index].warmth())
      }
      // The slot the next transaction is appended after (the pointer only, not the transaction).
      state.customers[due.customer].transactions.withUnsafeBufferPointer { buffer in
        if let last = buffer.baseAddress.map({ $0 + buffer.count - 1 }), buffer.count > 0 {
          sink &+= UInt64(UnsafeRawPointer(last).load(as: UInt.self))
        }
      }
    }
    return sink
  }
}

/// Uses a value in a way the optimiser cannot see through, so the reads that computed it stay.
@inline(never)
@_optimize(none)
private func blackHole(_ value: UInt64) {}
