/// A 256-bit unsigned integer in four 64-bit limbs, least significant first.
///
/// P-256's field and scalar arithmetic run on it in Montgomery form (`Modulus`). The arithmetic
/// is written for speed and correctness, not for constant time: storesim signs test data with
/// test keys and is no place for a production secret.
package struct U256: Hashable, Sendable {
  package var w0: UInt64
  package var w1: UInt64
  package var w2: UInt64
  package var w3: UInt64

  @inline(__always) package init(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) {
    self.w0 = w0
    self.w1 = w1
    self.w2 = w2
    self.w3 = w3
  }

  package static let zero = U256(0, 0, 0, 0)

  /// Reads 32 big-endian bytes (shorter input is left-padded with zeros); nil past 32 bytes.
  package init?(bigEndian bytes: some Collection<UInt8>) {
    guard bytes.count <= 32 else { return nil }
    var limbs: [UInt64] = [0, 0, 0, 0]
    for (i, byte) in bytes.reversed().enumerated() { limbs[i / 8] |= UInt64(byte) << (UInt64(i % 8) * 8) }
    self.init(limbs[0], limbs[1], limbs[2], limbs[3])
  }

  /// 32 big-endian bytes.
  package var bigEndianBytes: [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    for (i, limb) in [w3, w2, w1, w0].enumerated() {
      for j in 0..<8 { out[i * 8 + j] = UInt8(truncatingIfNeeded: limb >> (UInt64(7 - j) * 8)) }
    }
    return out
  }

  @inline(__always) package var isZero: Bool { (w0 | w1 | w2 | w3) == 0 }

  /// Bit `i` (0 is the least significant).
  @inline(__always) package func bit(_ i: Int) -> Bool { (limb(i >> 6) >> UInt64(i & 63)) & 1 == 1 }

  /// The 4-bit digit at position `i` (bits 4i..4i+3).
  @inline(__always) package func nibble(_ i: Int) -> Int { Int((limb(i >> 4) >> UInt64((i & 15) * 4)) & 15) }

  @inline(__always) package func limb(_ i: Int) -> UInt64 {
    switch i {
    case 0: return w0
    case 1: return w1
    case 2: return w2
    default: return w3
    }
  }

  /// `self < other`.
  @inline(__always) package func isLess(than other: U256) -> Bool {
    if w3 != other.w3 { return w3 < other.w3 }
    if w2 != other.w2 { return w2 < other.w2 }
    if w1 != other.w1 { return w1 < other.w1 }
    return w0 < other.w0
  }

  /// `self + other` and the carry out.
  @inline(__always) package func adding(_ o: U256) -> (U256, Bool) {
    let (a, c0) = w0.addingReportingOverflow(o.w0)
    let (b1, c1a) = w1.addingReportingOverflow(o.w1)
    let (b, c1b) = b1.addingReportingOverflow(c0 ? 1 : 0)
    let (c1, c2a) = w2.addingReportingOverflow(o.w2)
    let (c, c2b) = c1.addingReportingOverflow((c1a || c1b) ? 1 : 0)
    let (d1, c3a) = w3.addingReportingOverflow(o.w3)
    let (d, c3b) = d1.addingReportingOverflow((c2a || c2b) ? 1 : 0)
    return (U256(a, b, c, d), c3a || c3b)
  }

  /// `self - other` and the borrow out.
  @inline(__always) package func subtracting(_ o: U256) -> (U256, Bool) {
    let (a, b0) = w0.subtractingReportingOverflow(o.w0)
    let (b1, b1a) = w1.subtractingReportingOverflow(o.w1)
    let (b, b1b) = b1.subtractingReportingOverflow(b0 ? 1 : 0)
    let (c1, b2a) = w2.subtractingReportingOverflow(o.w2)
    let (c, b2b) = c1.subtractingReportingOverflow((b1a || b1b) ? 1 : 0)
    let (d1, b3a) = w3.subtractingReportingOverflow(o.w3)
    let (d, b3b) = d1.subtractingReportingOverflow((b2a || b2b) ? 1 : 0)
    return (U256(a, b, c, d), b3a || b3b)
  }
}

