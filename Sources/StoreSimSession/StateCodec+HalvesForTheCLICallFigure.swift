import Foundation
import StoreSim
import StoreSimSync

// Performance work kept for one figure: `Scripts/bench.sh` item 5, one CLI call
// (`entitlements`) on a session of 100,000 transactions in under 300 ms. Without this file's
// reader the call took 231-366 ms (median 310, a miss), with it 187-196 ms, old and new binaries
// in alternation, 7 runs each (docs/performance.md). Delete this file (and `customerList`'s
// use of it, `HalvesTests` and the fuzz target's `checkHalves`) when item 5 holds without it
// on a quiet machine.
//
// The customers' list of a large session, read in two halves at once: a helper thread reads
// from a customer row near the middle to the end of the list while the reader reads from the
// start. JSON cannot be cut anywhere (a `,["` may sit inside a string), so the helper only
// guesses where a row begins, and its work is taken only when the reader, reading in order,
// finishes a customer exactly where the helper began: the bytes before that point are then
// what the reader read, and from it the helper read the same bytes in the same state, so its
// customers are the ones the reader would have read. Anything else (a guess that was wrong, a
// row the helper refused, a file whose list ends sooner) and the reader reads on alone: the
// result and every error are those of a reading in order.

extension StateCodec.Reader {
  /// `[customer, …]`, read in two halves when it reaches past `splitting` bytes and its end is
  /// known (`customersEnd`: where the notifications begin, from a session file's integrity
  /// header).
  mutating func customerList() throws(StateCodec.DecodingError) {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      guard !r.at(UInt8(ascii: "]")) else { return }
      guard let end = r.customersEnd, end - r.i >= r.splitting, end <= r.scanner.bytes.count else {
        repeat { try r.customer() } while r.more()
        return
      }
      let middle = r.i + (end - r.i) / 2
      let helper = StateCodec.SecondHalf(
        bytes: r.scanner.bytes, from: middle, skippingNotifications: r.skippingNotifications)
      defer { helper.stop() }
      repeat {
        try r.customer()
        guard r.more() else { return }
      } while r.i < middle
      // The helper only ever begins at a `,["`: anywhere else (whitespace after the comma) its
      // read could not be taken, and is not waited for.
      if StateCodec.SecondHalf.isRowStart(r.scanner.bytes, at: r.i),
        let read = helper.result(waitingToStart: r.waitsForHelper), read.start == r.i
      {
        r.adopt(read)
        return
      }
      repeat { try r.customer() } while r.more()
    }
  }

  /// Takes the helper's customers as if read here, and goes on from the list's closing bracket.
  mutating func adopt(_ read: StateCodec.SecondHalf.Read) {
    let offset = Int32(customers.count)
    if !skippingNotifications {
      for (id, (c, n)) in read.byID { byID[id] = (c + offset, n) }
    }
    customers.append(contentsOf: read.customers)
    scanner.index = read.end
    secondHalf = read.start
  }
}

extension StateCodec {
  /// A helper thread reading customer rows from the first one that begins at or after a byte
  /// offset, to the end of the list. It reads the buffer until `stop` returns, which every
  /// reader calls before the buffer may go.
  final class SecondHalf: Sendable {
    /// The helper's customers: where the first began, where the list's `]` is, and the
    /// transactions' places (in its own numbering of the customers).
    struct Read: Sendable {
      var start: Int
      var end: Int
      var customers: [Customer]
      var byID: [TransactionID: (Int32, Int32)]
    }

    /// The buffer, which outlives the helper: every reader that starts one stops it before
    /// returning (`defer`), and `stop` returns only once the helper has left the buffer or
    /// will never touch it.
    private struct Bytes: @unchecked Sendable { let buffer: UnsafeBufferPointer<UInt8> }

    /// `starting` until the thread runs; a helper that finds itself `abandoned` when it starts
    /// (the reader went on without it) never touches the buffer.
    private enum Progress: Sendable { case starting, reading, stopping, done(Read?), abandoned }
    private let progress = Condition(Progress.starting)
    /// How many starts the helper has tried (for tests).
    let guessesTried = Mutex(0)

    /// How many places that look like a row's start the helper tries before giving up.
    static let guesses = 32

