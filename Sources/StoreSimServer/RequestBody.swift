import Foundation
import StoreSim

/// A request body that must be a JSON object.
package struct RequestBody {
  package let node: JSONNode

  package init(_ bytes: [UInt8]) throws {
    guard let node = try? JSONParser.parse(bytes), case .object = node.value else { throw APIError.generalBadRequest }
    self.node = node
  }

  package func has(_ key: String) -> Bool {
    if let v = node[key], v.value != .null { return true }
    return false
  }

  /// An integer member in `range`; nil when absent; `invalid` when of another type or range.
  package func int(
    _ key: String, _ range: ClosedRange<Int>, _ invalid: APIError, required: Bool = false
  ) throws -> Int? {
    guard let v = node[key], v.value != .null else {
      if required { throw invalid }
      return nil
    }
    guard case .number(let text) = v.value, let n = Int(text), range.contains(n) else { throw invalid }
    return n
  }

  package func bool(_ key: String, _ invalid: APIError, required: Bool = false) throws -> Bool? {
    guard let v = node[key], v.value != .null else {
      if required { throw invalid }
      return nil
    }
    guard case .bool(let b) = v.value else { throw invalid }
    return b
  }

  package func string(_ key: String, _ invalid: APIError, required: Bool = false) throws -> String? {
    guard let v = node[key], v.value != .null else {
      if required { throw invalid }
      return nil
    }
    guard case .string(let s) = v.value else { throw invalid }
    return s
  }

  /// A date member in milliseconds since 1970; nil when absent; `invalid` when not a whole number.
  package func date(_ key: String, _ invalid: APIError) throws -> Date? {
    guard let v = node[key], v.value != .null else { return nil }
    guard case .number(let text) = v.value, let ms = Int64(text) else { throw invalid }
    return Date(epochMilliseconds: ms)
  }

  /// The member as JSON text (for the consumption record).
  package func text(_ key: String) -> String? {
    guard let v = node[key] else { return nil }
    switch v.value {
    case .null: return nil
    case .bool(let b): return b ? "true" : "false"
    case .number(let n): return n
    case .string(let s): return JSONOutput.string(s).rendered(pretty: false)
    default: return nil
    }
  }
}
