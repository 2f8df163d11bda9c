import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession
@testable import StoreSimTestSupport

/// A large session is written while it is encoded (`SessionFileFormat.write(_:to:)`), never held
/// whole in memory: the bytes are exactly those of `SessionFileFormat.encode`.
@Suite struct StreamingWriteTests {
  @Test func theChecksumOfPiecesIsTheChecksumOfTheWhole() {
    let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    for pieces in [[1000], [1, 999], [7, 31, 33, 929], [32, 32, 936], [3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 395]] {
      var stream = Checksum64.Stream()
      var start = 0
      for length in pieces {
        bytes[start..<start + length].withUnsafeBytes { stream.update($0) }
        start += length
      }
      #expect(stream.count == bytes.count)
      #expect(stream.finish() == Checksum64.hash(bytes), "pieces \(pieces)")
    }
    for length in 0..<70 {
      var stream = Checksum64.Stream()
      bytes[..<length].withUnsafeBytes { stream.update($0) }
      #expect(stream.finish() == Checksum64.hash(Array(bytes[..<length])), "length \(length)")
    }
  }

  @Test func aStateEncodedInChunksIsTheStateEncodedAtOnce() throws {
    let state = try HalvesTests.store(customers: 40).state
    let (whole, outboxStart) = try StateCodec.encodeSplit(state)
    var before: [UInt8] = []
    var outbox: [UInt8] = []
    try StateCodec.encode(state, chunk: 100) { bytes, inOutbox in
      if inOutbox { outbox.append(contentsOf: bytes) } else { before.append(contentsOf: bytes) }
    }
    #expect(before.count == outboxStart)
    #expect(before + outbox == whole)
  }

  @Test func aSessionFileWrittenWhileEncodedIsTheFileEncodedAtOnce() throws {
    let state = try HalvesTests.store(customers: 40).state
    let expected = try SessionFileFormat.encode(state, configurationPath: "/x/a.storekit", configurationDigest: "d1")
    var written: [UInt8] = []
    try SessionFileFormat.write(state, configurationPath: "/x/a.storekit", configurationDigest: "d1") {
      written.append(contentsOf: $0)
    }
    #expect(Data(written) == expected)
    let (_, read) = try SessionFileFormat.decode(Data(written))
    #expect(read == state)
  }
}
