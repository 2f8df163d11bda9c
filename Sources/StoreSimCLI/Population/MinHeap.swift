/// A binary min-heap: the population's agenda, earliest step first.
struct MinHeap<Element: Comparable> {
  private var items: [Element] = []

  var count: Int { items.count }

  mutating func insert(_ element: Element) {
    items.append(element)
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child] < items[parent] else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popMin() -> Element? {
    guard !items.isEmpty else { return nil }
    items.swapAt(0, items.count - 1)
    let top = items.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < items.count, items[left] < items[smallest] { smallest = left }
      if right < items.count, items[right] < items[smallest] { smallest = right }
      if smallest == parent { break }
      items.swapAt(parent, smallest)
      parent = smallest
    }
    return top
  }
}
