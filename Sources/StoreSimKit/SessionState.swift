import Foundation
import StoreSim

/// What a session's lock guards (`SessionCore.state`): the store, and the update sequences it
/// feeds (see SessionCore+Listeners.swift).
struct SessionState: Sendable {
  var store: Store
  /// The live sequences' listeners, in the order they were made.
  var listeners: [ListenerSlot] = []
  var nextListenerID = 0
  var replayedUnfinished = false
  /// Transactions emitted for `Transaction.updates` while no listener took them, in order.
  var backlog: [TransactionID] = []
  /// Transactions a same-device `purchase()` returned to the app (never replayed on `updates`).
  var returnedToApp: Set<TransactionID> = []
  /// Detached tasks started with this session in reach that have not reached a sequence yet,
  /// and what was emitted since each started.
  var tasksOnTheirWay = EmissionLog()
  var settleWaiters: [SettleWaiter] = []
  var nextSettleWaiter = 0
  /// Purchase intents made while no `PurchaseIntent.intents` listener was there, in order.
  var intentBacklog: [PurchaseIntent] = []

  init(store: Store) {
    self.store = store
  }

  /// Registers a listener whose queue starts with `queue`.
  mutating func add<Element>(_ queue: ListenerQueue<Element>) -> Listener<Element> {
    let id = ListenerID(value: nextListenerID)
    nextListenerID += 1
    listeners.append(ListenerSlot(id: id, queue: queue))
    return Listener(id: id)
  }

  /// Where a listener's slot is (none once it was removed).
  func index(of id: ListenerID) -> Int? {
    listeners.firstIndex { $0.id == id }
  }
}

/// A listener's identity within its session.
struct ListenerID: Sendable, Hashable {
  let value: Int
}

/// A live sequence's listener, whose queue holds `Element`s.
struct Listener<Element: Sendable>: Sendable {
  let id: ListenerID
}

/// The queue of `Transaction.updates` listeners.
typealias TransactionQueue = ListenerQueue<VerificationResult<Transaction>>

/// One listener's state: what `settle()` needs to know of it, and its queue.
struct ListenerSlot: Sendable {
  let id: ListenerID
  /// Live iterators of the listener's sequence.
  var iterators = 0
  var everIterated = false
  var finished = false
  var queue: any AnyListenerQueue

  init(id: ListenerID, queue: any AnyListenerQueue) {
    self.id = id
    self.queue = queue
  }

  /// Someone takes (or is about to take) its elements: not ended, and not a sequence whose
  /// loops all ended.
  var isTaking: Bool { !finished && !(everIterated && iterators == 0) }

  /// Runs `body` on the queue if it holds `Element`s (nil if it does not).
  @discardableResult
  mutating func withQueue<Element, Result>(
    of: Element.Type, _ body: (inout ListenerQueue<Element>) -> Result
  ) -> Result? {
    guard var typed = queue as? ListenerQueue<Element> else { return nil }
    defer { queue = typed }
    return body(&typed)
  }
}

/// What `settle()` needs to know of a listener's queue, whatever its elements.
protocol AnyListenerQueue: Sendable {
  var isEmpty: Bool { get }
  var isWaiting: Bool { get }
  /// Takes the waiting consumer, to be told there is nothing more here (resumed after unlocking).
  mutating func release() -> (() -> Void)?
}

/// One live sequence's queue, and the consumer waiting for its next element.
struct ListenerQueue<Element: Sendable>: AnyListenerQueue {
  var items: [Element] = []
  var waiter: CheckedContinuation<Element?, Never>?

  var isEmpty: Bool { items.isEmpty }
  var isWaiting: Bool { waiter != nil }

  mutating func release() -> (() -> Void)? {
    guard let waiter else { return nil }
    self.waiter = nil
    return { waiter.resume(returning: nil) }
  }

  /// Appends, handing the first element to a waiting consumer (resumed after unlocking).
  mutating func enqueue(_ new: [Element], into wakeups: inout [() -> Void]) {
    guard !new.isEmpty else { return }
    items.append(contentsOf: new)
    if let waiter {
      self.waiter = nil
      let item = items.removeFirst()
      wakeups.append { waiter.resume(returning: item) }
    }
  }
}

/// What a listener's `next()` found under the lock.
enum Take<Element: Sendable> {
  case item(Element)
  case end
  /// The consumer waits (its continuation is in the queue); these are resumed after unlocking.
  case wait([() -> Void])
}
