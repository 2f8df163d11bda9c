import Foundation

/// One field of a stored record (a transaction, a subscription's state, a renewal info, a
/// commitment) as its shapes name it: the model's name, the App Store's wire name (nil for what
/// the App Store never sends), where a session row holds it and how the wire writes a flag.
package struct RecordField: Sendable, Hashable {
  /// The name in the model (the record's property).
  package let name: String
  /// The wire name, nil when the field is storesim's own bookkeeping.
  package let wireName: String?
  /// Where a session row holds the field.
  package let trailing: Trailing
  /// How the wire writes the field when it is a `Bool`.
  package let flag: Flag

  init(_ name: String, wire: String? = nil, trailing: Trailing = .none, flag: Flag = .trueOrAbsent) {
    self.name = name
    self.wireName = wire
    self.trailing = trailing
    self.flag = flag
  }

  /// Where a session row holds a field: fields added after the format was fixed come last and
  /// only when set, so rows written before they existed still read.
  package enum Trailing: Sendable, Hashable {
    /// Always written, in its place.
    case none
    /// A transaction's: in brackets and only when set, or when a later one is (then `[0]`).
    case bracketed
    /// Opens a group of optional fields written together at the end of the row, when one of
    /// them or of a later group is set (`null` for the unset ones).
    case opensGroup
    /// In the group the field before it opened.
    case inGroup
  }

  /// How the wire writes a flag.
  package enum Flag: Sendable, Hashable {
    /// `true`, or nothing when false (`isUpgraded`).
    case trueOrAbsent
    /// `true` or `false` (`isInBillingRetryPeriod`).
    case boolean
    /// `1` or `0` (`autoRenewStatus`).
    case number
  }
}

/// A record whose fields are declared once, in `visitRow`: every shape of it (the session row,
/// the wire payload, the lists of its names) is a `RecordFieldVisitor` over that declaration, so
/// a field added there reaches all of them, and a field of a new type is a compile error in each.
package protocol DeclaredRecord {
  /// A record with every field empty, for a reader to fill.
  static var blank: Self { get }
  /// Every field, in the order of a session row.
  mutating func visitRow<V: RecordFieldVisitor>(_ v: inout V) throws(V.Failure)
}

/// Something that walks a record's fields: a writer reads each value, a reader replaces it.
package protocol RecordFieldVisitor {
  associatedtype Failure: Error
  mutating func visit(_ field: RecordField, _ value: inout UInt64) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout UInt64?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout Int) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout Bool) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout String) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout String?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout [String]) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout Date) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout Date?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout Decimal) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout Decimal?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout UUID?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout TransactionOffer?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout SubscriptionOffer?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout BillingState) throws(Failure)
  // The named types, each its own requirement rather than one generic over `RawRepresentable`:
  // `visitRow` is not specialized in the modules that visit, and a generic requirement called
  // from it looks its type's metadata up at run time, for every such field of every record a
  // session file holds (most of the time of reading one). A new named type is a new requirement.
  mutating func visit(_ field: RecordField, _ value: inout ProductType) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout OwnershipType) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout TransactionReason) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout CustomerID?) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout RevocationReason?) throws(Failure)
  // The other records' named types, the same way.
  mutating func visit(_ field: RecordField, _ value: inout BillingPlanType) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout PriceIncreaseStatus) throws(Failure)
  mutating func visit(_ field: RecordField, _ value: inout ExpirationReason?) throws(Failure)
  /// A record inside the record (a commitment), itself declared once.
  mutating func visit<R: DeclaredRecord>(_ field: RecordField, _ value: inout R?) throws(Failure)
}

/// A visitor of the declaration alone (each field's names and kind of value), never of a value:
/// it implements one method and the value-typed ones all call it.
package protocol RecordFieldListVisitor: RecordFieldVisitor where Failure == Never {
  mutating func visit(_ field: RecordField, kind: RecordField.Kind)
}

extension RecordField {
  /// What a field holds, as far as a list of fields cares: a date, a transaction's offer (which
  /// the wire spreads over four names) or any other value.
  package enum Kind: Sendable { case value, date, offer }
}

extension RecordFieldListVisitor {
  package mutating func visit(_ field: RecordField, _ value: inout UInt64) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout UInt64?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout Int) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout Bool) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout String) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout String?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout [String]) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout Date) { visit(field, kind: .date) }
  package mutating func visit(_ field: RecordField, _ value: inout Date?) { visit(field, kind: .date) }
  package mutating func visit(_ field: RecordField, _ value: inout Decimal) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout Decimal?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout UUID?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout TransactionOffer?) { visit(field, kind: .offer) }
  package mutating func visit(_ field: RecordField, _ value: inout SubscriptionOffer?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout BillingState) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout ProductType) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout OwnershipType) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout TransactionReason) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout CustomerID?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout RevocationReason?) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout BillingPlanType) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout PriceIncreaseStatus) { visit(field, kind: .value) }
  package mutating func visit(_ field: RecordField, _ value: inout ExpirationReason?) { visit(field, kind: .value) }
  package mutating func visit<R: DeclaredRecord>(_ field: RecordField, _ value: inout R?) {
    visit(field, kind: .value)
  }
}
