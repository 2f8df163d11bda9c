import Foundation
import StoreSimHTTP

/// Reading answers of one generation of the session, keyed by the whole request (method,
/// target and body): at most 4,096 answers and 32 MiB of keys and bodies, then it starts over.
package final class AnswerCache: @unchecked Sendable {
  private let lock = NSLock()
  private var generation = -1
  private var answers: [String: HTTPResponse] = [:]
  private var bytes = 0
  static let maxAnswers = 4096
  static let maxBytes = 32 << 20

  package init() {}

  package func answer(_ key: String, generation: Int) -> HTTPResponse? {
    lock.withLock { self.generation == generation ? answers[key] : nil }
  }

  package func keep(_ key: String, generation: Int, _ answer: HTTPResponse) {
    lock.withLock {
      if self.generation != generation {
        guard generation > self.generation else { return }
        self.generation = generation
        answers = [:]
        bytes = 0
      }
      let size = key.utf8.count + answer.body.utf8.count
      if answers.count >= Self.maxAnswers || bytes + size > Self.maxBytes {
        answers = [:]
        bytes = 0
      }
      guard size <= Self.maxBytes else { return }
      answers[key] = answer
      bytes += size
    }
  }
}
