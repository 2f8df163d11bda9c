import Foundation
import StoreSimCrypto

/// An app receipt in Apple's form: a PKCS#7 signed-data container (BER: Xcode's use indefinite
/// lengths and an octet string in pieces) whose content is the receipt, a set of attributes
/// `{type, version, value}` (Apple's "Receipt Fields"). Read without checking its signature
/// (it is Apple's), into verifyReceipt's names, so `ReceiptReader` reads it as it reads
/// verifyReceipt's `receipt`.
///
/// The receipt's attributes read: 2 the bundle id, 18 the app's original purchase date, 17 an
/// in-app purchase; an in-app purchase's: 1701 quantity, 1702 product id, 1703 transaction id,
/// 1704 purchase date, 1705 original transaction id, 1706 original purchase date, 1708 the
/// subscription's expiration date, 1711 web order line item id, 1712 cancellation date.
enum AppReceiptContainer {
  /// What went wrong reading a container.
  struct Malformed: Error {
    let message: String
  }

  /// One BER element: its identifier octet and its content (the element's children, for a
  /// constructed one).
  struct Element {
    var tag: UInt8
    var bytes: ArraySlice<UInt8>
    var children: [Element]
    var isConstructed: Bool { tag & 0x20 != 0 }

    /// An OCTET STRING's bytes, joined when it came in pieces (a constructed one).
    var octets: [UInt8] { isConstructed ? children.flatMap(\.octets) : Array(bytes) }
  }

  /// Reads one element at `at`, returning it and where the next begins. Lengths may be
  /// definite (short or long form) or, for a constructed element, indefinite (to an end of
  /// contents).
  static func element(_ data: [UInt8], at start: Int, depth: Int = 0) throws(Malformed) -> (Element, Int) {
    guard depth < 32 else { throw Malformed(message: "nests too deep") }
    guard start + 2 <= data.count else { throw Malformed(message: "ends inside an element") }
    let tag = data[start]
    guard tag & 0x1F != 0x1F else { throw Malformed(message: "has a tag number past 30") }
    var i = start + 1
    let first = data[i]
    i += 1
    var end: Int?
    if first & 0x80 == 0 {
      end = i + Int(first)
    } else if first != 0x80 {
      let count = Int(first & 0x7F)
      guard count <= 4, i + count <= data.count else { throw Malformed(message: "has a length past 4 bytes") }
      var length = 0
      for b in data[i..<i + count] { length = length << 8 | Int(b) }
      i += count
      end = i + length
    }
    guard let end else {
      // Indefinite: children until 00 00.
      guard tag & 0x20 != 0 else { throw Malformed(message: "has an indefinite length on a primitive element") }
      var children: [Element] = []
      while true {
        guard i + 2 <= data.count else { throw Malformed(message: "has no end of contents") }
        if data[i] == 0 && data[i + 1] == 0 {
          return (Element(tag: tag, bytes: data[start..<i], children: children), i + 2)
        }
        let (child, next) = try element(data, at: i, depth: depth + 1)
        children.append(child)
        i = next
      }
    }
    guard end <= data.count else { throw Malformed(message: "has a length past its end") }
    var children: [Element] = []
    if tag & 0x20 != 0 {
      var j = i
      while j < end {
        let (child, next) = try element(data, at: j, depth: depth + 1)
        guard next <= end else { throw Malformed(message: "has an element past its parent's end") }
        children.append(child)
        j = next
      }
    }
    return (Element(tag: tag, bytes: data[i..<end], children: children), end)
  }

  /// The DER of OID 1.2.840.113549.1.7.2 (PKCS#7 signed data).
  static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

  /// Whether `data` opens as a PKCS#7 signed-data container (a SEQUENCE whose first element is
  /// the signed-data OID), whatever follows.
  static func isContainer(_ data: [UInt8]) -> Bool {
    guard data.count > 2, data[0] == 0x30 else { return false }
    var i = 2
    if data[1] & 0x80 != 0 && data[1] != 0x80 { i += Int(data[1] & 0x7F) }
    let oid = [0x06, UInt8(signedDataOID.count)] + signedDataOID
    return data.count >= i + oid.count && Array(data[i..<i + oid.count]) == oid
  }

  /// The receipt in verifyReceipt's JSON: `{"receipt": {"bundle_id", "original_purchase_date_ms",
  /// "in_app": [...]}}`.
  static func receipt(_ data: [UInt8]) throws(Malformed) -> [UInt8] {
    // An app's receipt is kilobytes; the tree read here costs tens of times its size.
    guard data.count <= 4 << 20 else { throw Malformed(message: "is larger than 4 MiB") }
    let (top, _) = try element(data, at: 0)
    guard top.tag == 0x30, top.children.count >= 2, Array(top.children[0].bytes) == signedDataOID,
      let signed = top.children[1].children.first, signed.tag == 0x30, signed.children.count >= 3
    else { throw Malformed(message: "is not PKCS#7 signed data") }
    // SignedData: version, digest algorithms, the content info { data OID, [0] { OCTET STRING } }.
    let content = signed.children[2]
    guard content.tag == 0x30, content.children.count >= 2, let octets = content.children[1].children.first,
      octets.tag == 0x04 || octets.tag == 0x24
    else { throw Malformed(message: "has no receipt in its content") }
    var receipt: [String: JSONOutput] = [:]
    var purchases: [JSONOutput] = []
    for (type, value) in try attributes(octets.octets) {
      switch type {
      case 2: receipt["bundle_id"] = try text(value).map(JSONOutput.string)
      case 18: receipt["original_purchase_date_ms"] = try milliseconds(value)
      case 17: purchases.append(try purchase(value))
      default: break
      }
    }
    receipt["in_app"] = .array(purchases)
    return Array(JSONOutput.object(["receipt": .object(receipt)]).rendered(pretty: false).utf8)
  }

