import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession

/// A save that follows another copies the rows of the records that did not change
/// (`EncodedRows`; issue 46, item 10): the bytes are those of an encoding from scratch, and only
/// the changed and new records are written again.
@Suite struct StateCodecReuseTests {
  static func fresh(_ state: StoreState) throws -> [UInt8] { try StateCodec.encodeSplit(state).bytes }

  /// Property a save writes only what changed (storesim's own, not an App Store rule): after a purchase, every earlier transaction's and
  /// notification's row is copied; after a refund (which changes a stored transaction and so
  /// what earlier notifications may name), the changed rows are written again; the bytes are
  /// always an encoding from scratch's.
  @Test func aSaveWritesOnlyWhatChanged() throws {
    var store = Store(state: SessionFileMutationTests.document.state)
    store.settings.askToBuyEnabled = false
    let rows = EncodedRows()
    let first = try StateCodec.encodeSplit(store.state, reusing: rows)
    #expect(first.bytes == (try Self.fresh(store.state)) && rows.reused == 0)

    let transactions = store.state.customers.reduce(0) { $0 + $1.transactions.count }
    let notifications = store.state.notifications.count
    _ = try store.buyProduct("fuel")
    let second = try StateCodec.encodeSplit(store.state, reusing: rows)
    #expect(second.bytes == (try Self.fresh(store.state)))
    #expect(rows.reused == transactions + notifications, "\(rows.reused) rows copied")

    try store.refund(store.allTransactions().first { $0.productID == "fuel" }!.id)
    let third = try StateCodec.encodeSplit(store.state, reusing: rows)
    #expect(third.bytes == (try Self.fresh(store.state)))
    #expect(rows.reused < transactions + 1, "notifications naming a changed transaction were copied")

    // A state of fewer customers (another process's save, read again) is written from scratch.
    var other = SessionFileMutationTests.document.state
    other.customers.removeLast()
    #expect(try StateCodec.encodeSplit(other, reusing: rows).bytes == (try Self.fresh(other)))
  }

  /// Property a save copies the configuration's bytes (storesim's own, not an App Store rule):
  /// over saves that keep the configuration (every purchase), `JSONEncoder` writes it once; a
  /// changed one is written again; the rest of `base`, whose counters alone a purchase moves,
  /// is written once too; the bytes are always an encoding from scratch's. Issue 46, item 10:
  /// encoding the configuration again on every save was a fifth of `serve`'s time.
  @Test func aSaveEncodesTheConfigurationOnceWhileItStays() throws {
    var store = Store(state: SessionFileMutationTests.document.state)
    store.settings.askToBuyEnabled = false
    let rows = EncodedRows()
    for _ in 0..<5 {
      _ = try store.buyProduct("fuel")
      #expect(try StateCodec.encodeSplit(store.state, reusing: rows).bytes == (try Self.fresh(store.state)))
    }
    #expect(rows.configurationEncodings == 1, "\(rows.configurationEncodings) encodings over 5 saves")
    // A purchase moves only counters in the rest of `base`: their digits are written in place.
    #expect(rows.restEncodings == 1, "the rest of base was encoded \(rows.restEncodings) times over 5 saves")

    var changed = store.state.configuration
    changed.identifier = "changed"
    _ = store.replaceConfiguration(changed)
    #expect(try StateCodec.encodeSplit(store.state, reusing: rows).bytes == (try Self.fresh(store.state)))
    _ = try store.buyProduct("fuel")
    #expect(try StateCodec.encodeSplit(store.state, reusing: rows).bytes == (try Self.fresh(store.state)))
    #expect(rows.configurationEncodings == 2)
  }
}
