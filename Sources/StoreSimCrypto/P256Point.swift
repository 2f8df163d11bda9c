/// Points of P-256 (y² = x³ - 3x + b over p) in Jacobian coordinates, field elements in
/// Montgomery form; Z = 0 is the point at infinity.
package struct P256Point: Sendable {
  var x: U256
  var y: U256
  var z: U256

  static let infinity = P256Point(x: Modulus.p.one, y: Modulus.p.one, z: .zero)

  /// The curve's b.
  static let b = U256(0x3BCE_3C3E_27D2_604B, 0x651D_06B0_CC53_B0F6, 0xB3EB_BD55_7698_86BC, 0x5AC6_35D8_AA3A_93E7)
  /// The base point G (affine, plain).
  static let gx = U256(0xF4A1_3945_D898_C296, 0x7703_7D81_2DEB_33A0, 0xF8BC_E6E5_63A4_40F2, 0x6B17_D1F2_E12C_4247)
  static let gy = U256(0xCBB6_4068_37BF_51F5, 0x2BCE_3357_6B31_5ECE, 0x8EE7_EB4A_7C0F_9E16, 0x4FE3_42E2_FE1A_7F9B)

  /// The affine point (x, y), plain coordinates; nil unless it is on the curve.
  package init?(affineX: U256, y: U256) {
    let f = Modulus.p
    guard affineX.isLess(than: f.m), y.isLess(than: f.m) else { return nil }
    let mx = f.toMontgomery(affineX)
    let my = f.toMontgomery(y)
    // y² = x³ - 3x + b
    let rhs = f.add(f.sub(f.mul(f.sqr(mx), mx), f.add(f.add(mx, mx), mx)), f.toMontgomery(P256Point.b))
    guard f.sqr(my) == rhs else { return nil }
    self.init(x: mx, y: my, z: f.one)
  }

  init(x: U256, y: U256, z: U256) {
    self.x = x
    self.y = y
    self.z = z
  }

  var isInfinity: Bool { z.isZero }

  /// Plain affine coordinates; nil at infinity.
  package var affine: (x: U256, y: U256)? {
    guard !isInfinity else { return nil }
    let f = Modulus.p
    let zi = f.inverse(z)
    let zi2 = f.sqr(zi)
    return (f.fromMontgomery(f.mul(x, zi2)), f.fromMontgomery(f.mul(y, f.mul(zi2, zi))))
  }

  /// 2P (dbl-2001-b, a = -3).
  func doubled() -> P256Point {
    if isInfinity || y.isZero { return .infinity }
    let f = Modulus.p
    let delta = f.sqr(z)
    let gamma = f.sqr(y)
    let beta = f.mul(x, gamma)
    let t = f.mul(f.sub(x, delta), f.add(x, delta))
    let alpha = f.add(f.add(t, t), t)
    let beta4 = f.add(f.add(beta, beta), f.add(beta, beta))
    let x3 = f.sub(f.sqr(alpha), f.add(beta4, beta4))
    let yz = f.add(y, z)
    let z3 = f.sub(f.sub(f.sqr(yz), gamma), delta)
    let g2 = f.sqr(gamma)
    let g8 = f.add(f.add(f.add(g2, g2), f.add(g2, g2)), f.add(f.add(g2, g2), f.add(g2, g2)))
    let y3 = f.sub(f.mul(alpha, f.sub(beta4, x3)), g8)
    return P256Point(x: x3, y: y3, z: z3)
  }

  /// P + Q (add-2007-bl).
  func adding(_ q: P256Point) -> P256Point {
    if isInfinity { return q }
    if q.isInfinity { return self }
    let f = Modulus.p
    let z1z1 = f.sqr(z)
    let z2z2 = f.sqr(q.z)
    let u1 = f.mul(x, z2z2)
    let u2 = f.mul(q.x, z1z1)
    let s1 = f.mul(f.mul(y, q.z), z2z2)
    let s2 = f.mul(f.mul(q.y, z), z1z1)
    let h = f.sub(u2, u1)
    let rr = f.sub(s2, s1)
    if h.isZero { return rr.isZero ? doubled() : .infinity }
    let h2 = f.add(h, h)
    let i = f.sqr(h2)
    let j = f.mul(h, i)
    let r = f.add(rr, rr)
    let v = f.mul(u1, i)
    let x3 = f.sub(f.sub(f.sqr(r), j), f.add(v, v))
    let s1j = f.mul(s1, j)
    let y3 = f.sub(f.mul(r, f.sub(v, x3)), f.add(s1j, s1j))
    let zz = f.add(z, q.z)
    let z3 = f.mul(f.sub(f.sub(f.sqr(zz), z1z1), z2z2), h)
    return P256Point(x: x3, y: y3, z: z3)
  }

  /// P + (qx, qy) for an affine Q in Montgomery form (madd-2007-bl).
  func adding(affineX qx: U256, y qy: U256) -> P256Point {
    let f = Modulus.p
    if isInfinity { return P256Point(x: qx, y: qy, z: f.one) }
    let z1z1 = f.sqr(z)
    let u2 = f.mul(qx, z1z1)
    let s2 = f.mul(f.mul(qy, z), z1z1)
    let h = f.sub(u2, x)
    let rr = f.sub(s2, y)
    if h.isZero { return rr.isZero ? doubled() : .infinity }
    let hh = f.sqr(h)
    let i = f.add(f.add(hh, hh), f.add(hh, hh))
    let j = f.mul(h, i)
    let r = f.add(rr, rr)
    let v = f.mul(x, i)
    let x3 = f.sub(f.sub(f.sqr(r), j), f.add(v, v))
    let yj = f.mul(y, j)
    let y3 = f.sub(f.mul(r, f.sub(v, x3)), f.add(yj, yj))
    let zh = f.add(z, h)
    let z3 = f.sub(f.sub(f.sqr(zh), z1z1), hh)
    return P256Point(x: x3, y: y3, z: z3)
  }

  /// k·P (4-bit fixed window).
  func multiplied(by k: U256) -> P256Point {
    var table = [P256Point](repeating: .infinity, count: 16)
    table[1] = self
    for i in 2..<16 { table[i] = i % 2 == 0 ? table[i / 2].doubled() : table[i - 1].adding(self) }
    var result = P256Point.infinity
    for i in stride(from: 63, through: 0, by: -1) {
      result = result.doubled().doubled().doubled().doubled()
      let digit = k.nibble(i)
      if digit != 0 { result = result.adding(table[digit]) }
    }
    return result
  }

  /// k·G from the precomputed table: one mixed addition per 4-bit digit, no doublings.
  package static func baseMultiple(_ k: U256) -> P256Point {
    let table = BaseTable.shared
    var result = P256Point.infinity
    for i in 0..<64 {
      let digit = k.nibble(i)
      if digit != 0 {
        let entry = table.entries[i * 15 + digit - 1]
        result = result.adding(affineX: entry.x, y: entry.y)
      }
    }
    return result
  }

  /// u1·G + u2·self (verification).
  func linearCombination(baseScalar u1: U256, scalar u2: U256) -> P256Point {
    P256Point.baseMultiple(u1).adding(multiplied(by: u2))
  }
}

