import Foundation

/// "Did you mean": the one policy for suggesting a name close to a mistyped one, bounded in time
/// whatever the input (a 20,000-character id on a catalogue of thousands costs what a short one
/// does).
package enum Suggestion {
  /// Inputs longer than this are only matched by prefix, never by edit distance.
  static let longestCompared = 64

  /// The closest candidate within a small edit distance (at most a third of the input's length,
  /// and at least 2), else one that starts with the input (3 characters or more), else one that
  /// contains it (4 or more). Case is ignored.
  package static func closest(to input: String, in candidates: [String]) -> String? {
    let lower = Array(input.lowercased())
    if lower.count <= longestCompared {
      let threshold = max(2, lower.count / 3)
      var best: (String, Int)?
      for candidate in candidates {
        let c = Array(candidate.lowercased())
        guard abs(c.count - lower.count) <= threshold else { continue }
        if let d = distance(lower, c, atMost: min(threshold, (best?.1 ?? threshold + 1) - 1)) {
          best = (candidate, d)
          if d == 0 { break }
        }
      }
      if let best { return best.0 }
    }
    let text = String(lower)
    if lower.count >= 3,
      let prefixed = candidates.first(where: {
        let c = $0.lowercased(); return c.hasPrefix(text) || (c.count >= 3 && text.hasPrefix(c))
      })
    {
      return prefixed
    }
    if lower.count >= 4 {
      return candidates.first { $0.count > lower.count && $0.lowercased().contains(text) }
    }
    return nil
  }

  /// The Levenshtein distance of two character arrays when it is at most `limit`, else nil.
  /// Only the diagonal band of width 2·limit+1 is computed, and the scan stops as soon as a row
  /// exceeds the limit.
  package static func distance(_ a: [Character], _ b: [Character], atMost limit: Int) -> Int? {
    guard limit >= 0, abs(a.count - b.count) <= limit else { return nil }
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    let big = limit + 1
    var previous = (0...b.count).map { $0 <= limit ? $0 : big }
    var current = [Int](repeating: big, count: b.count + 1)
    for i in 1...a.count {
      let low = max(1, i - limit), high = min(b.count, i + limit)
      current[0] = i <= limit ? i : big
      if low > 1 { current[low - 1] = big }
      var rowMinimum = current[0]
      if low <= high {
        for j in low...high {
          let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
          let value = min(min(previous[j] + 1, current[j - 1] + 1), substitution)
          current[j] = min(value, big)
          rowMinimum = min(rowMinimum, current[j])
        }
      }
      if high < b.count { current[high + 1] = big }
      if rowMinimum > limit { return nil }
      swap(&previous, &current)
    }
    return previous[b.count] <= limit ? previous[b.count] : nil
  }
}
