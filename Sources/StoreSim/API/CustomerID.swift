import Foundation

/// Names one customer (Apple Account) of a session, as `--customer NAME` does.
///
/// A session starts with `CustomerID.default`; others are added by `Store.addCustomer(_:)` or by
/// joining a family. Written as a string literal (`"alice"`); shown, saved and encoded as the
/// plain name.
public struct CustomerID: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The name.
  public var rawValue: String

  /// The customer named `rawValue`.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The customer named `name`.
  public init(_ name: String) { self.rawValue = name }

  /// The customer named by a literal.
  public init(stringLiteral name: String) { self.rawValue = name }

  /// The customer every session starts with, named `default`.
  public static let `default`: CustomerID = "default"

  /// The name.
  public var description: String { rawValue }

  /// Decodes the plain name.
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  /// Encodes the plain name.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
