import Foundation
import StoreSim
import StoreSimHTTP
import StoreSimSync

/// Reading answers of one generation of the session, keyed by the whole request (method,
/// target and body), each with what its route needs (so a request answered before can be
/// answered again without routing it): at most 4,096 answers and 32 MiB of keys and bodies,
/// then it starts over.
package final class AnswerCache: Sendable {
  /// A kept answer and what the route that answered needs.
  package struct Entry: Sendable {
    package var answer: HTTPResponse
    package var needs: Route.Needs
  }

  /// A reading answer depends only on the request and the store: the same request on the
  /// same generation of the session gets the same answer. The key is the request's method,
  /// target and body as they are (the body byte for byte: a byte that is not UTF-8 must not
  /// read as U+FFFD, the key of another body), so making it copies no bytes.
  package struct Key: Hashable, Sendable {
    var method: String
    var target: String
    var body: [UInt8]

    package init(_ request: HTTPRequest) {
      method = request.method
      target = request.target
      body = request.body
    }

    /// The bytes the key holds, counted against the cache's limit.
    var size: Int { method.utf8.count + target.utf8.count + body.count }
  }

  private struct Answers {
    var generation = -1
    var answers: [Key: Entry] = [:]
    var bytes = 0
    /// Answers of this generation being made now (by `answer(_:generation:making:)`).
    var making: Set<Key> = []
    /// Requests waiting for an answer another is making.
    var waiting = 0
    /// Answers made so far, all generations (for tests).
    var made = 0
  }

  private let held = Condition(Answers())
  static let maxAnswers = 4096
  static let maxBytes = 32 << 20

  package init() {}

  package func entry(_ key: Key, generation: Int) -> Entry? {
    held.withLock { $0.generation == generation ? $0.answers[key] : nil }
  }

  package func answer(_ key: Key, generation: Int) -> HTTPResponse? {
    entry(key, generation: generation)?.answer
  }

  /// How many answers `answer(_:generation:making:)` has made (for tests: once per key and
  /// generation).
  package var made: Int { held.withLock { $0.made } }

  /// What `answer(_:generation:making:)` does for a request.
  private enum Turn {
    case kept(HTTPResponse)
    /// This request makes the answer (and keeps it).
    case making
    /// The cache has moved on to a newer generation: the answer is made and not kept.
    case stale
  }

  /// The kept answer, or the one `make` makes, made once per key and generation: the requests
  /// that ask for an answer another request is making (the flood after a session change) wait
  /// for it instead of each making and signing it again.
  package func answer(
    _ key: Key, generation: Int, making make: () -> (answer: HTTPResponse, needs: Route.Needs)
  ) -> HTTPResponse {
    let turn = held.wait(
      for: { c -> Turn? in
        if c.generation > generation {
          c.made += 1
          return .stale
        }
        if c.generation < generation { c = Answers(generation: generation, waiting: c.waiting, made: c.made) }
        if let kept = c.answers[key] { return .kept(kept.answer) }
        guard !c.making.contains(key) else { return nil }
        c.making.insert(key)
        c.made += 1
        return .making
      },
      waiting: { c, waiting in c.waiting += waiting ? 1 : -1 })
    switch turn {
    case .kept(let answer): return answer
    case .stale: return make().answer
    case .making:
      let made = make()
      keep(key, generation: generation, made.answer, needs: made.needs)
      return made.answer
    }
  }

  /// Keeps an answer (its written bytes made now: see `HTTPResponse.prepared()`), and wakes the
  /// requests waiting for it.
  package func keep(_ key: Key, generation: Int, _ answer: HTTPResponse, needs: Route.Needs) {
    let prepared = answer.prepared()
    held.withLock(waking: .all) { c in
      if c.generation != generation {
        guard generation > c.generation else { return }
        c = Answers(generation: generation, waiting: c.waiting, made: c.made)
      }
      c.making.remove(key)
      let size = key.size + answer.body.utf8.count
      if c.answers.count >= Self.maxAnswers || c.bytes + size > Self.maxBytes {
        c.answers = [:]
        c.bytes = 0
      }
      guard size <= Self.maxBytes else { return }
      c.answers[key] = Entry(answer: prepared, needs: needs)
      c.bytes += size
    }
  }
}
