import Foundation

/// The ranges every date, price and count read from a session file lies in, whatever its
/// version: a value outside is a corrupt session (exit 65), refused on reading, never a trap
/// later (a date that overflows 64-bit milliseconds when it is written, a count that overflows
/// when it grows).
package enum SessionBounds {
  /// Dates, as milliseconds since 1970: within ±10^17 (about ±3 million years). The clock stops
  /// at the end of the year 9999 and a period is at most 100,000 years, so a session storesim
  /// writes stays far inside, and a date in range plus periods stays within 64 bits.
  package static let milliseconds: ClosedRange<Int64> = -100_000_000_000_000_000...100_000_000_000_000_000
  /// Prices, in units of their currency: within ±10^15.
  package static let largestPrice = Decimal(sign: .plus, exponent: 15, significand: 1)
  /// Every other integer (identifiers and counters the store increments, settings): within
  /// ±2^53, the integers a JSON number holds exactly. (A 64-bit identifier Apple gives, such as
  /// a download id, is never counted on, and is read whole.)
  package static let largestInteger: UInt64 = 1 << 53
  /// The counts of a record's row (quantities, renewals, periods, sequence numbers).
  package static let counts: ClosedRange<Int64> = 0...Int64(Int32.max)
  /// The largest session file read: past it a file is refused before it is mapped.
  package static let largestFile = 2 << 30

  package static func holds(milliseconds: Int64) -> Bool { Self.milliseconds.contains(milliseconds) }
  package static func holds(milliseconds: Double) -> Bool {
    (Double(Self.milliseconds.lowerBound)...Double(Self.milliseconds.upperBound)).contains(milliseconds)
  }
  package static func holds(price: Decimal) -> Bool { !price.isNaN && abs(price) <= largestPrice }
  package static func holds<T: BinaryInteger>(integer: T) -> Bool { integer.magnitude <= largestInteger }
}
