/// The population's dice: SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014), written out here so that a seed gives the same numbers on
/// every machine and every Swift release (the standard library's generators and its
/// `random(in:using:)` promise neither).
///
/// It lives in the CLI, not the core: the core's purity rule (`.ci/run` greps `Sources/StoreSim`)
/// keeps anything that looks like randomness out of the engine, and the engine needs none:
/// `populate` decides what each customer does and then asks the `Store` to do it.
///
/// Each customer rolls their own dice, seeded from the run's seed and their number alone, so a
/// customer lives the same life in a shard as in the whole run.
struct PopulationDice {
  private var state: UInt64

  /// Dice for customer `number` of a run seeded `seed`.
  init(seed: UInt64, customer number: Int) {
    var mixer = seed ^ 0x5851_F42D_4C95_7F2D
    state = Self.mix(&mixer) ^ (UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
    _ = next()
  }

  /// The next 64 bits.
  mutating func next() -> UInt64 {
    Self.mix(&state)
  }

  private static func mix(_ state: inout UInt64) -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in 0..<bound, without modulo bias worth the name (bound is far below 2^32).
  mutating func below(_ bound: Int) -> Int {
    precondition(bound > 0)
    return Int(((next() >> 32) &* UInt64(bound)) >> 32)
  }

  /// True with probability `percent` / 100 (percent in 0...100, thousandths honoured).
  mutating func chance(_ percent: Double) -> Bool {
    if percent <= 0 { return false }
    if percent >= 100 { return true }
    // Compared in integers: the same answer whatever the floating-point unit.
    let threshold = UInt64((percent * 1000).rounded())
    return (next() >> 11) % 100_000 < threshold
  }

  /// A duration in milliseconds in `low..<high`.
  mutating func milliseconds(_ low: Int64, _ high: Int64) -> Int64 {
    guard high > low else { return low }
    let span = UInt64(high - low)
    return low + Int64(next() % span)
  }
}
