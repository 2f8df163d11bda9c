import Foundation

/// What a session can hold, checked before anything is imported: ids the session counts on from
/// (transaction and web order line item ids up to `Int64.max`), and dates from year 1 to 9999.
/// Data past them is a problem naming the item, not a trap or a session that cannot be read.
enum ImportBounds {
  /// The largest id the import takes (new ids go on after it).
  static let largestID: UInt64 = UInt64(Int64.max)
  /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
  static let dates = Int64(-62_135_596_800_000)...Int64(253_402_300_799_999)

  static func problems(_ items: ImportedItems) -> [ImportProblem] {
    var out: [ImportProblem] = []
    func date(_ d: Date?, _ name: String, _ place: (file: String, item: String)) {
      guard let d else { return }
      let ms = d.timeIntervalSince1970 * 1000
      guard ms.isFinite, ms >= Double(dates.lowerBound), ms <= Double(dates.upperBound) else {
        return out.append(
          ImportProblem(file: place.file, item: place.item, message: "\(name) is out of range (years 1 to 9999)"))
      }
    }
    func check(_ t: ImportedItems.Item) {
      let p = t.fields.purchase
      for (id, name) in [(p.id, "transactionId"), (p.originalID, "originalTransactionId")] where id > largestID {
        out.append(ImportProblem(file: t.place.file, item: t.place.item, message: "\(name) \(id) is out of range"))
      }
      if let w = p.webOrderLineItemID, w > largestID {
        out.append(
          ImportProblem(file: t.place.file, item: t.place.item, message: "webOrderLineItemId \(w) is out of range"))
      }
      date(p.purchaseDate, "purchaseDate", t.place)
      date(p.originalPurchaseDate, "originalPurchaseDate", t.place)
      date(t.fields.status.expirationDate, "expiresDate", t.place)
      date(t.fields.status.revocationDate, "revocationDate", t.place)
      date(t.signedDate, "signedDate", t.place)
    }
    for t in items.transactions { check(t) }
    for r in items.renewals {
      let place = r.place
      if r.info.originalTransactionID > largestID {
        out.append(ImportProblem(file: place.file, item: place.item, message: "originalTransactionId is out of range"))
      }
      date(r.info.signedDate, "signedDate", place)
      date(r.info.renewalDate, "renewalDate", place)
      date(r.info.recentSubscriptionStartDate, "recentSubscriptionStartDate", place)
      date(r.info.gracePeriodExpirationDate, "gracePeriodExpirationDate", place)
    }
    for n in items.notifications {
      if let t = n.transaction { check(t) }
      date(n.signedDate, "signedDate", n.place)
      for a in n.attempts { date(a.date, "attemptDate", n.place) }
    }
    for a in items.appPurchaseDates { date(a.date, "originalPurchaseDate", a.place) }
    return out
  }
}
