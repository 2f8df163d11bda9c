import Foundation
import StoreSim

// A transaction's rows, made from its declaration (`Transaction.Fields.visitRow` and
// `visitStatus`): the writer and the reader are visitors of the same fields in the same order.

extension StateCodec.Writer: TransactionFieldVisitor {
  typealias Failure = Never

  /// A transaction row: every field of `visitRow`.
  mutating func transaction(_ t: Transaction) {
    var fields = t.fields
    skippedTrailing = 0
    array { w in fields.visitRow(&w) }
  }

  /// A transaction as it was when a notification carried it: a reference to the stored
  /// transaction plus the fields that may have changed since (`visitStatus`).
  mutating func reference(_ t: Transaction) {
    var fields = t.fields
    skippedTrailing = 0
    array { w in
      w.string("ref")
      w.uint(t.id)
      fields.visitStatus(&w)
    }
  }

  mutating func visit(_ field: TransactionField, _ value: inout UInt64) { uint(value) }
  mutating func visit(_ field: TransactionField, _ value: inout UInt64?) {
    // A trailing field is in brackets, so that a lost comma never merges it into the number
    // before it, and only when set (or when a later one is: an unset one is then `[0]`).
    if field.isTrailing {
      guard let value, value != 0 else { return skippedTrailing += 1 }
      for _ in 0..<skippedTrailing { array { w in w.uint(0) } }
      skippedTrailing = 0
      array { w in w.uint(value) }
    } else {
      optUInt(value)
    }
  }
  mutating func visit(_ field: TransactionField, _ value: inout Int) { int(value) }
  mutating func visit(_ field: TransactionField, _ value: inout Bool) { bool(value) }
  mutating func visit(_ field: TransactionField, _ value: inout String) { string(value) }
  mutating func visit(_ field: TransactionField, _ value: inout String?) { optString(value) }
  mutating func visit(_ field: TransactionField, _ value: inout Date) { date(value) }
  mutating func visit(_ field: TransactionField, _ value: inout Date?) { optDate(value) }
  mutating func visit(_ field: TransactionField, _ value: inout Decimal) { decimal(value) }
  mutating func visit(_ field: TransactionField, _ value: inout UUID?) { optString(value?.uuidString) }
  mutating func visit(_ field: TransactionField, _ value: inout TransactionOffer?) { transactionOffer(value) }
  mutating func visit(_ field: TransactionField, _ value: inout ProductType) { string(value.rawValue) }
  mutating func visit(_ field: TransactionField, _ value: inout OwnershipType) { string(value.rawValue) }
  mutating func visit(_ field: TransactionField, _ value: inout TransactionReason) { string(value.rawValue) }
  mutating func visit(_ field: TransactionField, _ value: inout CustomerID?) { optString(value?.rawValue) }
  mutating func visit(_ field: TransactionField, _ value: inout RevocationReason?) { optInt(value?.rawValue) }
}

extension StateCodec.Reader: TransactionFieldVisitor {
  typealias Failure = StateCodec.DecodingError

  mutating func transaction() throws(StateCodec.DecodingError) -> Transaction {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.transactionFields() }
  }

  /// The fields of a transaction row.
  mutating func transactionFields() throws(StateCodec.DecodingError) -> Transaction {
    // Read into the transaction's own storage (a local `Fields` would be copied into it).
    var t = Transaction(fields: .blank)
    try t.fields.visitRow(&self)
    return t
  }

  /// A full transaction row, or a reference row written by `Writer.reference`.
  mutating func notificationTransaction() throws(StateCodec.DecodingError) -> Transaction {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in
      guard r.at(UInt8(ascii: "\"")) else { return try r.transactionFields() }
      guard try r.string() == "ref" else { throw r.fail("bad transaction reference") }
      let id = try r.uint()
      guard let (c, n) = r.byID[id] else { throw r.fail("reference to unknown transaction \(id)") }
      var t = r.customers[Int(c)].transactions[Int(n)]
      try t.fields.visitStatus(&r)
      return t
    }
  }

  mutating func visit(_ field: TransactionField, _ value: inout UInt64) throws(Failure) { value = try uint() }
  mutating func visit(_ field: TransactionField, _ value: inout UInt64?) throws(Failure) {
    guard field.isTrailing else { return value = try optUInt() }
    // Absent from rows written before the field existed; 0 is written as absent.
    value = nil
    if more() {
      let read = try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.uint() }
      value = read == 0 ? nil : read
    }
  }
  mutating func visit(_ field: TransactionField, _ value: inout Int) throws(Failure) { value = try smallInt() }
  mutating func visit(_ field: TransactionField, _ value: inout Bool) throws(Failure) { value = try bool() }
  mutating func visit(_ field: TransactionField, _ value: inout String) throws(Failure) { value = try string() }
  mutating func visit(_ field: TransactionField, _ value: inout String?) throws(Failure) { value = try optString() }
  mutating func visit(_ field: TransactionField, _ value: inout Date) throws(Failure) { value = try date() }
  mutating func visit(_ field: TransactionField, _ value: inout Date?) throws(Failure) { value = try optDate() }
  mutating func visit(_ field: TransactionField, _ value: inout Decimal) throws(Failure) { value = try decimal() }
  mutating func visit(_ field: TransactionField, _ value: inout UUID?) throws(Failure) { value = try uuid() }
  mutating func visit(_ field: TransactionField, _ value: inout TransactionOffer?) throws(Failure) {
    value = try transactionOffer()
  }
  mutating func visit(_ field: TransactionField, _ value: inout ProductType) throws(Failure) {
    value = try known(Self.productTypes)
  }
  mutating func visit(_ field: TransactionField, _ value: inout OwnershipType) throws(Failure) {
    value = try known(Self.ownershipTypes)
  }
  mutating func visit(_ field: TransactionField, _ value: inout TransactionReason) throws(Failure) {
    value = try known(Self.reasons)
  }
  mutating func visit(_ field: TransactionField, _ value: inout CustomerID?) throws(Failure) {
    value = try optRaw(CustomerID.self)
  }
  mutating func visit(_ field: TransactionField, _ value: inout RevocationReason?) throws(Failure) {
    value = try optRawInt(RevocationReason.self)
  }

  // The raw values of the named types, as bytes (`known`).
  static let productTypes = ProductType.allCases.map { (utf8: Array($0.rawValue.utf8), value: $0) }
  static let ownershipTypes = [OwnershipType.purchased, .familyShared].map {
    (utf8: Array($0.rawValue.utf8), value: $0)
  }
  static let reasons = [TransactionReason.purchase, .renewal].map { (utf8: Array($0.rawValue.utf8), value: $0) }
}
