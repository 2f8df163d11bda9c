import Foundation

/// `import --redact` (docs/import.md): the ids that point at a real customer replaced with
/// stable pseudonyms before anything is linked, so a customer's case can be shared.
///
/// - Transaction ids (`transactionId`, `originalTransactionId`, a family copy's purchaser's) are
///   one id space: its distinct values, sorted, become the session's next ids in order
///   (`2000000000000001`, ... in a fresh session), so their order, and every link between a
///   renewal and its original transaction, holds.
/// - `webOrderLineItemId`s the same way, from the session's next web order line item id.
/// - `appAccountToken`s: the distinct tokens, sorted, become `00000000-0000-4000-8000-000000000001`,
///   `...0002`, and so on, so transactions that shared a token still share one.
/// - `appTransactionId` is dropped (the customer gets the session's own, as a customer made here).
///
/// The same data imported into the same session gives the same pseudonyms; nothing is hashed,
/// so a pseudonym says nothing about the id it replaces.
struct ImportRedaction {
  private(set) var transactionIDs: [TransactionID: TransactionID] = [:]
  private(set) var webOrderLineItemIDs: [UInt64: UInt64] = [:]
  private(set) var tokens: [UUID: UUID] = [:]

  init(items: ImportedItems, firstTransactionID: TransactionID, firstWebOrderLineItemID: UInt64) {
    var ids: Set<TransactionID> = []
    var webOrders: Set<UInt64> = []
    var tokens: Set<UUID> = []
    func note(_ p: Transaction.Fields.Purchase) {
      ids.insert(p.id)
      ids.insert(p.originalID)
      if let s = p.sharedTransactionID { ids.insert(s) }
      if let w = p.webOrderLineItemID { webOrders.insert(w) }
      if let t = p.appAccountToken { tokens.insert(t) }
    }
    func note(_ r: RenewalInfo) {
      ids.insert(r.originalTransactionID)
      if let t = r.appAccountToken { tokens.insert(t) }
    }
    for t in items.transactions { note(t.fields.purchase) }
    for r in items.renewals { note(r.info) }
    for n in items.notifications {
      if let t = n.transaction { note(t.fields.purchase) }
      if let r = n.renewal { note(r.info) }
    }
    for (k, id) in ids.sorted().enumerated() { transactionIDs[id] = firstTransactionID + TransactionID(k) }
    for (k, id) in webOrders.sorted().enumerated() { webOrderLineItemIDs[id] = firstWebOrderLineItemID + UInt64(k) }
    for (k, token) in tokens.sorted(by: { $0.uuidString < $1.uuidString }).enumerated() {
      self.tokens[token] = Self.pseudonym(k + 1)
    }
  }

  /// The `n`th token pseudonym: `00000000-0000-4000-8000-` and `n` in 12 decimal digits.
  static func pseudonym(_ n: Int) -> UUID {
    let digits = String(n)
    let tail = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    return UUID(uuidString: "00000000-0000-4000-8000-" + tail)
      ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
  }

  func apply(to items: inout ImportedItems) {
    for i in items.transactions.indices { apply(to: &items.transactions[i]) }
    for (key, answer) in items.histories {
      items.histories[key]?.ids = answer.ids.map { transactionIDs[$0] ?? $0 }
    }
    for i in items.renewals.indices { apply(to: &items.renewals[i].info) }
    for i in items.notifications.indices {
      if var t = items.notifications[i].transaction {
        apply(to: &t)
        items.notifications[i].transaction = t
      }
      if var r = items.notifications[i].renewal {
        apply(to: &r.info)
        items.notifications[i].renewal = r
      }
      items.notifications[i].uuid = nil
      items.notifications[i].appTransactionID = nil
      items.notifications[i].signedPayload = nil
    }
  }

  private func apply(to item: inout ImportedItems.Item) {
    var p = item.fields.purchase
    p.id = transactionIDs[p.id] ?? p.id
    p.originalID = transactionIDs[p.originalID] ?? p.originalID
    if let s = p.sharedTransactionID { p.sharedTransactionID = transactionIDs[s] ?? s }
    if let w = p.webOrderLineItemID { p.webOrderLineItemID = webOrderLineItemIDs[w] ?? w }
    if let t = p.appAccountToken { p.appAccountToken = tokens[t] ?? t }
    item.fields.purchase = p
    item.appTransactionID = nil
  }

  private func apply(to info: inout RenewalInfo) {
    info.originalTransactionID = transactionIDs[info.originalTransactionID] ?? info.originalTransactionID
    if let t = info.appAccountToken { info.appAccountToken = tokens[t] ?? t }
  }
}
