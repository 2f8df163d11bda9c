/// The little of ASN.1 DER (X.690) that keys, certificates and ECDSA signatures need.
package enum DER {
  /// Tags used here.
  package enum Tag: UInt8 {
    case boolean = 0x01
    case integer = 0x02
    case bitString = 0x03
    case octetString = 0x04
    case null = 0x05
    case objectIdentifier = 0x06
    case utf8String = 0x0C
    case printableString = 0x13
    case utcTime = 0x17
    case generalizedTime = 0x18
    case sequence = 0x30
    case set = 0x31
    case context0 = 0xA0
    case context1 = 0xA1
    case context3 = 0xA3
    case implicit0 = 0x80
  }

  /// Why DER could not be read.
  package struct Failure: Error, Equatable, Sendable {
    package let message: String
  }

  // MARK: Writing

  /// Tag, definite length, contents.
  package static func element(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
    var out = [tag]
    let n = contents.count
    if n < 0x80 {
      out.append(UInt8(n))
    } else {
      var lengthBytes = [UInt8]()
      var rest = n
      while rest > 0 {
        lengthBytes.insert(UInt8(rest & 0xFF), at: 0)
        rest >>= 8
      }
      out.append(0x80 | UInt8(lengthBytes.count))
      out += lengthBytes
    }
    return out + contents
  }

  package static func element(_ tag: Tag, _ contents: [UInt8]) -> [UInt8] { element(tag.rawValue, contents) }

  package static func sequence(_ items: [[UInt8]]) -> [UInt8] { element(.sequence, items.flatMap { $0 }) }

  /// A non-negative INTEGER from big-endian magnitude bytes (minimal, with a 0 byte if the top bit is set).
  package static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
    var bytes = Array(magnitude.drop { $0 == 0 })
    if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return element(.integer, bytes)
  }

  package static func integer(_ value: Int) -> [UInt8] {
    unsignedInteger((0..<8).map { UInt8(truncatingIfNeeded: value >> ((7 - $0) * 8)) })
  }

  /// An OBJECT IDENTIFIER from its dotted form (a constant of this file; trapped if malformed).
  package static func oid(_ dotted: String) -> [UInt8] {
    let arcs = dotted.split(separator: ".").map { UInt64($0)! }
    var body = [UInt8(arcs[0] * 40 + arcs[1])]
    for arc in arcs.dropFirst(2) {
      var chunk = [UInt8(arc & 0x7F)]
      var rest = arc >> 7
      while rest > 0 {
        chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
        rest >>= 7
      }
      body += chunk
    }
    return element(.objectIdentifier, body)
  }

  /// A BIT STRING with no unused bits.
  package static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(.bitString, [0] + bytes) }

  package static func octetString(_ bytes: [UInt8]) -> [UInt8] { element(.octetString, bytes) }

  package static let null: [UInt8] = [0x05, 0x00]

  // MARK: Reading

  /// Reads elements one after another from bytes, strictly (definite, minimal lengths).
  package struct Reader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    package init(_ bytes: [UInt8]) {
      self.bytes = bytes
      offset = 0
      end = bytes.count
    }

    init(bytes: [UInt8], range: Range<Int>) {
      self.bytes = bytes
      offset = range.lowerBound
      end = range.upperBound
    }

    package var isAtEnd: Bool { offset >= end }

    /// The next element's tag, without reading it.
    package var peekTag: UInt8? { offset < end ? bytes[offset] : nil }

    /// The next element: its tag, a reader of its contents and the range of the whole element.
    package mutating func readAny() throws(Failure) -> (tag: UInt8, contents: Reader, whole: Range<Int>) {
      let start = offset
      guard offset + 2 <= end else { throw Failure(message: "truncated element") }
      let tag = bytes[offset]
      guard tag & 0x1F != 0x1F else { throw Failure(message: "multi-byte tags are not supported") }
      var length = Int(bytes[offset + 1])
      offset += 2
      if length & 0x80 != 0 {
        let count = length & 0x7F
        guard count >= 1, count <= 4, offset + count <= end else { throw Failure(message: "bad length") }
        length = 0
        for i in 0..<count { length = length << 8 | Int(bytes[offset + i]) }
        guard bytes[offset] != 0, length >= 0x80 else { throw Failure(message: "length not minimal") }
        offset += count
      }
      guard length <= end - offset else { throw Failure(message: "length past the end") }
      let contents = Reader(bytes: bytes, range: offset..<(offset + length))
      offset += length
      return (tag, contents, start..<offset)
    }

    /// The next element, which must have `tag`; a reader of its contents.
    package mutating func read(_ tag: Tag) throws(Failure) -> Reader {
      let (found, contents, _) = try readAny()
      guard found == tag.rawValue else { throw Failure(message: "expected tag \(tag.rawValue), found \(found)") }
      return contents
    }

    /// The bytes of the rest of this reader.
    package var remainingBytes: [UInt8] { Array(bytes[offset..<end]) }

    /// The contents of the next element, which must have `tag`.
    package mutating func readBytes(_ tag: Tag) throws(Failure) -> [UInt8] { try read(tag).remainingBytes }

    /// A non-negative INTEGER's magnitude (leading zeros removed).
    package mutating func readUnsignedInteger() throws(Failure) -> [UInt8] {
      let body = try readBytes(.integer)
      guard let first = body.first else { throw Failure(message: "empty integer") }
      guard first & 0x80 == 0 else { throw Failure(message: "negative integer") }
      if body.count > 1 && first == 0 && body[1] & 0x80 == 0 { throw Failure(message: "integer not minimal") }
      return Array(body.drop { $0 == 0 })
    }

    /// A small non-negative INTEGER.
    package mutating func readSmallInteger() throws(Failure) -> Int {
      let magnitude = try readUnsignedInteger()
      guard magnitude.count <= 4 else { throw Failure(message: "integer too large") }
      return magnitude.reduce(0) { $0 << 8 | Int($1) }
    }

    /// An OBJECT IDENTIFIER in dotted form.
    package mutating func readOID() throws(Failure) -> String {
      let body = try readBytes(.objectIdentifier)
      guard let first = body.first, first & 0x80 == 0, body.last! & 0x80 == 0 else {
        throw Failure(message: "bad object identifier")
      }
      var arcs = [first < 80 ? UInt64(first / 40) : 2, first < 80 ? UInt64(first % 40) : UInt64(first) - 80]
      var value: UInt64 = 0
      for byte in body.dropFirst() {
        guard value < (1 << 56) else { throw Failure(message: "object identifier arc too large") }
        value = value << 7 | UInt64(byte & 0x7F)
        if byte & 0x80 == 0 {
          arcs.append(value)
          value = 0
        }
      }
      return arcs.map(String.init).joined(separator: ".")
    }

    /// A BIT STRING with no unused bits.
    package mutating func readBitString() throws(Failure) -> [UInt8] {
      let body = try readBytes(.bitString)
      guard body.first == 0 else { throw Failure(message: "bit string with unused bits") }
      return Array(body.dropFirst())
    }
  }
}
