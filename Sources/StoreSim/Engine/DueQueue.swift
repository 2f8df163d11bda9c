import Foundation

extension Store {
  /// A deadline. Ordered by (date, rank, customer, subscription) through two integer keys: the
  /// date's bits made order-preserving, and the rest packed into one word. The date is kept as
  /// `timeIntervalSinceReferenceDate`, which is what `Date` stores: the round trip is exact
  /// (going through `timeIntervalSince1970` adds and subtracts an offset and can lose the last
  /// bit, and a deadline that no longer equals its subscription's is dropped as stale).
  struct Due: Sendable {
    var time: UInt64
    var tie: UInt64

    init(date: Date, rank: Int, customer: CustomerHandle, subscription: Int) {
      let bits = date.timeIntervalSinceReferenceDate.bitPattern
      time = bits & (1 << 63) == 0 ? bits | (1 << 63) : ~bits
      tie = UInt64(rank) << 56 | UInt64(customer.index) << 16 | UInt64(subscription)
    }

    var date: Date {
      Date(timeIntervalSinceReferenceDate: Double(bitPattern: time & (1 << 63) != 0 ? time & ~(1 << 63) : ~time))
    }
    var rank: Int { Int(tie >> 56) }
    var customer: CustomerHandle { CustomerHandle(index: Int(tie >> 16 & 0xff_ffff_ffff)) }
    var subscription: Int { Int(tie & 0xffff) }

    static func < (a: Due, b: Due) -> Bool {
      a.time != b.time ? a.time < b.time : a.tie < b.tie
    }
  }

  /// A 4-ary min-heap of deadlines: half the depth of a binary heap, and the four children of a
  /// node share a cache line.
  struct DueQueue: Sendable {
    private(set) var items: [Due] = []

    func peek() -> Due? { items.first }

    mutating func push(_ due: Due) {
      items.append(due)
      items.withUnsafeMutableBufferPointer { heap in
        var i = heap.count - 1
        while i > 0 {
          let parent = (i - 1) / 4
          guard due < heap[parent] else { break }
          heap[i] = heap[parent]
          i = parent
        }
        heap[i] = due
      }
    }

    @discardableResult
    mutating func pop() -> Due? {
      guard let first = items.first else { return nil }
      let last = items.removeLast()
      items.withUnsafeMutableBufferPointer { heap in
        let n = heap.count
        guard n > 0 else { return }
        var i = 0
        while true {
          let c = 4 * i + 1
          if c >= n { break }
          var m = c
          var j = c + 1
          let end = min(c + 4, n)
          while j < end {
            if heap[j] < heap[m] { m = j }
            j += 1
          }
          guard heap[m] < last else { break }
          heap[i] = heap[m]
          i = m
        }
        heap[i] = last
      }
      return first
    }
  }
}
