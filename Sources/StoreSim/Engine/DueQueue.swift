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

  /// The deadlines, in two parts: the earliest bucket's (and any earlier) in a 4-ary min-heap,
  /// and each later bucket's in a list of its own, unordered until its turn comes. A bucket is
  /// a range of dates (`bucket(of:)`, about a day and a half). Deadlines are mostly queued a
  /// period ahead and taken in date order, so the heap holds about one bucket's worth, which
  /// stays in the caches, and a later bucket's list is only appended to until it becomes the
  /// heap: a heap of every subscriber's deadline missed the cache on each level of every pop.
  struct DueQueue: Sendable {
    /// The earliest deadlines, as a 4-ary min-heap (the four children of a node share a cache line).
    private var heap: [Due] = []
    /// The last bucket whose deadlines go into `heap`; each later one's wait in `later`.
    /// (`heap` is empty only when `later` is too.)
    private var heapBucket: UInt64 = 0
    /// The deadlines of later buckets, by bucket.
    private var later: [UInt64: [Due]] = [:]
    /// The keys of `later`, as a binary min-heap.
    private var laterBuckets: [UInt64] = []
    /// The bucket pushed to last and where it is in `later` (deadlines queued together mostly
    /// go to one bucket: this saves hashing its key again).
    private var lastBucket: (key: UInt64, index: Dictionary<UInt64, [Due]>.Index)?
    /// An emptied heap's storage, kept for the next new bucket so that its list does not grow
    /// from nothing again.
    private var spare: [Due] = []

    /// Every queued deadline, in no order.
    var items: [Due] { heap + later.values.joined() }

    /// The bucket of a deadline: dates in order give buckets in order (the date's order-
    /// preserving bits without the last 40: 2^17 s, about 36 hours, for this century's dates).
    static func bucket(of due: Due) -> UInt64 { due.time >> 40 }

    func peek() -> Due? { heap.first }

    mutating func push(_ due: Due) {
      let bucket = Self.bucket(of: due)
      if heap.isEmpty {
        heapBucket = bucket
      } else if bucket > heapBucket {
        if let last = lastBucket, last.key == bucket {
          later.values[last.index].append(due)
        } else if let index = later.index(forKey: bucket) {
          later.values[index].append(due)
          lastBucket = (bucket, index)
        } else {
          var list = spare
          spare = []
          list.append(due)
          later[bucket] = list
          Self.push(bucket, into: &laterBuckets)
          lastBucket = later.index(forKey: bucket).map { (bucket, $0) }
        }
        return
      }
      heap.append(due)
      heap.withUnsafeMutableBufferPointer { heap in
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
      guard let first = heap.first else { return nil }
      let last = heap.removeLast()
      if heap.isEmpty {
        if let next = Self.popMin(&laterBuckets) {
          heapBucket = next
          lastBucket = nil
          spare = heap
          heap = later.removeValue(forKey: next) ?? []
          heapify()
        }
        return first
      }
      siftDown(last, from: 0)
      return first
    }

    /// Places `value` at `start` or below it.
    private mutating func siftDown(_ value: Due, from start: Int) {
      heap.withUnsafeMutableBufferPointer { heap in
        let n = heap.count
        var i = start
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
          guard heap[m] < value else { break }
          heap[i] = heap[m]
          i = m
        }
        heap[i] = value
      }
    }

    /// Makes `heap` a heap, from its last parent up.
    private mutating func heapify() {
      guard heap.count > 1 else { return }
      for i in stride(from: (heap.count - 2) / 4, through: 0, by: -1) { siftDown(heap[i], from: i) }
    }

    private static func push(_ key: UInt64, into keys: inout [UInt64]) {
      keys.append(key)
      var i = keys.count - 1
      while i > 0, key < keys[(i - 1) / 2] {
        keys[i] = keys[(i - 1) / 2]
        i = (i - 1) / 2
      }
      keys[i] = key
    }

    private static func popMin(_ keys: inout [UInt64]) -> UInt64? {
      guard let first = keys.first else { return nil }
      let last = keys.removeLast()
      guard !keys.isEmpty else { return first }
      var i = 0
      while true {
        var c = 2 * i + 1
        if c >= keys.count { break }
        if c + 1 < keys.count, keys[c + 1] < keys[c] { c += 1 }
        guard keys[c] < last else { break }
        keys[i] = keys[c]
        i = c
      }
      keys[i] = last
      return first
    }
  }
}
