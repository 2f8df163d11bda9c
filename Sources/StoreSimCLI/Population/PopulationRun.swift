import Foundation
import StoreSim
import StoreSimSession

/// Lives a population through a `Store`: every customer's steps (arrive, cancel, fail a
/// renewal, resolve it, change plan, ask for a refund…) are put on one agenda in time order,
/// and for each the clock is advanced to it (the engine renews, expires and notifies on the
/// way) and the step is asked of the store as a command would ask it. Nothing is written by
/// hand: the session is a normal one.
///
/// Determinism: a customer's choices come from their own dice (`PopulationDice`, seeded by the
/// run's seed and their number), and every date of theirs falls at their own time of day
/// (`timeOfDay`), unique to them, so no two customers' renewals share a millisecond and a
/// store-wide switch flipped for one customer's failing renewal touches nobody else. A customer
/// therefore lives the same life whether the run holds everyone or one shard.
struct PopulationRun {
  static let day: Int64 = 86_400_000
  static let hour: Int64 = 3_600_000

  let plan: PopulationPlan
  let start: Int64
  let end: Int64

  /// A step of the agenda: 24 bytes with no references, so the heap's sifts move little memory
  /// and count no references (its action waits in `actions`, at `slot`). With the action in the
  /// heap, popping took a growing share of the run: 36 times the samples for 10 times the
  /// customers (issue 50, item 7).
  struct Step: Comparable {
    var date: Int64
    /// The customer's number (not their place in the shard: steps order the same in any shard).
    var customer: Int
    var order: UInt32
    /// Where its action is in `actions`.
    var slot: UInt32

    static func < (a: Step, b: Step) -> Bool {
      (a.date, a.customer, a.order) < (b.date, b.customer, b.order)
    }
    static func == (a: Step, b: Step) -> Bool {
      (a.date, a.customer, a.order) == (b.date, b.customer, b.order)
    }
  }

  enum Action {
    case arrive
    case answerAskToBuy(requestID: String, approve: Bool)
    case reviewPeriod(group: SubscriptionGroupID)
    case cancel(group: SubscriptionGroupID)
    case takePromotionalOffer(product: ProductID, offer: String)
    case failRenewal(group: SubscriptionGroupID, expiration: Int64)
    case resolve(group: SubscriptionGroupID)
    case changePlan(to: ProductID)
    case refund(TransactionID)
  }

  /// What the run keeps per customer of the shard.
  struct Life {
    var number: Int
    var dice: PopulationDice
    var steps: UInt32 = 0
    /// The newest transaction whose refund has been decided.
    var refundsDecided: TransactionID = 0
    /// Whether the current billing failure's outcome has been decided.
    var failureDecided = false
    /// The date of the review in force (an upgrade replaces the one planned).
    var nextReview: Int64 = 0
  }

  var lives: [Life] = []
  var agenda = MinHeap<Step>()
  /// The actions of the steps on the agenda, by slot; a slot is reused once its step is done.
  var actions: [Action?] = []
  var freeSlots: [UInt32] = []

  init(plan: PopulationPlan, start: Date) {
    self.plan = plan
    self.start = start.epochMilliseconds
    end = UTCCalendar.adding(months: plan.months, to: start).epochMilliseconds
  }

  /// The customer's name.
  static func name(_ number: Int) -> CustomerID { CustomerID("c\(number)") }

  /// A time of day (ms) that is customer `number`'s alone for the first 86,400,000 customers:
  /// 7,919,993 shares no factor with 86,400,000 = 2^10·3^3·5^5, so the map is one to one.
  static func timeOfDay(_ number: Int) -> Int64 {
    Int64((UInt64(number) &* 7_919_993) % UInt64(day))
  }

  /// Runs the whole population on `store`, ending with the clock at the run's end. With
  /// `written`, the notifications are written out as they are made (a few thousand at a time),
  /// and the store keeps only their places (`OutboxFile`; docs/performance.md).
  mutating func run(on store: inout Store, writingOutTo written: OutboxFile? = nil) throws {
    let arrivalEnd = UTCCalendar.adding(months: plan.arrivalMonths, to: Date(epochMilliseconds: start))
      .epochMilliseconds
    let arrivalDays = max(1, (arrivalEnd - start) / Self.day)
    let firstDay = start - start % Self.day
    for number in 1...plan.customers where plan.includes(number) {
      var life = Life(number: number, dice: PopulationDice(seed: plan.seed, customer: number))
      var date = firstDay + Int64(life.dice.below(Int(arrivalDays))) * Self.day + Self.timeOfDay(number)
      if date < start { date += Self.day }
      lives.append(life)
      schedule(lives.count - 1, at: date, .arrive)
    }
    // The session's own switches (Ask to Buy for everyone, failing renewals…) are off while the
    // population lives; a step turns one on for itself. They are put back at the end.
    let saved = store.settings
    var base = saved
    base.askToBuyEnabled = false
    base.interruptedPurchasesEnabled = false
    base.shouldEnterBillingRetryOnRenewal = false
    base.billingGracePeriodIsEnabled = false
    base.failTransactionsEnabled = false
    base.simulatedErrors = [:]
    store.settings = base
    defer { store.settings = saved }
    while let step = agenda.popMin() {
      guard step.date < end else { break }
      let action = actions[Int(step.slot)]!
      actions[Int(step.slot)] = nil
      freeSlots.append(step.slot)
      try advance(&store, to: step.date)
      try perform(
        step, action, index: (step.customer - plan.shard.index) / plan.shard.count, on: &store, base: base)
      if let written, store.notifications.count - written.count >= Self.writtenOutAtOnce {
        try written.take(from: &store)
      }
    }
    try advance(&store, to: end)
    for life in lives {
      for member in familyMembers(of: life.number, store: store) + [Self.name(life.number)] {
        _ = try? store.finishAll(customer: member)
      }
    }
    try written?.take(from: &store)
  }

  /// How many new notifications are written out together.
  static let writtenOutAtOnce = 4096

  func familyMembers(of number: Int, store: Store) -> [CustomerID] {
    (1...3).map { CustomerID("c\(number).family\($0)") }.filter { store.hasCustomer($0) }
  }

  mutating func schedule(_ index: Int, at date: Int64, _ action: Action) {
    guard date < end else { return }
    lives[index].steps += 1
    let slot: UInt32
    if let free = freeSlots.popLast() {
      slot = free
      actions[Int(free)] = action
    } else {
      slot = UInt32(actions.count)
      actions.append(action)
    }
    agenda.insert(Step(date: date, customer: lives[index].number, order: lives[index].steps, slot: slot))
  }

  func advance(_ store: inout Store, to date: Int64) throws {
    let target = Date(epochMilliseconds: date)
    guard target > store.now else { return }
    try store.advance(to: target) { events in
      events.removeAll(keepingCapacity: true)
      return true
    }
  }
}
