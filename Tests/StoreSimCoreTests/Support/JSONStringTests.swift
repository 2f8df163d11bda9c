import Foundation
import Testing

@testable import StoreSim

/// One JSON string writer (`JSONString`) with three escapings: what each writes, byte for byte,
/// and that whatever it writes reads back as the string written.
@Suite struct JSONStringTests {
  static func written(_ s: String, _ escaping: JSONString.Escaping) -> String {
    var out: [UInt8] = []
    JSONString.write(s, escaping: escaping, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  @Test func theSessionStateEscapesOnlyWhatJSONRequires() {
    #expect(Self.written("a/b\n\"\\\u{1}\u{202E}é", .required) == #""a/b\u000a\"\\\u0001"# + "\u{202E}é\"")
  }

  @Test func theSessionHeaderEscapesAsJSONSerializationDoes() {
    for s in ["/tmp/a b/c.storekit", "tab\there\u{8}\u{C}\r\n\u{1F}\"\\", "é/ü"] {
      let ours = Self.written(s, .likeJSONSerialization)
      let theirs = String(decoding: try! JSONSerialization.data(withJSONObject: [s]), as: UTF8.self)
      #expect("[" + ours + "]" == theirs, "\(s)")
    }
  }

  @Test func printedJSONEscapesWhatMustNotReachATerminal() {
    #expect(Self.written("\u{1B}[31m\u{202E}x\u{200B}\u{85}\n", .displaySafe) == #""\u001b[31m\u202ex\u200b\u0085\n""#)
    var text = ""
    JSONString.write("a\u{2028}/", escaping: .displaySafe, into: &text)
    #expect(text == #""a\u2028/""#)
  }

  /// Every character of the Basic Multilingual Plane (save surrogates) and some past it, in each
  /// escaping, reads back as written with `JSONSerialization`.
  @Test(arguments: [JSONString.Escaping.required, .likeJSONSerialization, .displaySafe])
  func whatIsWrittenReadsBackAsTheString(escaping: JSONString.Escaping) throws {
    var scalars = (0..<0xD800).compactMap(Unicode.Scalar.init) + (0xE000...0xFFFF).compactMap(Unicode.Scalar.init)
    scalars += [Unicode.Scalar(0x1F600)!, Unicode.Scalar(0x10FFFF)!, Unicode.Scalar(0xE0001)!]
    for start in stride(from: 0, to: scalars.count, by: 512) {
      var s = ""
      s.unicodeScalars.append(contentsOf: scalars[start..<min(start + 512, scalars.count)])
      let json = "[" + Self.written(s, escaping) + "]"
      let read = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
      #expect(read == [s], "from U+\(String(scalars[start].value, radix: 16))")
    }
  }
}