/// d·2^(4i)·G for every window i < 64 and digit d in 1…15, affine, Montgomery form: 960 points
/// made once (with one field inversion for all of them) when a process first signs.
private final class BaseTable: Sendable {
  let entries: [(x: U256, y: U256)]

  static let shared = BaseTable()

  private init() {
    let f = Modulus.p
    var jacobian = [P256Point]()
    jacobian.reserveCapacity(960)
    var base = P256Point(x: f.toMontgomery(P256Point.gx), y: f.toMontgomery(P256Point.gy), z: f.one)
    for _ in 0..<64 {
      var multiple = base
      for _ in 1...15 {
        jacobian.append(multiple)
        multiple = multiple.adding(base)
      }
      base = base.doubled().doubled().doubled().doubled()
    }
    // Batch inversion of every Z (Montgomery's trick).
    var prefix = [U256](repeating: f.one, count: jacobian.count)
    var running = f.one
    for (i, p) in jacobian.enumerated() {
      prefix[i] = running
      running = f.mul(running, p.z)
    }
    var inverse = f.inverse(running)
    var out = [(x: U256, y: U256)](repeating: (.zero, .zero), count: jacobian.count)
    for i in stride(from: jacobian.count - 1, through: 0, by: -1) {
      let zi = f.mul(inverse, prefix[i])
      inverse = f.mul(inverse, jacobian[i].z)
      let zi2 = f.sqr(zi)
      out[i] = (f.mul(jacobian[i].x, zi2), f.mul(jacobian[i].y, f.mul(zi2, zi)))
    }
    entries = out
  }
}
