import Foundation

/// Writes a record's fields under their wire names, in the App Store's forms: ids as strings,
/// dates as epoch milliseconds, prices as milliunits, raw values as they are, flags as the field
/// says, an absent value or an empty list omitted, a record inside as an object.
struct RecordWireWriter: RecordFieldVisitor {
  typealias Failure = Never
  var object: [String: JSONOutput] = [:]

  private mutating func put(_ field: RecordField, _ value: JSONOutput?) {
    if let name = field.wireName, let value { object[name] = value }
  }

  mutating func visit(_ field: RecordField, _ value: inout UInt64) { put(field, .string(String(value))) }
  mutating func visit(_ field: RecordField, _ value: inout UInt64?) {
    put(field, value.map { .string(String($0)) })
  }
  mutating func visit(_ field: RecordField, _ value: inout Int) { put(field, .int(Int64(value))) }
  mutating func visit(_ field: RecordField, _ value: inout Bool) {
    switch field.flag {
    case .trueOrAbsent: put(field, value ? .bool(true) : nil)
    case .boolean: put(field, .bool(value))
    case .number: put(field, .int(value ? 1 : 0))
    }
  }
  mutating func visit(_ field: RecordField, _ value: inout String) { put(field, .string(value)) }
  mutating func visit(_ field: RecordField, _ value: inout String?) { put(field, value.map(JSONOutput.string)) }
  mutating func visit(_ field: RecordField, _ value: inout [String]) {
    put(field, value.isEmpty ? nil : .array(value.map(JSONOutput.string)))
  }
  mutating func visit(_ field: RecordField, _ value: inout Date) { put(field, milliseconds(value)) }
  mutating func visit(_ field: RecordField, _ value: inout Date?) { put(field, value.map(milliseconds)) }
  mutating func visit(_ field: RecordField, _ value: inout Decimal) { put(field, milliunits(value)) }
  mutating func visit(_ field: RecordField, _ value: inout Decimal?) { put(field, value.map(milliunits)) }
  mutating func visit(_ field: RecordField, _ value: inout UUID?) {
    put(field, value.map { .string($0.uuidString.lowercased()) })
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionOffer?) { value?.wire(into: &object) }
  // A subscription's own bookkeeping, never on the wire.
  mutating func visit(_ field: RecordField, _ value: inout SubscriptionOffer?) {}
  mutating func visit(_ field: RecordField, _ value: inout BillingState) {}
  mutating func visit(_ field: RecordField, _ value: inout ProductType) {
    put(field, JSONOutput.string(value.rawValue))
  }
  mutating func visit(_ field: RecordField, _ value: inout OwnershipType) {
    put(field, JSONOutput.string(value.rawValue))
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionReason) {
    put(field, JSONOutput.string(value.rawValue))
  }
  mutating func visit(_ field: RecordField, _ value: inout CustomerID?) {
    guard let value else { return put(field, nil) }
    put(field, JSONOutput.string(value.rawValue))
  }
  mutating func visit(_ field: RecordField, _ value: inout RevocationReason?) {
    guard let value else { return put(field, nil) }
    put(field, JSONOutput.int(Int64(value.rawValue)))
  }
  mutating func visit(_ field: RecordField, _ value: inout BillingPlanType) {
    put(field, JSONOutput.string(value.rawValue))
  }
  mutating func visit(_ field: RecordField, _ value: inout PriceIncreaseStatus) {
    put(field, JSONOutput.string(value.rawValue))
  }
  mutating func visit(_ field: RecordField, _ value: inout ExpirationReason?) {
    guard let value else { return put(field, nil) }
    put(field, JSONOutput.int(Int64(value.rawValue)))
  }
  mutating func visit<R: DeclaredRecord>(_ field: RecordField, _ value: inout R?) {
    guard field.wireName != nil, var record = value else { return }
    var inner = RecordWireWriter()
    record.visitRow(&inner)
    put(field, .object(inner.object))
  }
}

/// Collects the wire names of a transaction's fields, in declaration order.
struct TransactionWireNames: RecordFieldListVisitor {
  var names: [String] = []
  /// The names of the fields holding dates.
  var dates: [String] = []

  mutating func visit(_ field: RecordField, kind: RecordField.Kind) {
    if kind == .offer {
      names += TransactionOffer.wireNames
    } else if let name = field.wireName {
      names.append(name)
      if kind == .date { dates.append(name) }
    }
  }
}

extension TransactionOffer {
  /// The names the offer's four fields take on the wire (transactions and renewal info alike).
  public static let wireNames = ["offerType", "offerIdentifier", "offerDiscountType", "offerPeriod"]

  /// Writes the offer's fields into a payload (`offerIdentifier` omitted for an introductory
  /// offer, which has no id).
  func wire(into object: inout [String: JSONOutput]) {
    object["offerType"] = .int(Int64(type.rawValue))
    if let id { object["offerIdentifier"] = .string(id) }
    object["offerDiscountType"] = .string(paymentMode.rawValue)
    object["offerPeriod"] = .string(period.iso8601)
  }
}
