import Foundation
import Testing

@testable import StoreSim

/// `@Rare` keeps an optional field out of line and changes nothing else: the record is
/// smaller, and it reads, compares, hashes and codes as the optional it wraps.
@Suite struct RareTests {
  struct Record: Codable, Hashable, Sendable {
    var id: Int
    @Rare var offer: TransactionOffer? = nil
  }

  static let offer = TransactionOffer(
    type: .promotional, id: "spring", paymentMode: .payUpFront, period: SubscriptionPeriod(value: 1, unit: .month))

  @Test func aRareFieldTakesOnePointer() {
    #expect(MemoryLayout<Rare<TransactionOffer>>.size == MemoryLayout<Int>.size)
    #expect(MemoryLayout<TransactionOffer?>.size > MemoryLayout<Int>.size)
  }

  @Test func itReadsComparesAndHashesAsTheOptional() {
    var a = Record(id: 1)
    #expect(a.offer == nil)
    a.offer = Self.offer
    let b = Record(id: 1, offer: Self.offer)  // a box of its own
    #expect(a == b && a.hashValue == b.hashValue)
    a.offer?.id = "autumn"
    #expect(a.offer?.id == "autumn" && a != b && b.offer?.id == "spring")
    a.offer = nil
    #expect(a == Record(id: 1))
  }

  @Test func itIsCodedAsTheOptionalIsLeftOutWhenNilAndReadAsNilWhenMissing() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(String(decoding: try encoder.encode(Record(id: 1)), as: UTF8.self) == #"{"id":1}"#)
    let with = Record(id: 2, offer: Self.offer)
    let json = try encoder.encode(with)
    #expect(String(decoding: json, as: UTF8.self).contains(#""offer":{"#))
    #expect(try JSONDecoder().decode(Record.self, from: json) == with)
    #expect(try JSONDecoder().decode(Record.self, from: Data(#"{"id":3}"#.utf8)) == Record(id: 3))
    #expect(try JSONDecoder().decode(Record.self, from: Data(#"{"id":3,"offer":null}"#.utf8)) == Record(id: 3))
  }

  /// A renewal info keeps its offer and commitment out of line under their own names.
  @Test func aRenewalInfoIsCodedUnderItsFieldsNames() throws {
    var info = RenewalInfo.blank
    info.offer = Self.offer
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(info), as: UTF8.self)
    #expect(text.contains(#""offer":{"#) && !text.contains("rare") && !text.contains(#""commitment""#))
    #expect(try JSONDecoder().decode(RenewalInfo.self, from: Data(text.utf8)) == info)
  }
}
