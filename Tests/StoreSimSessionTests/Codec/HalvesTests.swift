import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// A large customers' list is read in two halves at once (`StateCodec+HalvesForTheCLICallFigure`): the state and
/// every error are those of a reading in order, whatever the bytes hold.
@Suite struct HalvesTests {
  /// Customers who each buy a non-consumable, a consumable and a subscription that renews
  /// twice, so notifications refer to transactions of every customer.
  static func store(customers n: Int, name: (Int) -> String = { "c\($0)" }) throws -> Store {
    var store = Fixtures.store()
    for i in 0..<n {
      let id = CustomerID(name(i))
      try store.addCustomer(id)
      _ = try store.purchase("car", customer: id)
      _ = try store.purchase("fuel", customer: id)
      _ = try store.purchase(i % 2 == 0 ? "monthly" : "pro", customer: id)
    }
    _ = try store.advance(to: Fixtures.start.addingTimeInterval(Fixtures.days(70)))
    return store
  }

  static func read(
    _ bytes: [UInt8], skippingNotifications: Bool = false, outboxStart: Int?, splitting: Int = 1
  ) throws -> (state: StoreState, secondHalf: Int?) {
    try bytes.withUnsafeBufferPointer {
      try StateCodec.read(
        $0, skippingNotifications: skippingNotifications, outboxStart: outboxStart, splitting: splitting,
        waitingForHelper: true)
    }
  }

  @Test func aCustomersListReadInTwoHalvesIsTheStateReadInOrder() throws {
    let store = try Self.store(customers: 40)
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    let halves = try Self.read(bytes, outboxStart: outboxStart)
    #expect(halves.state == store.state)
    // The helper's half was taken, and it began at a customer's row past the middle.
    let start = try #require(halves.secondHalf)
    #expect(bytes[start - 1] == UInt8(ascii: ",") && bytes[start] == UInt8(ascii: "["))
    let list = try #require(Self.offset(of: "\"customers\":[", in: bytes, from: 0)) + 13
    #expect(start >= list + (outboxStart - list) / 2)
    #expect(bytes[start + 1] == UInt8(ascii: "\"") && bytes[start + 2] == UInt8(ascii: "c"))
    // Notifications refer to transactions of customers of both halves.
    let last = try #require(store.state.customers.last?.id)
    #expect(halves.state.notifications.contains { $0.customer == last && $0.transaction != nil })
    // Read without the outbox, the same.
    let skipping = try Self.read(bytes, skippingNotifications: true, outboxStart: outboxStart)
    #expect(skipping.secondHalf != nil)
    #expect(skipping.state.customers == store.state.customers)
    #expect(skipping.state.notifications.isEmpty)
  }

  @Test func aListSmallerThanTheThresholdIsReadInOrder() throws {
    let store = try Self.store(customers: 4)
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    let read = try Self.read(bytes, outboxStart: outboxStart, splitting: outboxStart + 1)
    #expect(read.state == store.state)
    #expect(read.secondHalf == nil)
    // Without the list's end, too.
    #expect(try Self.read(bytes, outboxStart: nil).secondHalf == nil)
  }

  @Test func aStringEndingInACommaAndBracketIsNotTakenForARowStart() throws {
    // Every name ends in `,[`, so `,["` (the helper's guess at a row's start) also sits at each
    // name's closing quote.
    let store = try Self.store(customers: 30) { "c\($0),[" }
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    let read = try Self.read(bytes, outboxStart: outboxStart)
    #expect(read.state == store.state)
    let start = try #require(read.secondHalf)
    #expect(bytes[start + 1] == UInt8(ascii: "\"") && bytes[start + 2] == UInt8(ascii: "c"))
  }

  @Test func aWrongListEndStillReadsTheStateInOrder() throws {
    let store = try Self.store(customers: 20)
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    for end in [bytes.count, outboxStart / 3, outboxStart + (bytes.count - outboxStart) / 2, bytes.count + 100] {
      #expect(try Self.read(bytes, outboxStart: end).state == store.state, "end \(end)")
    }
  }

