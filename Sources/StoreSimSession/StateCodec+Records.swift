import Foundation
import StoreSim

// The rows of the records declared once (`DeclaredRecord.visitRow`: transactions, subscriptions,
// renewal infos, commitments): the writer and the reader are visitors of the same fields in the
// same order, so one writer and one reader serve every record.

extension StateCodec.Writer: RecordFieldVisitor {
  typealias Failure = Never

  /// A record's row: every field of its `visitRow`.
  mutating func record<R: DeclaredRecord>(_ value: R) {
    var fields = value
    let outer = (skippedTrailing, groupOpen)
    (skippedTrailing, groupOpen) = (0, false)
    array { w in fields.visitRow(&w) }
    (skippedTrailing, groupOpen) = outer
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

  /// Whether an optional field is written now: always, unless it is trailing
  /// (`RecordField.Trailing`). A trailing group is written when one of its fields is set; the
  /// unset ones before it, of its group and of the groups it follows, are then `null`.
  mutating func writes(_ field: RecordField, isSet: Bool) -> Bool {
    switch field.trailing {
    case .none, .bracketed: return true
    case .opensGroup: groupOpen = false
    case .inGroup: if groupOpen { return true }
    }
    guard isSet else {
      skippedTrailing += 1
      return false
    }
    for _ in 0..<skippedTrailing { null() }
    skippedTrailing = 0
    groupOpen = true
    return true
  }

  mutating func visit(_ field: RecordField, _ value: inout UInt64) { uint(value) }
  mutating func visit(_ field: RecordField, _ value: inout UInt64?) {
    // A transaction's trailing field is in brackets, so that a lost comma never merges it into
    // the number before it, and only when set (or when a later one is: an unset one is `[0]`).
    if field.trailing == .bracketed {
      guard let value, value != 0 else { return skippedTrailing += 1 }
      for _ in 0..<skippedTrailing { array { w in w.uint(0) } }
      skippedTrailing = 0
      array { w in w.uint(value) }
    } else if writes(field, isSet: value != nil) {
      optUInt(value)
    }
  }
  mutating func visit(_ field: RecordField, _ value: inout Int) { int(value) }
  mutating func visit(_ field: RecordField, _ value: inout Bool) { bool(value) }
  mutating func visit(_ field: RecordField, _ value: inout String) { string(value) }
  mutating func visit(_ field: RecordField, _ value: inout String?) {
    if writes(field, isSet: value != nil) { optString(value) }
  }
  mutating func visit(_ field: RecordField, _ value: inout [String]) { strings(value) }
  mutating func visit(_ field: RecordField, _ value: inout Date) { date(value) }
  mutating func visit(_ field: RecordField, _ value: inout Date?) {
    if writes(field, isSet: value != nil) { optDate(value) }
  }
  mutating func visit(_ field: RecordField, _ value: inout Decimal) { decimal(value) }
  mutating func visit(_ field: RecordField, _ value: inout Decimal?) {
    if writes(field, isSet: value != nil) { optDecimal(value) }
  }
  mutating func visit(_ field: RecordField, _ value: inout UUID?) {
    if writes(field, isSet: value != nil) { optString(value?.uuidString) }
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionOffer?) {
    if writes(field, isSet: value != nil) { transactionOffer(value) }
  }
  mutating func visit(_ field: RecordField, _ value: inout SubscriptionOffer?) {
    if writes(field, isSet: value != nil) { offer(value) }
  }
  mutating func visit(_ field: RecordField, _ value: inout BillingState) { billing(value) }
  mutating func visit(_ field: RecordField, _ value: inout ProductType) { string(value.rawValue) }
  mutating func visit(_ field: RecordField, _ value: inout OwnershipType) { string(value.rawValue) }
  mutating func visit(_ field: RecordField, _ value: inout TransactionReason) { string(value.rawValue) }
  mutating func visit(_ field: RecordField, _ value: inout CustomerID?) {
    if writes(field, isSet: value != nil) { optString(value?.rawValue) }
  }
  mutating func visit(_ field: RecordField, _ value: inout RevocationReason?) {
    if writes(field, isSet: value != nil) { optInt(value?.rawValue) }
  }
  mutating func visit(_ field: RecordField, _ value: inout BillingPlanType) { string(value.rawValue) }
  mutating func visit(_ field: RecordField, _ value: inout PriceIncreaseStatus) { string(value.rawValue) }
  mutating func visit(_ field: RecordField, _ value: inout ExpirationReason?) {
    if writes(field, isSet: value != nil) { optInt(value?.rawValue) }
  }
  mutating func visit<R: DeclaredRecord>(_ field: RecordField, _ value: inout R?) {
    guard writes(field, isSet: value != nil) else { return }
    if let value { record(value) } else { null() }
  }
}

extension StateCodec.Reader: RecordFieldVisitor {
  typealias Failure = StateCodec.DecodingError

  /// A record's row, read by its `visitRow`.
  mutating func record<R: DeclaredRecord>(_: R.Type) throws(StateCodec.DecodingError) -> R {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.fields(R.self) }
  }

