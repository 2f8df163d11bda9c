import Foundation

/// A first attempt a delivery fault holds past the time of the change that caused it; a later
/// change sends it once its date has come (state kept in the session).
package struct HeldDelivery: Sendable, Hashable, Codable {
  package var index: Int
  package var url: String
  package var date: Date
  package var fault: String?
  package var duplicate: Bool
}

/// Apple's delivery on the virtual clock, as a value: the POSTs a change makes, in the order
/// of their virtual dates (commands in: `next`, `record`; the sending is the front end's).
///
/// - A new notification's first attempt is made at its `signedDate` (later when a delivery
///   fault delays or holds it).
/// - In a Production session, a version 2 notification whose App Store attempt failed is tried
///   again 1, 12, 24, 48 and 72 hours after the previous attempt, with the same payload, at the
///   session's notification URL of that time (else the failed attempt's): six attempts at most (rule notifications-are-retried-in-production). Other environments try
///   once (rule sandbox-notifications-are-sent-once).
/// - A retry that fell due by `now` (in this change or an earlier one) is part of the plan.
package struct DeliveryPlan: Sendable {
  /// One POST to make.
  package struct Due: Sendable, Hashable {
    package var index: Int
    package var url: String
    package var date: Date
    package var origin: DeliveryOrigin?
    package var fault: String?

    package init(index: Int, url: String, date: Date, origin: DeliveryOrigin? = nil, fault: String? = nil) {
      self.index = index
      self.url = url
      self.date = date
      self.origin = origin
      self.fault = fault
    }
  }

  /// Hours after the previous attempt at which the App Store retries a version 2 notification.
  package static let retryIntervals: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * 3_600 }
  /// The first attempt and five retries.
  package static let maximumAttempts = 6

  package let now: Date
  /// Whether failed App Store attempts are retried (a Production session).
  package let retries: Bool
  package let faults: DeliveryFaults?
  /// Where a retry goes: the session's notification URL at the time of the retry, else the
  /// URL of the failed attempt.
  package let retryURL: String?
  /// First attempts held past `now` (what the session keeps after this plan).
  package private(set) var held: [HeldDelivery]
  /// Whether the held list changed (so the session must be saved even with nothing sent).
  package private(set) var heldChanged = false

  private var queue: [(key: Key, due: Due)] = []
  private var sequence = 0
  /// App Store attempts made of each notification so far (this plan's included).
  private var attempts: [Int: Int] = [:]

  private struct Key: Comparable {
    var date: Date
    var index: Int
    var rank: Int
    var sequence: Int
    static func < (a: Key, b: Key) -> Bool {
      (a.date, a.index, a.rank, a.sequence) < (b.date, b.index, b.rank, b.sequence)
    }
  }

  /// The deliveries a change makes: the notifications after the first `count` to `url` (none
  /// without one), the held first attempts whose date has come, and (Production) the retries
  /// of earlier failed attempts that fell due by now.
  package init(_ store: Store, newSince count: Int, to url: String?) {
    now = store.now
    retries = store.state.environment == .production
    faults = store.state.deliveryFaults
    retryURL = store.state.deliveryURL
    held = []
    countAttempts(store)
    for h in store.state.heldDeliveries ?? [] {
      if h.date <= now, h.index < store.notifications.count {
        push(Due(index: h.index, url: h.url, date: h.date, fault: h.fault))
        if h.duplicate { push(Due(index: h.index, url: h.url, date: h.date, origin: .duplicate, fault: "duplicate")) }
        heldChanged = true
      } else {
        held.append(h)
      }
    }
    if let url, count < store.notifications.count {
      for i in count..<store.notifications.count {
        scheduleFirstAttempt(i, url: url, signedDate: store.notifications[i].signedDate)
      }
    }
    if retries { scheduleDueRetries(store) }
  }

  /// Deliveries chosen by the tester (`notifications deliver`), made now: first attempts to a
  /// URL (`origin` nil, App Store attempts that Production retries later) or resends.
  package init(_ store: Store, explicit: [(index: Int, url: String, origin: DeliveryOrigin?)]) {
    now = store.now
    retries = store.state.environment == .production
    faults = store.state.deliveryFaults
    retryURL = store.state.deliveryURL
    held = store.state.heldDeliveries ?? []
    countAttempts(store)
    for item in explicit { push(Due(index: item.index, url: item.url, date: now, origin: item.origin)) }
  }

  /// Nothing to send and nothing to keep.
  package var isEmpty: Bool { queue.isEmpty && !heldChanged }

  /// The POSTs planned so far, in order (what `next` would give, without retries yet to come).
  package var pending: [Due] { queue.sorted { $0.key < $1.key }.map(\.due) }

  /// Whether the receiver is down at `date` (an outage fault).
  package func isOutage(at date: Date) -> Bool { faults?.isOutage(at: date) ?? false }

  /// The earliest POST due (in virtual time), removed from the plan.
  package mutating func next() -> Due? {
    guard !queue.isEmpty else { return nil }
    let first = queue[0].due
    let lastEntry = queue.removeLast()
    if !queue.isEmpty {
      queue[0] = lastEntry
      var i = 0
      while true {
        let (l, r) = (2 * i + 1, 2 * i + 2)
        var smallest = i
        if l < queue.count && queue[l].key < queue[smallest].key { smallest = l }
        if r < queue.count && queue[r].key < queue[smallest].key { smallest = r }
        if smallest == i { break }
        queue.swapAt(i, smallest)
        i = smallest
      }
    }
    return first
  }

  /// Records the outcome of a POST `next` gave; returns when the App Store tries again (nil
  /// when it does not). A retry that falls due by `now` joins the plan.
  @discardableResult
  package mutating func record(_ due: Due, succeeded: Bool) -> Date? {
    guard due.origin == nil else { return nil }
    let made = (attempts[due.index] ?? 0) + 1
    attempts[due.index] = succeeded ? Self.maximumAttempts : made
    guard retries, !succeeded, made < Self.maximumAttempts else { return nil }
    let date = due.date.addingTimeInterval(Self.retryIntervals[made - 1])
    if date <= now { push(Due(index: due.index, url: retryURL ?? due.url, date: date)) }
    return date
  }

  // MARK: Building

  private mutating func countAttempts(_ store: Store) {
    for d in store.state.deliveryLog ?? [] where d.isAppStoreAttempt {
      attempts[d.index] = d.succeeded ? Self.maximumAttempts : max(attempts[d.index] ?? 0, 0) + 1
    }
  }

  private mutating func scheduleFirstAttempt(_ index: Int, url: String, signedDate: Date) {
    guard let faults else {
      push(Due(index: index, url: url, date: signedDate))
      return
    }
    let choice = faults.firstAttempt(of: index)
    let date = signedDate.addingTimeInterval(choice.delay)
    if date > now {
      held.append(HeldDelivery(index: index, url: url, date: date, fault: choice.label, duplicate: choice.duplicate))
      heldChanged = true
      return
    }
    push(Due(index: index, url: url, date: date, fault: choice.label))
    if choice.duplicate { push(Due(index: index, url: url, date: date, origin: .duplicate, fault: "duplicate")) }
  }

  /// The retries of earlier attempts that fell due by now and were not made: a failed App
  /// Store attempt, the notification's last, with fewer than six made.
  private mutating func scheduleDueRetries(_ store: Store) {
    var last: [Int: NotificationDelivery] = [:]
    for d in store.state.deliveryLog ?? [] where d.isAppStoreAttempt { last[d.index] = d }
    for (index, d) in last.sorted(by: { $0.key < $1.key }) {
      let made = attempts[index] ?? 0
      guard !d.succeeded, made < Self.maximumAttempts, index < store.notifications.count else { continue }
      let date = d.date.addingTimeInterval(Self.retryIntervals[made - 1])
      if date <= now { push(Due(index: index, url: retryURL ?? d.url, date: date)) }
    }
  }

  private mutating func push(_ due: Due) {
    sequence += 1
    let key = Key(date: due.date, index: due.index, rank: due.origin == nil ? 0 : 1, sequence: sequence)
    // A binary heap ordered by virtual date: each POST is taken in order.
    queue.append((key, due))
    var i = queue.count - 1
    while i > 0 {
      let parent = (i - 1) / 2
      guard queue[i].key < queue[parent].key else { break }
      queue.swapAt(i, parent)
      i = parent
    }
  }
}
