/// A fast 64-bit checksum for noticing damaged files (not a cryptographic hash: it guards
/// against accidents, not against someone forging a file).
///
/// The bytes are read as little-endian 64-bit words, the same on every platform, in four
/// independent lanes (so a core keeps four multiplications in flight; on large files the
/// memory is the limit, not the arithmetic). Each step of a lane, `rotl(lane + word * p2, 31)
/// * p1` (xxHash64's round), and each step of the final combination is a bijection of the
/// running value, so a change confined to one aligned 8-byte word (any single changed byte or
/// flipped bit) always changes the result; other changes go unnoticed with a chance of about
/// 2^-64. The length is mixed in last.
package enum Checksum64 {
  static let prime1: UInt64 = 0x9E37_79B9_7F4A_7C15
  static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63

  /// One round, as xxHash64's: the multiplication after the rotation spreads every changed
  /// bit over the upper part of the lane, so a change in one word is not undone by a small
  /// change in the next. A bijection of `lane` for a fixed word, and of `word` for a fixed lane.
  @inline(__always)
  static func step(_ lane: UInt64, _ word: UInt64) -> UInt64 {
    let x = lane &+ word &* prime2
    return ((x << 31) | (x >> 33)) &* prime1
  }

  /// The MurmurHash3 finaliser: a bijection that spreads every bit over the word.
  @inline(__always)
  static func mix(_ value: UInt64) -> UInt64 {
    var h = value
    h ^= h >> 33
    h = h &* 0xFF51_AFD7_ED55_8CCD
    h ^= h >> 33
    h = h &* 0xC4CE_B9FE_1A85_EC53
    h ^= h >> 33
    return h
  }

  /// The checksum of some bytes.
  package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    let n = bytes.count
    var a = seed ^ prime1, b = seed ^ prime2, c = seed ^ prime3, d = seed ^ prime4
    var i = 0
    if let base = bytes.baseAddress {
      while i + 32 <= n {
        a = step(a, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
        b = step(b, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)))
        c = step(c, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)))
        d = step(d, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)))
        i += 32
      }
      while i + 8 <= n {
        a = step(a, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
        i += 8
      }
      if i < n {
        var tail: UInt64 = 0
        for k in 0..<(n - i) { tail |= UInt64(base.load(fromByteOffset: i + k, as: UInt8.self)) << (8 * UInt64(k)) }
        b = step(b, tail)
      }
    }
    var h = mix(a)
    h = mix(h ^ b)
    h = mix(h ^ c)
    h = mix(h ^ d)
    return mix(h ^ UInt64(n))
  }

  /// The checksum of an array of bytes.
  package static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
    bytes.withUnsafeBytes { hash($0, seed: seed) }
  }

  /// The checksum of a list of texts, each with its length, so that no two different lists
  /// give the same input (`["ab", "c"]` and `["a", "bc"]` differ).
  package static func hash(fields: [String], seed: UInt64 = 0) -> UInt64 {
    var bytes: [UInt8] = []
    for field in fields {
      var length = UInt64(field.utf8.count).littleEndian
      withUnsafeBytes(of: &length) { bytes.append(contentsOf: $0) }
      bytes.append(contentsOf: field.utf8)
    }
    return hash(bytes, seed: seed)
  }

  /// Sixteen lowercase hexadecimal digits.
  package static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
