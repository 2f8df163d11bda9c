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
  /// whole answer (its last page says `hasMore` false) beside another history answer of the
  /// same account (the two list a transaction in common) that lists more, every one of those
  /// more a consumable bought before the whole answer was signed and not refunded by then, is
  /// v1's: those consumables were finished.
  static func finishedConsumables(
    items: ImportedItems, byID: [TransactionID: ImportedItems.Item], configuration: StoreConfiguration
  ) -> Set<TransactionID> {
    let answers = items.historyOrder.compactMap { items.histories[$0] }
    guard answers.count > 1 else { return [] }
    // The answers listing each transaction.
    var listing: [TransactionID: [Int]] = [:]
    for (k, answer) in answers.enumerated() {
      for id in answer.ids where listing[id]?.last != k { listing[id, default: []].append(k) }
    }
    func isConsumable(_ t: ImportedItems.Item) -> Bool {
      (configuration.product(t.fields.purchase.productID)?.type ?? t.fields.purchase.productType) == .consumable
    }
    var finished = Set<TransactionID>()
    for (k, answer) in answers.enumerated() where answer.isComplete {
      guard let signed = answer.signed else { continue }
      let listed = Set(answer.ids)
      var others = Set<Int>()
      for id in answer.ids { others.formUnion(listing[id] ?? []) }
      others.remove(k)
      for o in others.sorted() {
        let more = Set(answers[o].ids).subtracting(listed).compactMap { byID[$0] }
          .filter { $0.fields.purchase.purchaseDate <= signed }
        let onlyFinishedConsumables = more.allSatisfy { t in
          isConsumable(t) && (t.fields.status.revocationDate.map { $0 > signed } ?? true)
        }
        if !more.isEmpty && onlyFinishedConsumables { finished.formUnion(more.map(\.fields.purchase.id)) }
      }
    }
    return finished
  }
}