    /// `startsThread` false stands for a thread that could not be made (`Thread.start()` does
    /// not say so): the helper never runs (for tests).
    init(bytes: UnsafeBufferPointer<UInt8>, from middle: Int, skippingNotifications: Bool, startsThread: Bool = true) {
      let bytes = Bytes(buffer: bytes)
      let thread = Thread { [progress, guessesTried] in
        let starts = progress.withLock { p -> Bool in
          guard case .starting = p else { return false }
          p = .reading
          return true
        }
        guard starts else { return }
        let read = SecondHalf.read(
          bytes.buffer, from: middle, skippingNotifications: skippingNotifications, tried: guessesTried
        ) {
          progress.withLock { if case .stopping = $0 { true } else { false } }
        }
        progress.withLock(waking: .all) { $0 = .done(read) }
      }
      if startsThread { thread.start() }
    }

    /// What the helper read, once it has finished; nil when it found no row it could read, or
    /// when its thread has not started: a helper that has not started by the time the reader is
    /// halfway through would not finish sooner than the reader reading on alone (and a thread
    /// that could not be made never starts), so it is abandoned and, should it start later,
    /// leaves the buffer alone. `waitingToStart` (for tests, whose lists are read in less time
    /// than a thread takes to start) first gives it up to half a second.
    func result(waitingToStart: Bool = false) -> Read? {
      let deadline = WaitClock.system.deadline(after: waitingToStart ? 0.5 : 0)
      while progress.withLock({ if case .starting = $0 { true } else { false } }), !deadline.hasPassed {
        Thread.sleep(forTimeInterval: 0.0002)
      }
      return progress.wait { (progress: inout Progress) -> Read?? in
        switch progress {
        case .starting:
          progress = .abandoned
          return .some(nil)
        case .done(let read): return .some(read)
        case .abandoned: return .some(nil)
        case .reading, .stopping: return nil
        }
      }
    }

    /// Asks the helper to stop and waits until it has (it checks between rows); one that has
    /// not started never will.
    func stop() {
      progress.withLock { p in
        switch p {
        case .starting: p = .abandoned
        case .reading: p = .stopping
        case .stopping, .done, .abandoned: break
        }
      }
      _ = progress.wait { p -> Bool? in
        switch p {
        case .done, .abandoned: true
        case .starting, .reading, .stopping: nil
        }
      }
    }

    /// Tries each `,["` from `middle` on as the start of a customer row, and reads on from the
    /// first that reads to the list's end. A guess that read a whole customer before failing is
    /// the last: its first row was a real one (or as good as), so a later start would only read
    /// to the same damage again; the reader reads on alone and finds it.
    private static func read(
      _ bytes: UnsafeBufferPointer<UInt8>, from middle: Int, skippingNotifications: Bool, tried: Mutex<Int>,
      stopped: () -> Bool
    ) -> Read? {
      var from = max(middle, 1)
      for _ in 0..<guesses {
        guard let start = rowStart(in: bytes, from: from) else { return nil }
        tried.withLock { $0 += 1 }
        var r = Reader(bytes: bytes)
        r.scanner.index = start
        r.skippingNotifications = skippingNotifications
        do {
          repeat {
            if stopped() { return nil }
            try r.customer()
          } while r.more()
          if r.at(UInt8(ascii: "]")) {
            return Read(start: start, end: r.i, customers: r.customers, byID: r.byID)
          }
        } catch {}
        if !r.customers.isEmpty { return nil }
        from = start + 1
      }
      return nil
    }

    /// The offset of the `[` of the first `,["` whose `[` is at or after `from`.
    static func rowStart(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
      var i = from
      while i + 1 < bytes.count {
        if isRowStart(bytes, at: i) { return i }
        i += 1
      }
      return nil
    }

    /// Whether `i` is the `[` of a `,["`: where a customer row can begin (the only place the
    /// helper begins).
    static func isRowStart(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
      i >= 1 && i + 1 < bytes.count && bytes[i] == UInt8(ascii: "[") && bytes[i - 1] == UInt8(ascii: ",")
        && bytes[i + 1] == UInt8(ascii: "\"")
    }
  }
}