  /// One in-app purchase's attributes, in verifyReceipt's names.
  private static func purchase(_ bytes: [UInt8]) throws(Malformed) -> JSONOutput {
    var entry: [String: JSONOutput] = [:]
    for (type, value) in try attributes(bytes) {
      switch type {
      case 1701: entry["quantity"] = try integer(value).map { .string(String($0)) }
      case 1702: entry["product_id"] = try text(value).map(JSONOutput.string)
      case 1703: entry["transaction_id"] = try text(value).map(JSONOutput.string)
      case 1704: entry["purchase_date_ms"] = try milliseconds(value)
      case 1705: entry["original_transaction_id"] = try text(value).map(JSONOutput.string)
      case 1706: entry["original_purchase_date_ms"] = try milliseconds(value)
      case 1708: entry["expires_date_ms"] = try milliseconds(value)
      case 1711: entry["web_order_line_item_id"] = try integer(value).map { .string(String($0)) }
      case 1712: entry["cancellation_date_ms"] = try milliseconds(value)
      default: break
      }
    }
    return .object(entry)
  }

  /// A SET of `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
  private static func attributes(_ bytes: [UInt8]) throws(Malformed) -> [(Int, [UInt8])] {
    let (set, _) = try element(bytes, at: 0)
    guard set.tag == 0x31 else { throw Malformed(message: "has a receipt that is not a set of attributes") }
    var out: [(Int, [UInt8])] = []
    for a in set.children {
      guard a.tag == 0x30, a.children.count == 3, a.children[0].tag == 0x02,
        a.children[2].tag == 0x04 || a.children[2].tag == 0x24,
        let type = smallInteger(a.children[0].bytes)
      else { throw Malformed(message: "has an attribute that is not {type, version, value}") }
      out.append((type, a.children[2].octets))
    }
    return out
  }

  private static func smallInteger(_ bytes: ArraySlice<UInt8>) -> Int? {
    guard !bytes.isEmpty, bytes.count <= 4, bytes.first! & 0x80 == 0 else { return nil }
    return bytes.reduce(0) { $0 << 8 | Int($1) }
  }

  /// An attribute's value that is an INTEGER (up to 8 bytes, not negative).
  private static func integer(_ value: [UInt8]) throws(Malformed) -> UInt64? {
    guard !value.isEmpty else { return nil }
    let (e, _) = try element(value, at: 0)
    guard e.tag == 0x02, e.bytes.count <= 8 || (e.bytes.count == 9 && e.bytes.first == 0),
      e.bytes.first.map({ $0 & 0x80 == 0 }) ?? false
    else {
      throw Malformed(message: "has an attribute that is not a whole number")
    }
    return e.bytes.reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// An attribute's value that is a UTF8String or an IA5String; empty is none.
  private static func text(_ value: [UInt8]) throws(Malformed) -> String? {
    guard !value.isEmpty else { return nil }
    let (e, _) = try element(value, at: 0)
    guard e.tag == 0x0C || e.tag == 0x16 else { throw Malformed(message: "has an attribute that is not text") }
    return e.bytes.isEmpty ? nil : String(decoding: e.bytes, as: UTF8.self)
  }

  /// An attribute's value that is an RFC 3339 date (`2023-10-19T01:45:36Z`), as milliseconds.
  private static func milliseconds(_ value: [UInt8]) throws(Malformed) -> JSONOutput? {
    guard let text = try text(value) else { return nil }
    let digits = Array(text.utf8)
    func number(_ r: Range<Int>) -> Int64? {
      guard r.upperBound <= digits.count else { return nil }
      var n: Int64 = 0
      for d in digits[r] {
        guard (48...57).contains(d) else { return nil }
        n = n * 10 + Int64(d - 48)
      }
      return n
    }
    let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
    guard digits.count == 20, digits.last == UInt8(ascii: "Z"),
      separators.allSatisfy({ digits[$0.0] == $0.1.asciiValue }), let year = number(0..<4), let month = number(5..<7),
      let day = number(8..<10), let hour = number(11..<13), let minute = number(14..<16),
      let second = number(17..<19), (1...12).contains(month), day >= 1,
      day <= CivilDays.days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1)
        - CivilDays.days(year: year, month: month, day: 1),
      hour < 24, minute < 60, second < 61
    else { throw Malformed(message: "has a date that is not RFC 3339 (\(text))") }
    let days = CivilDays.days(year: year, month: month, day: day)
    return .string(String(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000))
  }
}
