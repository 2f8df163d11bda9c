/// A 4-ary min-heap: the population's agenda, earliest step first, and the order import gives
/// the transactions of several history answers. A step's four children sit
/// side by side (96 bytes of 24-byte steps), so a pop looks at half the levels of a binary
/// heap's and moves each element once, into the hole, instead of swapping it: at 100,000
/// customers the agenda outgrows the caches, and a binary heap's pops took 21 times the samples
/// for 10 times the customers (issue 50, item 7; docs/performance.md). Steps never tie, so the
/// order they come out in is the same whatever the heap's shape.
package struct MinHeap<Element: Comparable> {
  private var items: [Element] = []

  package init() {}

  package var count: Int { items.count }

  package mutating func insert(_ element: Element) {
    items.append(element)
    var hole = items.count - 1
    while hole > 0 {
      let parent = (hole - 1) / 4
      guard element < items[parent] else { break }
      items[hole] = items[parent]
      hole = parent
    }
    items[hole] = element
  }

  package mutating func popMin() -> Element? {
    guard let last = items.popLast() else { return nil }
    guard !items.isEmpty else { return last }
    let top = items[0]
    let count = items.count
    var hole = 0
    while true {
      let first = 4 * hole + 1
      guard first < count else { break }
      var smallest = first
      var child = first + 1
      let end = min(first + 4, count)
      while child < end {
        if items[child] < items[smallest] { smallest = child }
        child += 1
      }
      guard items[smallest] < last else { break }
      items[hole] = items[smallest]
      hole = smallest
    }
    items[hole] = last
    return top
  }
}
