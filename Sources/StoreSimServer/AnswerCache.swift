import Foundation
import StoreSim
import StoreSimHTTP

/// Reading answers of one generation of the session, keyed by the whole request (method,
/// target and body): at most 4,096 answers and 32 MiB of keys and bodies, then it starts over.
package final class AnswerCache: Sendable {
  private struct Answers {
    var generation = -1
    var answers: [String: HTTPResponse] = [:]
    var bytes = 0
  }

  private let held = Mutex(Answers())
  static let maxAnswers = 4096
  static let maxBytes = 32 << 20

  package init() {}

  package func answer(_ key: String, generation: Int) -> HTTPResponse? {
    held.withLock { $0.generation == generation ? $0.answers[key] : nil }
  }

  package func keep(_ key: String, generation: Int, _ answer: HTTPResponse) {
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
      c.answers[key] = answer.prepared()
      c.bytes += size
    }
  }
}
