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

  private struct Answers {
    var generation = -1
    var answers: [String: Entry] = [:]
    var bytes = 0
  }

  private let held = Mutex(Answers())
  static let maxAnswers = 4096
  static let maxBytes = 32 << 20

  package init() {}

  package func entry(_ key: String, generation: Int) -> Entry? {
    held.withLock { $0.generation == generation ? $0.answers[key] : nil }
  }

  package func answer(_ key: String, generation: Int) -> HTTPResponse? {
    entry(key, generation: generation)?.answer
  }

  /// Keeps an answer (its written bytes made now: see `HTTPResponse.prepared()`).
  package func keep(_ key: String, generation: Int, _ answer: HTTPResponse, needs: Route.Needs) {
    held.withLock { c in
      if c.generation != generation {
        guard generation > c.generation else { return }
        c = Answers(generation: generation)
      }
      let size = key.utf8.count + answer.body.utf8.count
      if c.answers.count >= Self.maxAnswers || c.bytes + size > Self.maxBytes {
        c.answers = [:]
        c.bytes = 0
      }
      guard size <= Self.maxBytes else { return }
      c.answers[key] = Entry(answer: answer.prepared(), needs: needs)
      c.bytes += size
    }
  }
}
