import Foundation

/// Reading typed access to JSON values, each wrong kind a warning at its path.
extension Reader {
  mutating func string(_ node: JSONNode?, path: String) -> String? {
    guard let node else { return nil }
    switch node.value {
    case .string(let s): return s
    case .null: return nil
    case .number(let n):
      if !path.isEmpty { warn(path, node.location, "expected a string, found the number \(n); read as \"\(n)\"") }
      return n
    default:
      if !path.isEmpty { warn(path, node.location, "expected a string, found \(node.value.kindDescription); ignored") }
      return nil
    }
  }

  mutating func int(_ node: JSONNode?, path: String) -> Int? {
    guard let node else { return nil }
    switch node.value {
    case .number(let n):
      if let v = Int(n) { return v }
      if let d = Double(n), d == d.rounded(), abs(d) < 1e15 { return Int(d) }
      warn(path, node.location, "expected an integer, found \(n); ignored")
      return nil
    case .string(let s):
      if let v = Int(s) {
        warn(path, node.location, "expected an integer, found the string \"\(s)\"; read as \(v)")
        return v
      }
      warn(path, node.location, "expected an integer, found the string \"\(s)\"; ignored")
      return nil
    case .null: return nil
    default:
      warn(path, node.location, "expected an integer, found \(node.value.kindDescription); ignored")
      return nil
    }
  }

  /// A boolean; `fallback` is what an unreadable value is read as (the warning says so).
  mutating func bool(_ node: JSONNode?, path: String, fallback: Bool = false) -> Bool? {
    guard let node else { return nil }
    switch node.value {
    case .bool(let b): return b
    case .null: return nil
    case .number(let n) where n == "0" || n == "1":
      warn(path, node.location, "expected a boolean, found \(n); read as \(n == "1")")
      return n == "1"
    case .string(let s) where ["true", "false", "yes", "no"].contains(s.lowercased()):
      let value = ["true", "yes"].contains(s.lowercased())
      warn(path, node.location, "expected a boolean, found the string \"\(s)\"; read as \(value)")
      return value
    default:
      warn(path, node.location, "expected a boolean, found \(node.value.kindDescription); read as \(fallback)")
      return fallback
    }
  }

  mutating func array(_ node: JSONNode?, path: String) -> [JSONNode] {
    guard let node else { return [] }
    switch node.value {
    case .array(let items): return items
    case .null: return []
    default:
      warn(path, node.location, "expected an array, found \(node.value.kindDescription); read as empty")
      return []
    }
  }

  mutating func warnUnknownKeys(_ members: [JSONMember], known: Set<String>, path: String, what: String) {
    for member in members where !known.contains(member.key) {
      warn("\(path).\(member.key)", member.keyLocation, "unknown \(what) key '\(member.key)'; ignored")
    }
  }

  /// Warns of each repeated key; readers that walk members use `firstOccurrences` so that, as the
  /// warning says, the first one is used.
  mutating func warnDuplicateKeys(_ members: [JSONMember], path: String) {
    guard members.count > 1 else { return }
    var seen = Set<String>()
    for member in members where !seen.insert(member.key).inserted {
      let p = path.isEmpty ? member.key : "\(path).\(member.key)"
      warn(p, member.keyLocation, "key '\(member.key)' appears more than once; the first one is used")
    }
  }

  /// The members without the repetitions of a key: the first of each.
  func firstOccurrences(_ members: [JSONMember]) -> [JSONMember] {
    var seen = Set<String>()
    return members.filter { seen.insert($0.key).inserted }
  }
}
