import Foundation
import Testing

@testable import StoreSim

/// The deadline queue on its own: packed keys, the earliest bucket's in a heap, later ones listed.
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

  /// A deadline queued for a bucket earlier than the heap's (a back-dated purchase) or for a
  /// later one than any queued still comes out in order, and `items` holds every deadline
  /// queued, in the heap and in the later buckets.
  @Test func deadlinesBeforeTheHeapsBucketAndAfterTheLastComeOutInOrder() {
    let day = 86_400.0
    func due(_ days: Double, _ customer: Int) -> Due {
      Due(
        date: Date(timeIntervalSince1970: 1_767_225_600 + days * day), rank: 2,
        customer: CustomerHandle(index: customer), subscription: 0)
    }
    var queue = Store.DueQueue()
    for (days, customer) in [(30.0, 1), (60, 2), (30.5, 3), (90, 4), (0.25, 5)] { queue.push(due(days, customer)) }
    #expect(queue.items.count == 5)
    #expect(queue.pop()?.customer == CustomerHandle(index: 5))
    #expect(queue.pop()?.customer == CustomerHandle(index: 1))  // the heap holds the earliest bucket now
    queue.push(due(-10, 6))  // earlier than the heap's bucket
    queue.push(due(400, 7))  // later than any
    queue.push(due(30.25, 8))
    #expect(Set(queue.items.map(\.customer.index)) == [2, 3, 4, 6, 7, 8])
    var order: [Int] = []
    while let next = queue.pop() { order.append(next.customer.index) }
    #expect(order == [6, 8, 3, 2, 4, 7])
    #expect(queue.items.isEmpty && queue.peek() == nil)
  }
}
