import Foundation

/// Reading answers of one generation of the session, by method and target (at most 4,096).
package final class AnswerCache: @unchecked Sendable {
  private let lock = NSLock()
  private var generation = -1
  private var answers: [String: (status: Int, body: String)] = [:]

  package init() {}

  package func answer(_ key: String, generation: Int) -> (status: Int, body: String)? {
    lock.withLock { self.generation == generation ? answers[key] : nil }
  }

  package func keep(_ key: String, generation: Int, _ answer: (status: Int, body: String)) {
    lock.withLock {
      if self.generation != generation {
        guard generation > self.generation else { return }
        self.generation = generation
        answers = [:]
      }
      if answers.count >= 4096 { answers = [:] }
      answers[key] = answer
    }
  }
}
