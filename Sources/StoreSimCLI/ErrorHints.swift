import Foundation

/// Issue 25, item 7: an error gives one fix. A message that already names its fix (`use ...`,
/// `write ...`, `give ...`, `did you mean ...?`, the values a setting takes, or its own pointer
/// to help) is printed as it is; only a usage error without one points to `storesim help COMMAND`.
enum ErrorHint {
  /// The phrases that name a fix, after `; `, `(`, `: ` or `, ` (or at the start).
  private static let fixPattern =
    #"(^|; |\(|: |, )(use|write|give|pass|did you mean|for example)\b|\b(takes|must be)\b|\(see 'storesim "#

  /// Whether `message` already tells the reader what to type instead.
  static func namesAFix(_ message: String) -> Bool {
    message.range(of: fixPattern, options: .regularExpression) != nil
  }

  /// `a, b or c`.
  static func list(_ values: [String]) -> String {
    guard values.count > 1 else { return values.first ?? "" }
    return values.dropLast().joined(separator: ", ") + " or " + values[values.count - 1]
  }
}

extension Suggest {
  /// `message; did you mean 'X'?` when a candidate is close to `input`, else `message; use`
  /// followed by the values: one fix either way.
  static func orValues(_ message: String, for input: String, in candidates: [String]) -> String {
    appending(to: message, for: input, in: candidates, otherwise: "\(message); use \(ErrorHint.list(candidates))")
  }
}
