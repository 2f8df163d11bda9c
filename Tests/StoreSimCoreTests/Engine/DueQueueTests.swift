import Foundation
import Testing

@testable import StoreSim

/// The deadline queue on its own: a 4-ary min-heap of packed keys.
@Suite struct DueQueueTests {
  typealias Due = Store.Due

  @Test func packedKeysKeepDatesRanksCustomersAndSubscriptionsExactly() {
    let dates = [
      Date(timeIntervalSinceReferenceDate: -1e9), Date(timeIntervalSinceReferenceDate: 0),
      Date(timeIntervalSince1970: 1_767_225_600.123), Date(timeIntervalSinceReferenceDate: 8e9),
    ]
    for date in dates {
      let due = Due(date: date, rank: 2, customer: CustomerHandle(index: 123_456), subscription: 65_535)
      #expect(due.date == date)
      #expect(due.rank == 2 && due.customer == CustomerHandle(index: 123_456) && due.subscription == 65_535)
    }
  }

  @Test func deadlinesOrderByDateThenRankThenCustomerThenSubscription() {
    let t = Date(timeIntervalSince1970: 1_767_225_600)
    let ordered = [
      Due(date: t.addingTimeInterval(-1), rank: 2, customer: CustomerHandle(index: 9), subscription: 9),
      Due(date: t, rank: 1, customer: CustomerHandle(index: 9), subscription: 9),
      Due(date: t, rank: 2, customer: CustomerHandle(index: 0), subscription: 9),
      Due(date: t, rank: 2, customer: CustomerHandle(index: 1), subscription: 0),
      Due(date: t, rank: 2, customer: CustomerHandle(index: 1), subscription: 1),
    ]
    for (a, b) in zip(ordered, ordered.dropFirst()) {
      #expect(a < b)
      #expect(!(b < a))
    }
  }

  @Test func popsEveryDeadlineInOrderWhateverThePushOrder() {
    var generator = SystemRandomNumberGenerator()
    for size in [0, 1, 2, 5, 16, 17, 100, 1000] {
      var queue = Store.DueQueue()
      var pushed: [Due] = []
      for _ in 0..<size {
        let due = Due(
          date: Date(timeIntervalSince1970: Double(Int.random(in: 0...50, using: &generator)) * 86_400),
          rank: Int.random(in: 1...2, using: &generator),
          customer: CustomerHandle(index: Int.random(in: 0...20, using: &generator)),
          subscription: Int.random(in: 0...3, using: &generator))
        pushed.append(due)
        queue.push(due)
        // Interleave pops with pushes now and then: the heap stays a heap.
        if Int.random(in: 0...3, using: &generator) == 0, let top = queue.pop() {
          let least = pushed.min(by: <)!
          #expect(!(least < top) && !(top < least))
          pushed.remove(at: pushed.firstIndex { !($0 < top) && !(top < $0) }!)
        }
      }
      var popped: [Due] = []
      while let due = queue.pop() { popped.append(due) }
      #expect(popped.count == pushed.count)
      for (a, b) in zip(popped, popped.dropFirst()) { #expect(!(b < a)) }
      #expect(queue.peek() == nil)
    }
  }
}
