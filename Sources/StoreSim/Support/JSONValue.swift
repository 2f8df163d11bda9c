/// A parsed JSON document that remembers where each value stood in the text.
///
/// The `.storekit` reader needs line and column numbers for its diagnostics, duplicate keys kept
/// in order, and numbers kept as written (prices are decimals, never binary floating point), so
/// storesim reads JSON with this small parser instead of `JSONSerialization`.
package indirect enum JSONValue: Sendable, Equatable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, exactly as written in the text.
  case number(String)
  /// A string with escapes resolved.
  case string(String)
  /// An array of located values.
  case array([JSONNode])
  /// An object's members in document order, duplicates included.
  case object([JSONMember])

  /// A short name of the value's kind for messages ("a string", "an object").
  package var kindDescription: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

/// A JSON value with the location of its first character.
package struct JSONNode: Sendable, Equatable {
  /// The value.
  package var value: JSONValue
  /// Where the value starts.
  package var location: TextLocation

  /// Creates a node.
  package init(_ value: JSONValue, at location: TextLocation) {
    self.value = value
    self.location = location
  }

  /// The members when the value is an object.
  package var members: [JSONMember]? {
    if case .object(let members) = value { return members }
    return nil
  }

  /// The first member with this key, when the value is an object.
  package subscript(key: String) -> JSONNode? {
    members?.first(where: { $0.key == key })?.value
  }
}

/// One `"key": value` pair of an object.
package struct JSONMember: Sendable, Equatable {
  /// The key.
  package var key: String
  /// Where the key starts.
  package var keyLocation: TextLocation
  /// The value.
  package var value: JSONNode

  /// Creates a member.
  package init(key: String, keyLocation: TextLocation, value: JSONNode) {
    self.key = key
    self.keyLocation = keyLocation
    self.value = value
  }
}

/// Why a text is not JSON, and where.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  package var message: String
  /// Where the parser stopped.
  package var location: TextLocation

  /// `line:column: message`.
  package var description: String { "\(location): \(message)" }
}
