import Foundation

/// storesim's own delivery faults (`settings delivery-faults`), never Apple's and off by
/// default: from one seed, a share of notifications sent twice, first attempts held and
/// released out of order within a window, first attempts delayed, and outages in which the
/// receiver is treated as down (nothing is sent; the attempt fails and Apple's retry schedule
/// takes over). Every choice is a function of the seed and the notification's index, so one
/// seed gives byte-identical deliveries (rule delivery-faults-are-seeded-and-labelled).
package struct DeliveryFaults: Sendable, Hashable, Codable {
  /// A window of virtual time in which the receiver is down.
  package struct Outage: Sendable, Hashable, Codable {
    package var start: Date
    package var end: Date

    package init(start: Date, end: Date) {
      self.start = start
      self.end = end
    }
  }

  package var seed: UInt64
  /// Percent (0-100) of notifications sent twice.
  package var duplicatePercent: Int = 0
  /// First attempts are held up to this long (seconds), so later notifications may overtake them.
  package var reorderWindow: TimeInterval = 0
  /// First attempts are delayed between these (seconds, uniform).
  package var delayMinimum: TimeInterval = 0
  package var delayMaximum: TimeInterval = 0
  package var outages: [Outage] = []

  package init(seed: UInt64) { self.seed = seed }

  /// Whether the receiver is down at `date`.
  package func isOutage(at date: Date) -> Bool {
    outages.contains { $0.start <= date && date < $0.end }
  }

  /// What happens to the first attempt of notification `index`: its delay (seconds), whether a
  /// second copy is sent, and the label saying so (nil when nothing was injected).
  package func firstAttempt(of index: Int) -> (delay: TimeInterval, duplicate: Bool, label: String?) {
    var dice = FaultDice(seed: seed, index: index)
    var labels: [String] = []
    var delay: TimeInterval = 0
    let spread = max(0, delayMaximum - delayMinimum)
    let delayed = (delayMinimum + (spread * dice.unit())).rounded()
    if delayed > 0 {
      delay += delayed
      labels.append("delayed \(Self.duration(delayed))")
    }
    let held = (reorderWindow * dice.unit()).rounded()
    if held > 0 {
      delay += held
      labels.append("reordered: held \(Self.duration(held))")
    }
    let duplicate = Double(duplicatePercent) / 100 > dice.unit()
    return (delay, duplicate, labels.isEmpty ? nil : labels.joined(separator: "; "))
  }

  /// `2h`, `25min`, `90s`, `1h 5min`.
  package static func duration(_ seconds: TimeInterval) -> String {
    let s = Int(seconds)
    var parts: [String] = []
    if s >= 86_400 && s % 86_400 == 0 { return "\(s / 86_400)d" }
    if s / 3_600 > 0 { parts.append("\(s / 3_600)h") }
    if s % 3_600 / 60 > 0 { parts.append("\(s % 3_600 / 60)min") }
    if s % 60 > 0 || parts.isEmpty { parts.append("\(s % 60)s") }
    return parts.joined(separator: " ")
  }

  /// The words `settings delivery-faults` shows: `seed=7 duplicates=10% ...`.
  package var words: String {
    var w = ["seed=\(seed)"]
    if duplicatePercent > 0 { w.append("duplicates=\(duplicatePercent)%") }
    if reorderWindow > 0 { w.append("reorder=\(Self.duration(reorderWindow))") }
    if delayMaximum > 0 {
      w.append(
        "delay="
          + (delayMinimum == delayMaximum
            ? Self.duration(delayMaximum) : "\(Self.duration(delayMinimum))-\(Self.duration(delayMaximum))"))
    }
    for o in outages {
      w.append("outage=\(ISO8601.string(o.start))+\(Self.duration(o.end.timeIntervalSince(o.start)))")
    }
    return w.joined(separator: " ")
  }
}

/// A seeded sequence of numbers (SplitMix64): the same seed and index always give the same
/// numbers. Not for secrets.
struct FaultDice {
  var state: UInt64

  init(seed: UInt64, index: Int) {
    state = seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD6E8_FEB8_6659_FD93)
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// In [0, 1).
  mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