  @Test func anErrorInEitherHalfIsTheErrorOfAReadingInOrder() throws {
    let store = try Self.store(customers: 20)
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    // A product ID turned into a number in the first customer's and in the last customer's rows.
    let list = try #require(Self.offset(of: "\"customers\":[", in: bytes, from: 0))
    let first = try #require(Self.offset(of: "\"car\"", in: bytes, from: list))
    let lastCustomer = try #require(Self.lastOffset(of: "[\"c19\"", in: bytes))
    let last = try #require(Self.offset(of: "\"car\"", in: bytes, from: lastCustomer))
    for at in [first, last] {
      var broken = bytes
      broken.replaceSubrange(at..<at + 5, with: Array("12345".utf8))
      let inOrder = #expect(throws: StateCodec.DecodingError.self) {
        try Self.read(broken, outboxStart: outboxStart, splitting: .max)
      }
      let halves = #expect(throws: StateCodec.DecodingError.self) { try Self.read(broken, outboxStart: outboxStart) }
      #expect(halves?.description == inOrder?.description)
      #expect(halves?.offset == at)
    }
    // Damage late in the list: the helper's guess at the real row reads a whole customer, then
    // fails; it gives up there rather than trying later starts that would read to it again.
    do {
      var broken = bytes
      broken.replaceSubrange(last..<last + 5, with: Array("12345".utf8))
      try broken.withUnsafeBufferPointer { buffer in
        let list = try #require(Self.offset(of: "\"customers\":[", in: bytes, from: 0)) + 13
        let helper = StateCodec.SecondHalf(
          bytes: buffer, from: list + (outboxStart - list) / 2, skippingNotifications: false)
        #expect(helper.result(waitingToStart: true) == nil)
        helper.stop()
        // The first `,["` after the middle is a customer row (or its groups list, refused at
        // once, then the row after it).
        #expect(helper.guessesTried.withLock { $0 } <= 2)
      }
    }
    // Cut inside the second half.
    let cut = Array(bytes[..<(outboxStart - 50)])
    let inOrder = #expect(throws: StateCodec.DecodingError.self) {
      try Self.read(cut, outboxStart: outboxStart, splitting: .max)
    }
    let halves = #expect(throws: StateCodec.DecodingError.self) { try Self.read(cut, outboxStart: outboxStart) }
    #expect(halves?.description == inOrder?.description)
  }

  @Test func aLargeSessionFileIsReadInTwoHalves() throws {
    // Past the 1 MiB from which a session file's list is split.
    let store = try Self.store(customers: 1_200)
    let file = try SessionFileFormat.encode(store.state, configurationPath: "", configurationDigest: "")
    let (_, read) = try SessionFileFormat.decode(file)
    #expect(read == store.state)
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    #expect(outboxStart > StateCodec.splitting)
    #expect(try Self.read(bytes, outboxStart: outboxStart, splitting: StateCodec.splitting).secondHalf != nil)
  }

  @Test func aHelperWhoseThreadNeverRunsIsLeftBehind() throws {
    let store = try Self.store(customers: 10)
    let (bytes, outboxStart) = try StateCodec.encodeSplit(store.state)
    try bytes.withUnsafeBufferPointer { buffer in
      // Asked for its result, it is abandoned after its wait; asked to stop, at once.
      let waited = StateCodec.SecondHalf(
        bytes: buffer, from: outboxStart / 2, skippingNotifications: false, startsThread: false)
      #expect(waited.result(waitingToStart: true) == nil)
      waited.stop()
      let stopped = StateCodec.SecondHalf(
        bytes: buffer, from: outboxStart / 2, skippingNotifications: false, startsThread: false)
      stopped.stop()
      #expect(stopped.result() == nil)
      // Not waited for at all by default.
      let abandoned = StateCodec.SecondHalf(
        bytes: buffer, from: outboxStart / 2, skippingNotifications: false, startsThread: false)
      #expect(abandoned.result() == nil)
      abandoned.stop()
      // A helper that runs is waited for.
      let running = StateCodec.SecondHalf(bytes: buffer, from: outboxStart / 2, skippingNotifications: false)
      let read = try #require(running.result(waitingToStart: true))
      running.stop()
      #expect(read.customers == Array(store.state.customers.suffix(read.customers.count)))
      #expect(!read.customers.isEmpty)
    }
  }

  static func offset(of text: String, in bytes: [UInt8], from: Int) -> Int? {
    let needle = Array(text.utf8)
    return (from...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
  }

  static func lastOffset(of text: String, in bytes: [UInt8]) -> Int? {
    let needle = Array(text.utf8)
    return (0...(bytes.count - needle.count)).reversed().first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
  }
}
