import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimSession

/// Session files of older versions (2 without checksums, 1 in `Codable` form) and the strict
/// reader on its own.
extension SessionFileMutationTests {
  /// The busy session as version 2 wrote it: the header without checksums.
  static func versionTwo() throws -> [UInt8] {
    let header: [String: Any] = [
      "format": SessionDocument.formatName, "version": 2, "codec": StateCodec.name,
      "configurationPath": document.configurationPath, "configurationDigest": document.configurationDigest,
    ]
    var data = Array(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
    data.append(0x0A)
    data += try StateCodec.encode(document.state, deliveriesAsRows: false)
    data.append(0x0A)
    return data
  }

  @Test func versionOneAndTwoFilesStillLoad() throws {
    let folder = try Folder()
    try Data(try Self.versionTwo()).write(to: URL(fileURLWithPath: folder.file))
    #expect(Self.check(folder.file, "version 2") == [.loadedAsSaved, .loadedAsSaved])
    #expect(try SessionFile.read(folder.file, shownAs: Self.shownAs).version == 2)

    var v1 = Self.document
    v1.version = 1
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .millisecondsSince1970
    try encoder.encode(v1).write(to: URL(fileURLWithPath: folder.file))
    // Version 1 is one JSON object: it is always read whole, outbox included.
    for skipping in [false, true] {
      let read = try SessionFile.read(folder.file, shownAs: Self.shownAs, skippingNotifications: skipping)
      let same = read.state == Self.document.state
      #expect(same, "version 1: \(Self.difference(read.state, Self.document.state))")
      #expect(read.configurationPath == Self.document.configurationPath && read.version == 1)
    }

    // Saved again, a session is written as the current version.
    try SessionFile.write(
      try SessionFile.read(folder.file, shownAs: Self.shownAs), to: SessionLocation(resolvedFile: folder.file))
    #expect(try SessionFile.read(folder.file, shownAs: Self.shownAs).version == SessionDocument.currentVersion)
  }

  /// A transaction's trailing `modificationOrder` written as `[0]` (as a hand edit or an older
  /// writer may leave it) reads as absent, so the session saved again reads back the same (the
  /// session fuzz target found a file whose `[0]` was dropped on writing and the state changed).
  @Test func aZeroTrailingModificationOrderReadsAsAbsentAndWritesBackTheSame() throws {
    var text = String(decoding: try Self.versionTwo(), as: UTF8.self)
    let trailing = try #require(text.range(of: ",[1]]"))
    text.replaceSubrange(trailing, with: ",[0]]")
    for skipping in [false, true] {
      let (header, state) = try SessionFileFormat.decode(Data(text.utf8), skippingNotifications: skipping)
      let again = try SessionFileFormat.encode(
        state, configurationPath: header.configurationPath, configurationDigest: header.configurationDigest)
      let read = try SessionFileFormat.decode(again, skippingNotifications: skipping)
      #expect(read.1 == state, "\(Self.difference(read.1, state))")
    }
  }

  /// A transaction's named values (type, ownership, reason) are matched on their bytes when
  /// written plainly; written with a JSON escape they read the same, and a value no type has is
  /// refused as before.
  @Test func namedValuesReadTheSameWithEscapesAndUnknownOnesAreRefused() throws {
    let text = String(decoding: try Self.versionTwo(), as: UTF8.self)
    let plain = try SessionFileFormat.decode(Data(text.utf8)).1
    #expect(plain == Self.document.state)
    // Only the customers' rows change (the base holds the catalogue's product types too, and
    // empty `customers` and `notifications` of its own before the document's).
    let rows = try #require(text.range(of: #""customers":"#, options: .backwards)).upperBound
    let outbox = try #require(text.range(of: #","notifications":"#, options: .backwards)).lowerBound
    func replacing(_ old: String, with new: String) -> String {
      String(text[..<rows]) + text[rows..<outbox].replacingOccurrences(of: old, with: new) + text[outbox...]
    }
    let cases = [
      ("\"Auto-Renewable Subscription\"", #""Auto-Renewable Subscriptio\u006e""#),
      ("\"PURCHASED\"", #""PURCHASE\u0044""#), ("\"RENEWAL\"", #""\u0052ENEWAL""#),
    ]
    for (name, escaped) in cases {
      let changed = replacing(name, with: escaped)
      #expect(changed != text, "\(name) not found")
      let read = try SessionFileFormat.decode(Data(changed.utf8)).1
      #expect(read == plain, "\(name) escaped: \(Self.difference(read, plain))")
      let unknown = replacing(name, with: String(name.dropLast()) + "X\"")
      #expect(throws: SessionFileFormat.Failure.self) { try SessionFileFormat.decode(Data(unknown.utf8)) }
    }
  }

  /// Without checksums (version 2), the strict reader alone refuses the issue's changes and
  /// every other broken bit of syntax.
  @Test func theStrictReaderRefusesBrokenSyntaxInVersionTwoFiles() throws {
    let folder = try Folder()
    let bytes = try Self.versionTwo()
    let start = try #require(bytes.firstIndex(of: 0x0A)) + 1
    var broken: [(String, [UInt8])] = []
    func replacing(_ old: String, _ new: String, at p: Int) -> [UInt8] {
      Array(bytes[..<p]) + Array(new.utf8) + Array(bytes[(p + old.utf8.count)...])
    }
    for word in ["false", "true", "null"] {
      for (k, p) in Self.occurrences(of: word, in: bytes).enumerated() where p > start && k % 16 == 0 {
        broken.append(("\(word) at \(p) as fXYZQ", replacing(word, "fXYZQ", at: p)))
        let w = Array(word.utf8)
        broken.append(
          (
            "\(word) at \(p) misspelt",
            replacing(word, String(decoding: w.dropLast() + [w.last! ^ 0x01], as: UTF8.self), at: p)
          ))
        broken.append(("\(word) at \(p) cut short", replacing(word, String(word.dropLast()), at: p)))
      }
    }
    for (k, p) in Self.structuralCommas(in: bytes, from: start).enumerated() where k % 15 == 0 {
      var m = bytes
      m.remove(at: p)
      broken.append(("comma at \(p) removed", m))
      m = bytes
      m[p] = UInt8(ascii: " ")
      broken.append(("comma at \(p) as a space", m))
    }
    for (k, p) in Self.structural(":[]{}", in: bytes, from: start).enumerated() where k % 17 == 0 {
      var m = bytes
      m.remove(at: p)
      broken.append(("'\(Character(Unicode.Scalar(bytes[p])))' at \(p) removed", m))
    }
    let text = String(decoding: bytes, as: UTF8.self)
    func edit(_ name: String, _ old: String, _ new: String) {
      let changed = text.replacingOccurrences(of: old, with: new)
      #expect(changed != text, "\(name): pattern not found")
      broken.append((name, Array(changed.utf8)))
    }
    edit("unknown key in base", #""deliveryURL":"#, #""deliveryURX":"#)
    edit("duplicate key in base", #""deliveryURL":"#, #""deliveryURL":"x","deliveryURL":"#)
    #expect(Self.document.state.serverRecords == nil)
    edit("null for an absent optional in base", #""base":{"bundleID":"#, #""base":{"serverRecords":null,"bundleID":"#)
    func editNumber(_ name: String, _ key: String, _ new: String) {
      let pattern = try! Regex("\"\(key)\":[0-9]+")
      let changed = text.replacing(pattern, with: "\"\(key)\":\(new)", maxReplacements: 1)
      #expect(changed != text, "\(name): pattern not found")
      broken.append((name, Array(changed.utf8)))
    }
    editNumber("a fraction for an integer in base", "nextRequestNumber", "2.5")
    editNumber("a date no Double holds in base", "now", "1e999")
    editNumber("a date that would be written otherwise in base", "now", "1767225600000.00001")
    edit("unknown top-level key", #""customers":[["#, #""customerz":[["#)
    edit("outbox missing", #","notifications":[["#, #","notifications":[]}, "x":[["#)
    edit("trailing garbage", "]]}\n", "]]} x\n")
    edit("second document", "]]}\n", "]]}{}\n")
    edit("escape", #"\\"#, #"\q"#)
    edit("decimal with garbage", #""9.99""#, #""9.99x""#)
    edit("unknown codec", #"{"codec":"compact-1","base""#, #"{"codec":"compact-2","base""#)
    for (k, p) in Self.occurrences(of: ",1", in: bytes).enumerated() where p > start && k % 25 == 0 {
      broken.append(("leading zero at \(p)", replacing(",1", ",01", at: p)))
    }
    #expect(broken.count > 150)
    for (what, mutated) in broken {
      try Data(mutated).write(to: URL(fileURLWithPath: folder.file))
      // Skipping the outbox, a change inside it goes unread: only full reads must refuse.
      #expect(Self.check(folder.file, what).first == .refused, "\(what) loaded")
    }
  }

  /// The `Codable` part compares numbers by value, as when it was checked by encoding it
  /// again: an integer written `2.0` or `2e0` reads as 2.
  @Test func numbersInTheBaseAreReadByValue() throws {
    let folder = try Folder()
    let text = String(decoding: try Self.versionTwo(), as: UTF8.self)
    let number = try #require(text.firstRange(of: #/"nextRequestNumber":(\d+)/#))
    let value = text[number].split(separator: ":")[1]
    for written in ["\(value).0", "\(value)e0", "\(value)0e-1"] {
      let changed = text.replacingCharacters(in: number, with: "\"nextRequestNumber\":\(written)")
      try changed.write(toFile: folder.file, atomically: true, encoding: .utf8)
      #expect(Self.check(folder.file, written) == [.loadedAsSaved, .loadedAsSaved], "\(written)")
    }
  }
}