/// An odd 256-bit modulus above 2^255 (P-256's p and n) with Montgomery arithmetic, R = 2^256.
package struct Modulus: Sendable {
  package let m: U256
  /// -m⁻¹ mod 2^64.
  let m0inv: UInt64
  /// R mod m: one in Montgomery form.
  package let one: U256
  /// R² mod m.
  let r2: U256

  init(_ m: U256) {
    self.m = m
    var inverse: UInt64 = 1
    for _ in 0..<6 { inverse = inverse &* (2 &- m.w0 &* inverse) }
    m0inv = 0 &- inverse
    // m > 2^255, so R mod m = 2^256 - m.
    let rModM = U256.zero.subtracting(m).0
    one = rModM
    var r = rModM
    for _ in 0..<256 { r = Modulus.addMod(r, r, m) }
    r2 = r
  }

  /// P-256's field prime p = 2^256 - 2^224 + 2^192 + 2^96 - 1.
  package static let p = Modulus(U256(0xFFFF_FFFF_FFFF_FFFF, 0x0000_0000_FFFF_FFFF, 0, 0xFFFF_FFFF_0000_0001))
  /// P-256's group order n.
  package static let n = Modulus(
    U256(0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000))

  @inline(__always) static func addMod(_ a: U256, _ b: U256, _ m: U256) -> U256 {
    let (s, carry) = a.adding(b)
    if carry || !s.isLess(than: m) { return s.subtracting(m).0 }
    return s
  }

  @inline(__always) package func add(_ a: U256, _ b: U256) -> U256 { Modulus.addMod(a, b, m) }

  @inline(__always) package func sub(_ a: U256, _ b: U256) -> U256 {
    let (d, borrow) = a.subtracting(b)
    return borrow ? d.adding(m).0 : d
  }

  /// `x mod m` for any 256-bit x (one subtraction: m > 2^255).
  @inline(__always) package func reduce(_ x: U256) -> U256 { x.isLess(than: m) ? x : x.subtracting(m).0 }

  /// a·b·R⁻¹ mod m (CIOS Montgomery multiplication).
  @inline(__always) package func mul(_ a: U256, _ b: U256) -> U256 {
    var t0: UInt64 = 0
    var t1: UInt64 = 0
    var t2: UInt64 = 0
    var t3: UInt64 = 0
    var t4: UInt64 = 0
    for i in 0..<4 {
      let ai = a.limb(i)
      var c: UInt64 = 0
      t0 = mac(ai, b.w0, t0, &c)
      t1 = mac(ai, b.w1, t1, &c)
      t2 = mac(ai, b.w2, t2, &c)
      t3 = mac(ai, b.w3, t3, &c)
      let (s4, o4) = t4.addingReportingOverflow(c)
      let t5: UInt64 = o4 ? 1 : 0
      let q = t0 &* m0inv
      c = 0
      _ = mac(q, m.w0, t0, &c)
      t0 = mac(q, m.w1, t1, &c)
      t1 = mac(q, m.w2, t2, &c)
      t2 = mac(q, m.w3, t3, &c)
      let (s, o) = s4.addingReportingOverflow(c)
      t3 = s
      t4 = t5 &+ (o ? 1 : 0)
    }
    let t = U256(t0, t1, t2, t3)
    if t4 != 0 || !t.isLess(than: m) { return t.subtracting(m).0 }
    return t
  }

  @inline(__always) package func sqr(_ a: U256) -> U256 { mul(a, a) }

  /// Into Montgomery form.
  @inline(__always) package func toMontgomery(_ a: U256) -> U256 { mul(a, r2) }

  /// Out of Montgomery form.
  @inline(__always) package func fromMontgomery(_ a: U256) -> U256 { mul(a, U256(1, 0, 0, 0)) }

  /// a⁻¹ in Montgomery form, for a in Montgomery form (Fermat: a^(m-2)); zero for zero.
  package func inverse(_ a: U256) -> U256 {
    let e = m.subtracting(U256(2, 0, 0, 0)).0
    var result = one
    for i in stride(from: 255, through: 0, by: -1) {
      result = sqr(result)
      if e.bit(i) { result = mul(result, a) }
    }
    return result
  }

  /// a·b mod m for plain (not Montgomery) a and b.
  package func mulPlain(_ a: U256, _ b: U256) -> U256 { mul(mul(a, b), r2) }

  /// a⁻¹ mod m for a plain a.
  package func inversePlain(_ a: U256) -> U256 { fromMontgomery(inverse(toMontgomery(a))) }
}

/// a·b + c + carry: returns the low word and leaves the high word in carry (cannot overflow).
@inline(__always) private func mac(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ carry: inout UInt64) -> UInt64 {
  let (hi, lo) = a.multipliedFullWidth(by: b)
  let (s1, o1) = lo.addingReportingOverflow(c)
  let (s2, o2) = s1.addingReportingOverflow(carry)
  carry = hi &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
  return s2
}
