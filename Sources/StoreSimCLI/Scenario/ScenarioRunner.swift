import Foundation
import StoreSim
import StoreSimSync

/// Splits a scenario or shell line into words: whitespace separates, single and double quotes
/// group, `#` at the start of a word begins a comment.
enum ScriptLineSplitter {
  struct SyntaxError: Error { var message: String }

  static func split(_ line: String) throws(SyntaxError) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character?
    for ch in line {
      if let q = quote {
        if ch == q { quote = nil } else { current.append(ch) }
        continue
      }
      if ch == "\"" || ch == "'" {
        quote = ch
        inWord = true
      } else if ch == " " || ch == "\t" {
        if inWord { words.append(current); current = ""; inWord = false }
      } else if ch == "#" && !inWord {
        break
      } else {
        current.append(ch)
        inWord = true
      }
    }
    if quote != nil { throw SyntaxError(message: "unterminated quote") }
    if inWord { words.append(current) }
    return words
  }
}

/// One parsed line of a scenario.
struct ScenarioLine {
  var number: Int
  var words: [String]
  var text: String
  /// The expectation of an `expect` line, read once when the line is checked.
  var expectation: Expectation?
  /// The customer an `expect` line checks (`--customer`).
  var customer: CustomerID = .default
}

/// The result of one expectation or failed command.
struct ScenarioFailure {
  var line: Int
  var message: String
  /// A command that failed unexpected (not an expectation).
  var isCommand = false
}

/// Runs `.storesim` scenario files (README.md, "Scenarios").
struct ScenarioRunner {
  var environment: CLIEnvironment
  var verbose: Bool

  /// Reads one line of a file: nil for a blank or comment line, else the line with its
  /// expectation read, or the problem any reader can see without a session (the words of a
  /// command line, an expectation's form and values). `store` checks product and group names.
  static func read(
    _ raw: Substring, number: Int, table: CommandTable, store: Store?
  ) throws(ScenarioProblem) -> ScenarioLine? {
    let words: [String]
    do {
      words = try ScriptLineSplitter.split(String(raw))
    } catch {
      throw ScenarioProblem(error.message)
    }
    guard !words.isEmpty else { return nil }
    var line = ScenarioLine(number: number, words: words, text: String(raw))
    switch words[0] {
    case "storesim": throw ScenarioProblem("write commands without 'storesim'")
    case "expect": (line.expectation, line.customer) = try Expectation.parseLine(words, store: store)
    case "echo": break
    case "respond": _ = try RespondLine.parse(words)
    case "run", "shell": throw ScenarioProblem("'\(words[0])' cannot be used inside a scenario")
    default:
      do {
        let parsed = try ArgumentScanner.scan(words, commands: table)
        if let name = parsed.command, table.spec(named: name) == nil, name != "help" {
          throw CLI.unknownCommand(name, table: table)
        }
      } catch let error as CLIError {
        throw ScenarioProblem(error.message)
      } catch {
        throw ScenarioProblem(String(describing: error))
      }
    }
    return line
  }

