import Foundation

extension Store {
  /// Moves the clock forward by a number of seconds, running everything due on the way.
  @discardableResult
  public mutating func advance(by seconds: TimeInterval) throws(StoreError) -> Outcome<Void> {
    try advance(to: state.now.addingTimeInterval(seconds))
  }

  /// Moves the clock to a date, running everything due on the way in time order.
  ///
  /// - Throws: `clockCannotMoveBackward` for a date before now.
  @discardableResult
  public mutating func advance(to date: Date) throws(StoreError) -> Outcome<Void> {
    guard date >= state.now else { throw .clockCannotMoveBackward(now: state.now, requested: date) }
    return atomically { (store: inout Store) -> Void in
      store.runDue(through: date)
      store.state.now = date
      store.emit(nil, .clockAdvanced(to: date))
    }
  }

  /// Moves the clock to the next due event and runs it. The value is the date the clock moved
  /// to; nil (and no events) when nothing is scheduled.
  @discardableResult
  public mutating func advanceToNextEvent() throws(StoreError) -> Outcome<Date?> {
    guard let next = nextDue() else { return Outcome(value: nil, events: []) }
    let date = max(next.date, state.now)
    return Outcome(value: date, events: try advance(to: date).events)
  }

  /// Moves the clock to `date` like `advance(to:)`, handing the events to `sink` as they happen
  /// (in order, a batch at a time) instead of collecting them, so memory does not grow with
  /// their number. The one mutating call that returns no `Outcome`: it is the hot path of the
  /// CLI and the benchmark, and its events have already gone to `sink`.
  ///
  /// When `sink` answers false the clock stops after the current batch: everything up to
  /// `now` has happened and nothing after it. Returns whether the clock reached `date`.
  ///
  /// - Throws: `clockCannotMoveBackward` for a date before now.
  @discardableResult
  public mutating func advance(to date: Date, streaming sink: (inout [StoreEvent]) -> Bool) throws(StoreError) -> Bool {
    guard date >= state.now else { throw .clockCannotMoveBackward(now: state.now, requested: date) }
    events = []
    defer { events = [] }
    guard runDue(through: date, afterBatch: sink) else { return false }
    state.now = date
    emit(nil, .clockAdvanced(to: date))
    return sink(&events)
  }

  /// The date of the next scheduled lifecycle event, if any.
  public var nextEventDate: Date? { nextDue()?.date }

  /// Runs every deadline at or before `date`, in (date, rank, customer, group) order. Deadlines
  /// before now (a back-dated purchase) run at their own dates without moving the clock back.
  ///
  /// Deadlines are taken from the queue `dueBatchSize` at a time and their subscriptions read
  /// together first (`warm`): on a large session each lives in memory no cache holds any more,
  /// and a batch of independent reads waits for memory about once instead of once per deadline. The order is unchanged: a
  /// deadline queued while the batch runs that comes before the rest of the batch sends the
  /// rest back to the queue.
  /// After each batch, `afterBatch` takes the events so far; when it answers
  /// false the run stops there and returns false.
  @discardableResult
  mutating func runDue(through date: Date, afterBatch: (inout [StoreEvent]) -> Bool = { _ in true }) -> Bool {
    let saved = state.now
    var batch: [Due] = []
    batch.reserveCapacity(Self.dueBatchSize)
    while true {
      batch.removeAll(keepingCapacity: true)
      while batch.count < Self.dueBatchSize, let due = schedule.peek(), due.date <= date {
        schedule.pop()
        batch.append(due)
      }
      if batch.isEmpty { break }
      blackHole(warm(batch))
      var k = 0
      while k < batch.count {
        let due = batch[k]
        if let top = schedule.peek(), top < due {
          for rest in batch[k...] { schedule.push(rest) }
          break
        }
        k += 1
        guard isCurrent(due) else { continue }
        state.now = due.date
        process(due)  // queues the subscription's next deadline, if it has one
      }
      if !afterBatch(&events) {
        state.now = max(saved, state.now)
        return false
      }
    }
    state.now = max(saved, state.now)
    return true
  }

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
