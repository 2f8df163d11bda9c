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
  /// Deadlines are taken from the queue `dueBatchSize` at a time and read ahead together first
  /// (`warm`, in `Store+ReadAheadForScaling.swift`, for the benchmark's scaling figure). The
  /// order is unchanged: a deadline queued while the batch runs that comes before the rest of
  /// the batch sends the rest back to the queue.
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
      readAhead(batch)
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
}