  /// The lines of a file with their numbers (from 1).
  static func numberedLines(_ text: String) -> [(number: Int, raw: Substring)] {
    text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0.offset + 1, $0.element) }
  }

  /// Parses a file line by line, without running anything; the first problem is thrown as
  /// `file:line: error: ...` (the shell checks a line at a time; `run` uses `ScenarioCheck`).
  static func parse(_ text: String, file: String, table: CommandTable) throws -> [ScenarioLine] {
    var lines: [ScenarioLine] = []
    for (number, raw) in numberedLines(text) {
      do {
        if let line = try read(raw, number: number, table: table, store: nil) { lines.append(line) }
      } catch {
        throw CLIError.data("\(file):\(number): error: \(error.message)")
      }
    }
    return lines
  }

  /// Runs parsed lines in a fresh in-memory session; returns the failures and the session.
  func run(
    _ lines: [ScenarioLine], file: String, folder: String, environment forced: StoreEnvironment? = nil
  ) -> (failures: [ScenarioFailure], expectations: Int, memory: MemorySession) {
    let memory = MemorySession()
    memory.environmentOverride = forced
    let (failures, count) = runLines(lines, file: file, folder: folder, memory: memory)
    return (failures, count, memory)
  }

  /// Every transaction, renewal info and notification of a session, each as JSON and as the
  /// signed form, for checking with Apple's library.
  static func artifacts(_ store: Store) -> JSONOutput {
    var items: [JSONOutput] = []
    for name in store.customerIDs {
      for t in store.customer(name)?.transactions ?? [] {
        items.append(
          .object([
            "kind": .string("transaction"), "json": store.payload(t, customer: name),
            "signed": .string(store.signed(t, customer: name)),
          ]))
      }
      for g in store.configuration.subscriptionGroups {
        for s in store.statuses(forGroup: g.id, customer: name) {
          items.append(
            .object([
              "kind": .string("renewalInfo"), "json": store.payload(s.renewalInfo, customer: name),
              "signed": .string(store.signed(s.renewalInfo, customer: name)),
            ]))
        }
      }
    }
    for n in store.notifications {
      items.append(
        .object([
          "kind": .string("notification"), "json": store.payload(n), "signed": store.signedBody(n)["signedPayload"]!,
        ]))
    }
    for call in store.retentionMessaging.calls where call.url != nil {
      items.append(
        .object([
          "kind": .string("realtimeRequest"), "json": store.realtimeRequestPayload(call),
          "signed": store.realtimeRequestBody(call)["signedPayload"]!,
        ]))
    }
    return .object([
      "bundleId": .string(store.state.bundleID), "environment": .string(store.state.environment.rawValue),
      "artifacts": .array(items),
    ])
  }

  /// Runs parsed lines against a session (the shell keeps one across calls).
  func runLines(
    _ lines: [ScenarioLine], file: String, folder: String, memory: MemorySession
  ) -> (failures: [ScenarioFailure], expectations: Int) {
    var failures: [ScenarioFailure] = []
    var expectations = 0
    func fail(_ line: Int, _ message: String, command: Bool = false) {
      failures.append(ScenarioFailure(line: line, message: message, isCommand: command))
      // What was printed so far goes first: a failure comes out under the line it belongs to.
      environment.flushOut()
      environment.writeErr(TerminalText.field("\(file):\(line): \(message)") + "\n")
    }
    /// Whether an `expect error` or `expect result` right after line `index` answers a failure.
    func answered(after index: Int) -> Bool {
      for next in lines[(index + 1)...] {
        guard let expectation = next.expectation else { return false }
        if expectation.kind.answersFailure { return true }
      }
      return memory.isInteractive
    }
    for (index, line) in lines.enumerated() {
      let words = line.words
      if let expectation = line.expectation {
        expectations += 1
        if verbose { environment.writeOut(TerminalText.field("> \(words.joined(separator: " "))") + "\n") }
        if let message = expectation.failure(in: memory, lastError: memory.lastError, customer: line.customer) {
          fail(line.number, message)
        } else if verbose {
          environment.writeOut("ok\n")
        }
        if expectation.kind.answersFailure { memory.unexpectedError = nil }
        continue
      }
      if let p = memory.unexpectedError {
        fail(p.line, "command failed: \(p.message)", command: true)
        memory.unexpectedError = nil
      }
      if verbose { environment.writeOut(TerminalText.field("> \(words.joined(separator: " "))") + "\n") }
      if words[0] == "echo" {
        environment.writeOut(TerminalText.field(words.dropFirst().joined(separator: " ")) + "\n")
        memory.lastError = nil
        continue
      }
      if words[0] == "respond" {
        do {
          let url = try RespondLine.parse(words).start(in: memory)
          if verbose { environment.writeOut("realtime URL \(url)\n") }
          memory.lastError = nil
        } catch let problem as ScenarioProblem {
          fail(line.number, problem.message, command: true)
        } catch {
          fail(line.number, "respond: \(error)", command: true)
        }
        continue
      }
      let box = Mutex(CapturedOutput())
      var captured = environment.quiet(in: folder)
      captured.writeOut = { text in box.withLock { $0.out += text } }
      captured.writeErr = { text in box.withLock { $0.err += text } }
      let recordsResult = CommandTable.standard.spec(named: words[0])?.answersPurchaseResult == true
      // The command's JSON answer beside its text (dual mode), read for what the scenario remembers.
      if recordsResult { captured.writeJSON = { text in box.withLock { $0.json += text } } }
      let code = CLI.run(words, environment: captured, memory: memory)
      let output = box.current
      if recordsResult {
        memory.lastPurchaseResult = Self.purchaseResult(
          code: code, json: output.json.isEmpty ? output.out : output.json)
      }
      if verbose {
        environment.writeOut(output.out)
        if !output.err.isEmpty { environment.writeOut(output.err) }
      }
      if code != 0 {
        let message =
          output.err.split(separator: "\n").first { $0.hasPrefix("error: ") }.map { String($0.dropFirst(7)) }
          ?? "exit \(code)"
        memory.lastError = (line.number, message)
        if answered(after: index) {
          memory.unexpectedError = memory.lastError
        } else {
          // Reported now, so failures come out in line order.
          fail(line.number, "command failed: \(message)", command: true)
        }
      } else {
        memory.lastError = nil
      }
    }
    if let p = memory.unexpectedError, !memory.isInteractive {
      fail(p.line, "command failed: \(p.message)", command: true)
      memory.unexpectedError = nil
    }
    return (failures, expectations)
  }
}

/// What one scenario line printed, on each stream, and its JSON answer when the runner asked.
struct CapturedOutput: Sendable {
  var out = ""
  var err = ""
  var json = ""
}

extension ScenarioRunner {
  /// The purchase result a scenario remembers for `expect result`: the `result` of the
  /// command's JSON answer; a refused purchase (an error, no answer) is a failed one.
  static func purchaseResult(code: Int32, json: String) -> String {
    guard let node = try? JSONParser.parse(Array(json.utf8)), case .string(let result)? = node["result"]?.value,
      PurchaseResultName(rawValue: result) != nil
    else { return PurchaseResultName.failed.rawValue }
    return result
  }
}
