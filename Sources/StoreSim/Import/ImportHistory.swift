import Foundation

/// What Get Transaction History answers say beyond the transactions they list (docs/import.md,
/// "History answers"): Apple's order of modification, and which consumables the app had finished.
enum ImportHistory {
  /// The transactions in the order the history answers list them: each answer's order is kept
  /// (a v1 answer is v2's without the finished consumables, a page goes on from the one before),
  /// and where no answer orders two transactions, the one met first in the data goes first.
  /// Answers that disagree (one sorted `DESCENDING`) are followed as far as they agree.
  ///
  /// - Parameter firstSeen: every transaction and where it first stood in the data (distinct).
  static func modificationOrder(
    firstSeen: [TransactionID: Int], answers: [[TransactionID]]
  ) -> [TransactionID] {
    var after: [TransactionID: [TransactionID]] = [:]
    var before: [TransactionID: Int] = [:]
    for answer in answers {
      for (a, b) in zip(answer, answer.dropFirst()) where a != b && firstSeen[a] != nil && firstSeen[b] != nil {
        after[a, default: []].append(b)
        before[b, default: 0] += 1
      }
    }
    let bySeen = firstSeen.sorted { $0.value < $1.value }.map(\.key)
    var ready = MinHeap<Int>()
    for (i, id) in bySeen.enumerated() where before[id] == nil { ready.insert(i) }
    var index: [TransactionID: Int] = [:]
    for (i, id) in bySeen.enumerated() { index[id] = i }
    var done = Set<TransactionID>()
    var out: [TransactionID] = []
    var cursor = 0
    while out.count < bySeen.count {
      var next = ready.popMin()
      if next == nil {
        // The answers disagree: the first one met of those left goes next.
        while done.contains(bySeen[cursor]) { cursor += 1 }
        next = cursor
      }
      let id = bySeen[next!]
      guard done.insert(id).inserted else { continue }
      out.append(id)
      for b in after[id] ?? [] {
        before[b, default: 0] -= 1
        if before[b] == 0, !done.contains(b), let i = index[b] { ready.insert(i) }
      }
    }
    return out
  }

  /// The consumables the app had finished, as far as the answers tell: Get Transaction History
  /// v1 leaves out finished consumables and v2 does not, and their answers look the same. A
  /// whole answer (its last page says `hasMore` false) that leaves out some of its customer's
  /// transactions bought before it was signed, all of them consumables not refunded by then, is
  /// v1's: those consumables were finished.
  static func finishedConsumables(
    items: ImportedItems, customers: [[ImportedItems.Item]], configuration: StoreConfiguration
  ) -> Set<TransactionID> {
    guard !items.histories.isEmpty else { return [] }
    var customerOf: [TransactionID: Int] = [:]
    for (k, list) in customers.enumerated() {
      for t in list { customerOf[t.fields.purchase.id] = k }
    }
    func isConsumable(_ t: ImportedItems.Item) -> Bool {
      (configuration.product(t.fields.purchase.productID)?.type ?? t.fields.purchase.productType) == .consumable
    }
    var finished = Set<TransactionID>()
    for key in items.historyOrder {
      guard let answer = items.histories[key], answer.isComplete, let signed = answer.signed,
        let first = answer.ids.first, let k = customerOf[first]
      else { continue }
      let listed = Set(answer.ids)
      let missing = customers[k].filter { t in
        !listed.contains(t.fields.purchase.id) && t.fields.purchase.purchaseDate <= signed
      }
      let allFinishedConsumables = missing.allSatisfy { t in
        isConsumable(t) && (t.fields.status.revocationDate.map { $0 > signed } ?? true)
      }
      if !missing.isEmpty && allFinishedConsumables { finished.formUnion(missing.map(\.fields.purchase.id)) }
    }
    return finished
  }
}