  /// The fields of a record's row.
  mutating func fields<R: DeclaredRecord>(_: R.Type) throws(StateCodec.DecodingError) -> R {
    var value = R.blank
    let outer = rowEnded
    rowEnded = false
    try value.visitRow(&self)
    rowEnded = outer
    return value
  }

  mutating func transaction() throws(StateCodec.DecodingError) -> Transaction {
    try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.transactionFields() }
  }

  /// The fields of a transaction row, read into the transaction's own storage (a `Fields` read
  /// by `fields(_:)` would be copied into it).
  mutating func transactionFields() throws(StateCodec.DecodingError) -> Transaction {
    var t = Transaction(fields: .blank)
    let outer = rowEnded
    rowEnded = false
    try t.fields.visitRow(&self)
    rowEnded = outer
    return t
  }

  // The raw values of the transaction's named types, as bytes (`known`).
  static let productTypes = ProductType.allCases.map { (utf8: Array($0.rawValue.utf8), value: $0) }
  static let ownershipTypes = [OwnershipType.purchased, .familyShared].map {
    (utf8: Array($0.rawValue.utf8), value: $0)
  }
  static let reasons = [TransactionReason.purchase, .renewal].map { (utf8: Array($0.rawValue.utf8), value: $0) }

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

  /// Whether an optional field is in the row: always, unless it is trailing and the row ended
  /// before its group (rows written before the field existed). A group's first field reads
  /// the `,` that continues the row; the others of the group follow it.
  mutating func reads(_ field: RecordField) -> Bool {
    switch field.trailing {
    case .none, .bracketed: return true
    case .opensGroup:
      if !rowEnded, more() { return true }
      rowEnded = true
      return false
    case .inGroup: return !rowEnded
    }
  }

  mutating func visit(_ field: RecordField, _ value: inout UInt64) throws(Failure) { value = try uint() }
  mutating func visit(_ field: RecordField, _ value: inout UInt64?) throws(Failure) {
    guard field.trailing == .bracketed else { return value = reads(field) ? try optUInt() : nil }
    // Absent from rows written before the field existed; 0 is written as absent.
    value = nil
    if more() {
      let read = try row { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.uint() }
      value = read == 0 ? nil : read
    }
  }
  mutating func visit(_ field: RecordField, _ value: inout Int) throws(Failure) { value = try smallInt() }
  mutating func visit(_ field: RecordField, _ value: inout Bool) throws(Failure) { value = try bool() }
  mutating func visit(_ field: RecordField, _ value: inout String) throws(Failure) { value = try string() }
  mutating func visit(_ field: RecordField, _ value: inout String?) throws(Failure) {
    value = reads(field) ? try optString() : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout [String]) throws(Failure) {
    value = try list { (r: inout StateCodec.Reader) throws(StateCodec.DecodingError) in try r.string() }
  }
  mutating func visit(_ field: RecordField, _ value: inout Date) throws(Failure) { value = try date() }
  mutating func visit(_ field: RecordField, _ value: inout Date?) throws(Failure) {
    value = reads(field) ? try optDate() : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout Decimal) throws(Failure) { value = try decimal() }
  mutating func visit(_ field: RecordField, _ value: inout Decimal?) throws(Failure) {
    value = reads(field) ? try optDecimal() : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout UUID?) throws(Failure) {
    value = reads(field) ? try uuid() : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionOffer?) throws(Failure) {
    value = reads(field) ? try transactionOffer() : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout SubscriptionOffer?) throws(Failure) {
    value = reads(field) ? try offer() : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout BillingState) throws(Failure) { value = try billing() }
  mutating func visit(_ field: RecordField, _ value: inout ProductType) throws(Failure) {
    value = try known(Self.productTypes)
  }
  mutating func visit(_ field: RecordField, _ value: inout OwnershipType) throws(Failure) {
    value = try known(Self.ownershipTypes)
  }
  mutating func visit(_ field: RecordField, _ value: inout TransactionReason) throws(Failure) {
    value = try known(Self.reasons)
  }
  mutating func visit(_ field: RecordField, _ value: inout CustomerID?) throws(Failure) {
    value = reads(field) ? try optRaw(CustomerID.self) : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout RevocationReason?) throws(Failure) {
    value = reads(field) ? try optRawInt(RevocationReason.self) : nil
  }
  mutating func visit(_ field: RecordField, _ value: inout BillingPlanType) throws(Failure) {
    value = try raw(BillingPlanType.self)
  }
  mutating func visit(_ field: RecordField, _ value: inout PriceIncreaseStatus) throws(Failure) {
    value = try raw(PriceIncreaseStatus.self)
  }
  mutating func visit(_ field: RecordField, _ value: inout ExpirationReason?) throws(Failure) {
    value = reads(field) ? try optRawInt(ExpirationReason.self) : nil
  }
  mutating func visit<R: DeclaredRecord>(_ field: RecordField, _ value: inout R?) throws(Failure) {
    guard reads(field) else { return value = nil }
    value = try null() ? nil : try record(R.self)
  }
}
