import Foundation
import StoreSim

/// The index beside a large session file (`<session>.index`, issue 50, item 6): where the row
/// of the customer holding each transaction begins in the state line, so that `serve` answers a
/// request about one transaction, while the whole session is still being read, by decoding that
/// row alone instead of stepping over every row before it.
///
/// It is written with a session file written while encoded (`SessionFile.write`, more than
/// `streamingThreshold` records) and belongs to one version of that file: it names the header's
/// `checksum` (which covers the state's checksum and length), and an index naming another is
/// not used. It is never needed: a session without one (or with a stale one) is read as before.
///
///     storesim-index 1 <header checksum> <count>\n
///     count × (transaction id, row offset): two little-endian UInt64s, by id
package struct SessionIndex: Equatable, Sendable {
  /// The `checksum` of the header of the session file it was made for.
  package var checksum: String
  /// The bytes of the file.
  package var bytes: Data
  /// Where the entries begin in `bytes`, and how many there are.
  let entriesStart: Int
  package let count: Int

  static let magic = "storesim-index 1 "

  /// The index's path beside the session file's.
  package static func path(of session: String) -> String { session + ".index" }

  /// The index of a session whose header checksum is `checksum`, whose customers' rows begin at
  /// `rows` (in the state line, in the customers' order).
  package init(checksum: String, customers: [Customer], rows: [Int]) {
    var entries: [(id: UInt64, row: UInt64)] = []
    entries.reserveCapacity(customers.reduce(0) { $0 + $1.transactions.count })
    for (c, row) in zip(customers, rows) {
      for t in c.transactions { entries.append((t.id, UInt64(row))) }
    }
    entries.sort { $0.id < $1.id }
    var bytes = Data((Self.magic + checksum + " \(entries.count)\n").utf8)
    let head = bytes.count
    bytes.count += entries.count * 16
    bytes.withUnsafeMutableBytes { raw in
      for (k, e) in entries.enumerated() {
        raw.storeBytes(of: e.id.littleEndian, toByteOffset: head + k * 16, as: UInt64.self)
        raw.storeBytes(of: e.row.littleEndian, toByteOffset: head + k * 16 + 8, as: UInt64.self)
      }
    }
    self.checksum = checksum
    self.bytes = bytes
    entriesStart = head
    count = entries.count
  }

  /// An index read from a file; nil when it is not one (or is cut short).
  package init?(bytes: Data) {
    let limit = min(bytes.count, 200)
    guard let newline = bytes.prefix(limit).firstIndex(of: 0x0A),
      let line = String(bytes: bytes[bytes.startIndex..<newline], encoding: .utf8), line.hasPrefix(Self.magic)
    else { return nil }
    let words = line.dropFirst(Self.magic.count).split(separator: " ")
    let start = bytes.distance(from: bytes.startIndex, to: newline) + 1
    guard words.count == 2, let count = Int(words[1]), count >= 0, bytes.count - start == count * 16 else {
      return nil
    }
    checksum = String(words[0])
    self.bytes = bytes
    entriesStart = start
    self.count = count
  }

  /// Where the row of the customer holding transaction `id` begins (in the state line); nil
  /// when no customer holds it. A binary search: a few pages of a mapped file are touched.
  package func row(of id: TransactionID) -> Int? {
    bytes.withUnsafeBytes { raw -> Int? in
      var low = 0
      var high = count
      while low < high {
        let mid = (low + high) / 2
        let at = entriesStart + mid * 16
        let key = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        if key == id {
          return Int(exactly: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
        }
        if key < id { low = mid + 1 } else { high = mid }
      }
      return nil
    }
  }
}
