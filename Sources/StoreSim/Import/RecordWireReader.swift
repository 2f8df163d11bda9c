import Foundation

/// Reads a record's fields from the App Store's JSON under their wire names: the inverse of
/// `RecordWireWriter`, so every field a payload can carry is read back from the one declaration
/// (`visitRow`). What the payload lacks keeps the blank record's value; a value of the wrong
/// form is a failure naming the field.
struct RecordWireReader: RecordFieldVisitor {
  typealias Failure = ImportReadError
  let object: [String: JSONValue]

  init(_ node: JSONNode) { self.init(members: node.members ?? []) }

  init(members: [JSONMember]) {
    var object: [String: JSONValue] = [:]
    for member in members where object[member.key] == nil { object[member.key] = member.value.value }
    self.object = object
  }

  private func value(_ field: RecordField) -> JSONValue? {
    guard let name = field.wireName, let v = object[name], v != .null else { return nil }
    return v
  }

  private func bad(_ field: RecordField, _ what: String) -> ImportReadError {
    ImportReadError("\(field.wireName ?? field.name) is not \(what)")
  }

  /// Text of a number or a string (ids come as strings, dates as numbers; either is accepted).
  private func text(_ field: RecordField) -> String? {
    switch value(field) {
    case .string(let s): return s
    case .number(let n): return n
    default: return nil
    }
  }

  private func integer(_ field: RecordField) throws(ImportReadError) -> Int64? {
    guard value(field) != nil else { return nil }
    guard let t = text(field), let n = Int64(t) else { throw bad(field, "an integer") }
    return n
  }

  mutating func visit(_ field: RecordField, _ value: inout UInt64) throws(ImportReadError) {
    var v: UInt64? = value
    try visit(field, &v)
    value = v ?? value
  }
  mutating func visit(_ field: RecordField, _ value: inout UInt64?) throws(ImportReadError) {
    guard self.value(field) != nil else { return }
    guard let t = text(field), let n = UInt64(t) else { throw bad(field, "an id") }
    value = n
  }
  mutating func visit(_ field: RecordField, _ value: inout Int) throws(ImportReadError) {
    if let n = try integer(field) { value = Int(clamping: n) }
  }
  mutating func visit(_ field: RecordField, _ value: inout Bool) throws(ImportReadError) {
    switch self.value(field) {
    case nil: return
    case .bool(let b): value = b
    case .number(let n): value = n != "0"
    default: throw bad(field, "a flag")
    }
  }
  mutating func visit(_ field: RecordField, _ value: inout String) throws(ImportReadError) {
    var v: String? = value
    try visit(field, &v)
    value = v ?? value
  }
  mutating func visit(_ field: RecordField, _ value: inout String?) throws(ImportReadError) {
    guard self.value(field) != nil else { return }
    guard case .string(let s) = self.value(field) else { throw bad(field, "a string") }
    value = s
  }
  mutating func visit(_ field: RecordField, _ value: inout [String]) throws(ImportReadError) {
    guard let v = self.value(field) else { return }
    guard case .array(let items) = v else { throw bad(field, "a list") }
    value = try items.map { item throws(ImportReadError) in
      guard case .string(let s) = item.value else { throw bad(field, "a list of strings") }
      return s
    }
  }
  mutating func visit(_ field: RecordField, _ value: inout Date) throws(ImportReadError) {
    if let ms = try integer(field) { value = Date(epochMilliseconds: ms) }
  }
  mutating func visit(_ field: RecordField, _ value: inout Date?) throws(ImportReadError) {
    if let ms = try integer(field) { value = Date(epochMilliseconds: ms) }
  }
  mutating func visit(_ field: RecordField, _ value: inout Decimal) throws(ImportReadError) {
    if let m = try integer(field) { value = Decimal(m) / 1000 }
  }
  mutating func visit(_ field: RecordField, _ value: inout Decimal?) throws(ImportReadError) {
    if let m = try integer(field) { value = Decimal(m) / 1000 }
  }
  mutating func visit(_ field: RecordField, _ value: inout UUID?) throws(ImportReadError) {
    guard self.value(field) != nil else { return }
    guard case .string(let s) = self.value(field), let id = UUID(uuidString: s) else { throw bad(field, "a UUID") }
    value = id
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionOffer?) throws(ImportReadError) {
    guard let typeNumber = object["offerType"], typeNumber != .null else { return }
    guard case .number(let n) = typeNumber, let raw = Int(n), let type = OfferType(rawValue: raw) else {
      throw ImportReadError("offerType is not 1 to 4")
    }
    var id: String?
    if case .string(let s) = object["offerIdentifier"] { id = s }
    var mode = PaymentMode.freeTrial
    if case .string(let s) = object["offerDiscountType"] {
      guard let m = PaymentMode(rawValue: s) else { throw ImportReadError("offerDiscountType \(s) is unknown") }
      mode = m
    }
    // Apple's payloads before 2024 have no offerPeriod: a placeholder the import replaces by
    // the product's period.
    var period = SubscriptionPeriod(value: 0, unit: .day)
    if case .string(let s) = object["offerPeriod"] {
      guard let p = SubscriptionPeriod(iso8601: s) else { throw ImportReadError("offerPeriod \(s) is not a period") }
      period = p
    }
    value = TransactionOffer(type: type, id: id, paymentMode: mode, period: period)
  }
  mutating func visit(_ field: RecordField, _ value: inout SubscriptionOffer?) {}
  mutating func visit(_ field: RecordField, _ value: inout BillingState) {}
  mutating func visit(_ field: RecordField, _ value: inout ProductType) throws(ImportReadError) {
    guard let t = text(field) else { return }
    guard let v = ProductType(rawValue: t) else { throw bad(field, "a product type") }
    value = v
  }
  mutating func visit(_ field: RecordField, _ value: inout OwnershipType) throws(ImportReadError) {
    guard let t = text(field) else { return }
    guard let v = OwnershipType(rawValue: t) else { throw bad(field, "PURCHASED or FAMILY_SHARED") }
    value = v
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionReason) throws(ImportReadError) {
    guard let t = text(field) else { return }
    guard let v = TransactionReason(rawValue: t) else { throw bad(field, "PURCHASE or RENEWAL") }
    value = v
  }
  mutating func visit(_ field: RecordField, _ value: inout CustomerID?) {}
  mutating func visit(_ field: RecordField, _ value: inout RevocationReason?) throws(ImportReadError) {
    guard let n = try integer(field) else { return }
    guard let v = RevocationReason(rawValue: Int(clamping: n)) else { throw bad(field, "0 or 1") }
    value = v
  }
  mutating func visit(_ field: RecordField, _ value: inout BillingPlanType) {}
  mutating func visit(_ field: RecordField, _ value: inout PriceIncreaseStatus) {}
  mutating func visit(_ field: RecordField, _ value: inout ExpirationReason?) throws(ImportReadError) {
    guard let n = try integer(field) else { return }
    guard let v = ExpirationReason(rawValue: Int(clamping: n)) else { throw bad(field, "1 to 5") }
    value = v
  }
  mutating func visit<R: DeclaredRecord>(_ field: RecordField, _ value: inout R?) throws(ImportReadError) {
    guard case .object(let members) = self.value(field) else { return }
    var record = R.blank
    var inner = RecordWireReader(members: members)
    try record.visitRow(&inner)
    value = record
  }
}

/// Why one item of an imported file could not be read.
package struct ImportReadError: Error, Sendable, Equatable {
  package let message: String
  package init(_ message: String) { self.message = message }
}
