import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession

/// The core's JSON reading: `JSONNodeDecoder` (lenient as `JSONDecoder`, or strict), the
/// parser's trailing-comma option, and the session header as `JSONSerialization` read and wrote it.
@Suite struct JSONReadingTests {
  enum Colour: String, Codable, Equatable { case red, blue }

  struct Sample: Codable, Equatable {
    var count: Int
    var id: UInt64
    var flag: Bool
    var name: String
    var price: Decimal
    var date: Date
    var token: UUID
    var list: [Int]
    var table: [String: Int]
    var colour: Colour
    var note: String?
  }

  static let good =
    #"{"colour":"red","count":3,"date":1767225600123,"flag":true,"id":18446744073709551615,"list":[1,2],"#
    + #""name":"a\u00e9\n","price":9.99,"table":{"x":1},"token":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#

  /// `good` with `old` replaced by `new`.
  static func variant(_ old: String, _ new: String) -> String { good.replacingOccurrences(of: old, with: new) }

  static let variants: [String] = [
    good, variant(#""count":3"#, #""count":3.0"#), variant(#""count":3"#, #""count":3e0"#),
    variant(#""count":3"#, #""count":3.5"#), variant(#""count":3"#, #""count":"3""#),
    variant(#""count":3"#, #""count":null"#), variant(#""count":3,"#, ""), variant(#""flag":true"#, #""flag":null"#),
    variant(#""flag":true"#, #""flag":1"#), variant(#""id":18446744073709551615"#, #""id":-1"#),
    variant(#""price":9.99"#, #""price":9.990"#), variant(#""price":9.99"#, #""price":1e200"#),
    variant(#""date":1767225600123"#, #""date":1.767225600123e12"#),
    variant(#""date":1767225600123"#, #""date":"x""#), variant("E621E1F8", "e621e1f8"), variant("E621E1F8", "X621E1F8"),
    variant(#""colour":"red""#, #""colour":"green""#), variant(#""list":[1,2]"#, #""list":[1,"2"]"#),
    variant(#""list":[1,2]"#, #""list":{}"#), variant(#""table":{"x":1}"#, #""table":{"x":"1"}"#),
    variant(#""colour":"red""#, #""colour":"red","colour":"blue""#), variant(#""count":3"#, #""count":3,"extra":[1]"#),
    variant(#""name":"#, #""note":null,"name":"#), variant(#""name":"#, #""note":"n","name":"#),
  ]

  enum Outcome: Equatable {
    case value(Sample)
    case failure(String, [String])
  }

  static func outcome(_ body: () throws -> Sample) -> Outcome {
    do { return .value(try body()) } catch let error as DecodingError {
      switch error {
      case .typeMismatch(_, let c): return .failure("typeMismatch", c.codingPath.map(\.stringValue))
      case .valueNotFound(_, let c): return .failure("valueNotFound", c.codingPath.map(\.stringValue))
      case .keyNotFound(let k, let c): return .failure("keyNotFound \(k.stringValue)", c.codingPath.map(\.stringValue))
      case .dataCorrupted(let c): return .failure("dataCorrupted", c.codingPath.map(\.stringValue))
      @unknown default: return .failure("unknown", [])
      }
    } catch { return .failure("\(error)", []) }
  }

  @Test(arguments: variants)
  func theLenientDecoderReadsAsJSONDecoderDoes(json: String) throws {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .millisecondsSince1970
    let expected = Self.outcome { try decoder.decode(Sample.self, from: Data(json.utf8)) }
    let node = try JSONParser.parse(Array(json.utf8))
    let read = Self.outcome { try JSONNodeDecoder().decode(Sample.self, from: node) }
    #expect(read == expected, "\(json)")
  }

  /// Written back: only what `JSONEncoder` writes for the value read, give or take how numbers
  /// are written.
  @Test func aValueWrittenBackDifferentlyIsRefused() throws {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .millisecondsSince1970
    func strict(_ json: String) -> Sample? {
      guard let node = try? JSONParser.parse(Array(json.utf8)) else { return nil }
      return WrittenBack.decode(Sample.self, from: node, encoder: encoder, bounded: false)
    }
    let sample = try #require(strict(Self.good))
    #expect(strict(String(decoding: try encoder.encode(sample), as: UTF8.self)) == sample)
    #expect(strict(Self.variant(#""count":3"#, #""count":3.0"#))?.count == 3)
    #expect(strict(Self.variant(#""price":9.99"#, #""price":9.990"#))?.price == sample.price)
    #expect(strict(Self.variant(#""name":"#, #""note":"n","name":"#))?.note == "n")
    for refused in [
      Self.variant(#""count":3"#, #""count":3,"extra":1"#),
      Self.variant(#""colour":"red""#, #""colour":"red","colour":"red""#),
      Self.variant(#""name":"#, #""note":null,"name":"#), Self.variant("E621E1F8", "e621e1f8"),
      Self.variant(#""date":1767225600123"#, #""date":1767225600123.00001"#),
    ] {
      #expect(strict(refused) == nil, "\(refused)")
    }
  }

  @Test func trailingCommasOnlyWhenAsked() throws {
    for text in [#"[1,]"#, #"{"a":1,}"#, #"{"a":[1, ] , }"#] {
      #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
      _ = try JSONParser.parse(Array(text.utf8), allowingTrailingCommas: true)
    }
    for text in [#"[,]"#, #"{,}"#, #"[1,,]"#] {
      #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8), allowingTrailingCommas: true) }
    }
  }

  /// The header line is written byte for byte as `JSONSerialization` wrote it, and read as it
  /// read it.
  @Test func theSessionHeaderIsReadAndWrittenAsBefore() throws {
    let path = "/tmp/a b/zoë \"q\" \\ \u{1}\u{8}\u{C}\t\r\n\u{1F}\u{7F}/x"
    let fields: [String: HeaderFields.Value] = [
      "format": .string("storesim-session"), "version": .int(3), "configurationPath": .string(path), "n": .int(-12),
    ]
    let old: [String: Any] = ["format": "storesim-session", "version": 3, "configurationPath": path, "n": -12]
    let written = try JSONSerialization.data(withJSONObject: old, options: [.sortedKeys])
    #expect(HeaderFields.encode(fields) == Array(written))
    let read = try #require(HeaderFields(HeaderFields.encode(fields)))
    #expect(read.string("configurationPath") == path && read.int("version") == 3 && read.count == 4)
    let odd = try #require(HeaderFields(Array(#"{"a":3.0,"b":true,"c":3.5,"d":"3","e":1,"e":2,"f":1e2,}"#.utf8)))
    #expect(odd.int("a") == 3 && odd.int("b") == 1 && odd.int("c") == nil && odd.int("d") == nil)
    #expect(odd.int("e") == 2 && odd.int("f") == 100 && odd.count == 6)
    #expect(HeaderFields(Array(#"{"a":1e400}"#.utf8)) == nil)
    #expect(HeaderFields(Array(#"[1]"#.utf8)) == nil)
  }
}
