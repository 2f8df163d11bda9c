/// What the update sequences were handed while a tracked detached task was on its way to one
/// (a `Task.detached` started with the session in reach that has not read an update sequence
/// yet): the first sequence such a task reads starts with everything emitted after the task was
/// started, whoever else took it. So a listener whose task was started before a control call
/// hears what the call emitted, however late it starts iterating, as every `Transaction.updates`
/// sequence on a device receives every update. Entries are kept only while a task that started
/// before them is still on its way.
struct EmissionLog: Sendable {
  /// One delivery, as the listeners were handed it.
  enum Entry: Sendable {
    case transaction(VerificationResult<Transaction>)
    case status(Product.SubscriptionInfo.Status)
  }

  /// A task on its way.
  struct Mark: Sendable, Hashable {
    fileprivate let id: Int
  }

  private var entries: [Entry] = []
  /// The position of `entries[0]` since the session began.
  private var start = 0
  /// Where each task on its way starts.
  private var marks: [Mark: Int] = [:]
  private var nextMark = 0

  private var end: Int { start + entries.count }

  /// The tasks on their way.
  var count: Int { marks.count }

  /// A task was started: it will be handed what is emitted from now on.
  mutating func mark() -> Mark {
    let mark = Mark(id: nextMark)
    nextMark += 1
    marks[mark] = end
    return mark
  }

  /// The task reached a sequence, ended, or moved to another session.
  mutating func release(_ mark: Mark) {
    marks[mark] = nil
    let keepFrom = marks.values.min() ?? end
    entries.removeFirst(keepFrom - start)
    start = keepFrom
  }

  /// Keeps what the sequences were just handed, if a task on its way will want it.
  mutating func record(_ new: [Entry]) {
    guard !marks.isEmpty else { return }
    entries += new
  }

  /// What was emitted since `mark`'s task started, in order (nothing for a mark that was
  /// released).
  func since(_ mark: Mark) -> ArraySlice<Entry> {
    guard let position = marks[mark] else { return [] }
    return entries[(position - start)...]
  }

  /// Whether a task on its way, other than `except`, is owed something.
  func owesAnything(except: Mark? = nil) -> Bool {
    marks.contains { $0.key != except && $0.value < end }
  }

  /// Whether a task other than `except` is on its way.
  func hasTasks(except: Mark? = nil) -> Bool {
    marks.keys.contains { $0 != except }
  }
}

/// A `settle()` call waiting; `except` is the task it runs in, if that is one on its way (it
/// cannot wait for itself), and `patience` ends the wait for tasks on their way (see `settle`).
struct SettleWaiter: Sendable {
  let id: Int
  let continuation: CheckedContinuation<Void, Never>
  let except: EmissionLog.Mark?
  var waitsForTasks = true
}
