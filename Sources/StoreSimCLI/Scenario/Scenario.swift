import Foundation
import StoreSim

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
    case "expect": line.expectation = try Expectation.parse(words, store: store)
    case "echo": break
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
    for name in store.customerNames {
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
        if let message = expectation.failure(in: memory, lastError: memory.lastError) { fail(line.number, message) }
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
      let box = OutputBox()
      let captured = CLIEnvironment(
        writeOut: { box.out += $0 }, writeErr: { box.err += $0 }, variables: environment.variables,
        currentDirectory: folder, now: environment.now, isTerminal: false)
      let code = CLI.run(words, environment: captured, memory: memory)
      if verbose {
        environment.writeOut(box.out)
        if !box.err.isEmpty { environment.writeOut(box.err) }
      }
      if code != 0 {
        let message =
          box.err.split(separator: "\n").first { $0.hasPrefix("error: ") }.map { String($0.dropFirst(7)) }
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

final class OutputBox: @unchecked Sendable {
  var out = ""
  var err = ""
}

let runCommand = CommandSpec(
  name: "run", group: "Scripts and exploration",
  abstract: "Run scenario files, each in a fresh in-memory session",
  arguments: "<scenario.storesim>...",
  options: [
    OptionSpec(name: "junit", value: "<file>", help: "write a JUnit XML report (one test case per file)"),
    OptionSpec(name: "verbose", value: nil, help: "print every command and its output"),
    OptionSpec(name: "environment", value: "<env>", help: "make every init use this environment"),
    OptionSpec(
      name: "artifacts", value: "<dir>",
      help: "write each scenario's transactions, renewal infos and notifications (JSON and JWS) there"),
  ],
  discussion: """
    One command per line, as on the command line without 'storesim'; '#' starts a comment;
    paths are relative to the scenario file. Expectations: see 'storesim help expect' (result,
    entitled, not-entitled, state, pending, transactions, latest, renewal, notification, error,
    now, receipt); 'echo TEXT' prints a line.
    Every line of every file is checked before anything runs, with the code that runs it:
    commands, options, values, products, expectation forms and field names. Each error is
    reported as file:line: error: ...; a file with errors does not run and is a failing test
    case (JUnit <error>), and the other files still run. A failed expectation prints
    file:line: expected ..., got ...; the run goes on. A command that fails without a following
    'expect error' or 'expect result' fails the scenario. Exit code: 65 when any file had
    errors, else 1 when any failed, else 0.
    """,
  example: "storesim run Scripts/tour.storesim",
  run: { inv in
    let files = try inv.positionals(1...Int.max, "scenario file")
    // Under --json stdout holds the report only: what the scenarios print goes to stderr.
    var scenarioEnvironment = inv.environment
    if inv.json { scenarioEnvironment.writeOut = inv.environment.writeErr }
    let runner = ScenarioRunner(environment: scenarioEnvironment, verbose: inv.arguments.has("verbose"))
    var forced: StoreEnvironment?
    if let text = inv.arguments.value("environment") {
      guard let e = StoreEnvironment(userInput: text) else {
        throw CLIError.usage(
          "unknown environment '\(text)'; use Xcode, LocalTesting, Sandbox or Production", command: "run")
      }
      forced = e
    }
    // Every file is read and checked before anything runs; a file with errors is reported with
    // all of them and does not run, and the other files still do.
    var checked: [ScenarioResult] = []
    for file in files {
      let path = inv.environment.resolve(file)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
        throw CLIError.noInput("no such scenario file: \(file)")
      }
      let folder = (path as NSString).deletingLastPathComponent
      var result = ScenarioResult(file: file, folder: folder)
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      if size > WorkLimits.maximumScenarioSize {
        result.errors = [
          ScenarioFailure(
            line: 0,
            message:
              "the file has \(size.formatted()) bytes, more than the \(WorkLimits.maximumScenarioSize.formatted()) a scenario may have"
          )
        ]
      } else if let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) {
        (result.lines, result.errors) = ScenarioCheck.check(
          text, file: file, folder: folder, table: inv.table, environment: inv.environment)
      } else {
        result.errors = [ScenarioFailure(line: 0, message: "not a UTF-8 text file")]
      }
      for e in result.errors {
        inv.err(e.line > 0 ? "\(file):\(e.line): error: \(e.message)" : "\(file): error: \(e.message)")
      }
      checked.append(result)
    }
    let artifactsFolder = inv.arguments.value("artifacts").map { inv.environment.resolve($0) }
    if let folder = artifactsFolder {
      do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
        throw CLIError(code: .cannotCreate, message: "cannot create the artifacts folder \(folder)")
      }
    }
    var results: [ScenarioResult] = []
    for var r in checked {
      if r.errors.isEmpty {
        let started = Date()
        let (failures, count, memory) = runner.run(r.lines, file: r.file, folder: r.folder, environment: forced)
        if let out = artifactsFolder, let store = memory.store {
          let name = ((r.file as NSString).lastPathComponent as NSString).deletingPathExtension + ".json"
          try? ScenarioRunner.artifacts(store).rendered(pretty: false).write(
            toFile: (out as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        r.failures = failures
        r.expectations = count
        r.elapsed = Date().timeIntervalSince(started)
      }
      results.append(r)
      if !inv.json { inv.out(r.summary) }
    }
    let erroneous = results.filter { !$0.errors.isEmpty }.count
    let failed = results.filter { !$0.passed }.count
    if inv.json {
      inv.printJSON(
        .object([
          "scenarios": .array(results.map(\.json)),
          "passed": .int(Int64(results.count - failed)), "failed": .int(Int64(failed)),
        ]))
    } else {
      inv.out(
        "\(results.count - failed) passed, \(failed) failed"
          + (erroneous > 0 ? " (\(erroneous) with errors, not run)" : ""))
    }
    if let junit = inv.arguments.value("junit") {
      var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
      xml +=
        #"<testsuite name="storesim" tests="\#(results.count)" failures="\#(failed - erroneous)" errors="\#(erroneous)">"#
        + "\n"
      for r in results {
        xml +=
          #"  <testcase classname="storesim.scenario" name="\#(xmlEscape(r.file))" time="\#(String(format: "%.3f", r.elapsed))">"#
        if !r.errors.isEmpty {
          let body = r.errors.map { "\(r.file):\($0.line): error: \($0.message)" }.joined(separator: "\n")
          xml +=
            "\n"
            + #"    <error type="scenario error" message="\#(r.errors.count) error\#(r.errors.count == 1 ? "" : "s"); not run">\#(xmlEscape(body))</error>"#
            + "\n  "
        } else if !r.failures.isEmpty {
          let body = r.failures.map { "\(r.file):\($0.line): \($0.message)" }.joined(separator: "\n")
          xml +=
            "\n" + #"    <failure message="\#(xmlEscape(r.failures[0].message))">\#(xmlEscape(body))</failure>"#
            + "\n  "
        }
        xml += "</testcase>\n"
      }
      xml += "</testsuite>\n"
      do {
        try xml.write(toFile: inv.environment.resolve(junit), atomically: true, encoding: .utf8)
      } catch {
        throw CLIError(code: .cannotCreate, message: "cannot write JUnit report to \(junit)")
      }
    }
    if erroneous > 0 { return .dataError }
    return failed == 0 ? .success : .failure
  })

/// One scenario file of a run: its errors (found before anything ran) or its failures.
struct ScenarioResult {
  var file: String
  var folder: String
  var lines: [ScenarioLine] = []
  var errors: [ScenarioFailure] = []
  var failures: [ScenarioFailure] = []
  var expectations = 0
  var elapsed: TimeInterval = 0

  var passed: Bool { errors.isEmpty && failures.isEmpty }

  /// `PASS  f  (6 expectations)`, `FAIL  f  (2 of 6 expectations failed, 1 command failed)`,
  /// `ERROR  f  (3 errors; not run)`.
  var summary: String {
    if !errors.isEmpty { return "ERROR \(file)  (\(errors.count) error\(errors.count == 1 ? "" : "s"); not run)" }
    let plural = expectations == 1 ? "" : "s"
    if failures.isEmpty { return "PASS  \(file)  (\(expectations) expectation\(plural))" }
    let commands = failures.filter(\.isCommand).count
    var parts = ["\(failures.count - commands) of \(expectations) expectation\(plural) failed"]
    if commands > 0 { parts.append("\(commands) command\(commands == 1 ? "" : "s") failed") }
    return "FAIL  \(file)  (\(parts.joined(separator: ", ")))"
  }

  var json: JSONOutput {
    .object([
      "file": .string(file), "passed": .bool(passed), "expectations": .int(Int64(expectations)),
      "errors": .array(errors.map { .object(["line": .int(Int64($0.line)), "message": .string($0.message)]) }),
      "failures": .array(
        failures.map {
          .object([
            "line": .int(Int64($0.line)), "message": .string($0.message),
            "kind": .string($0.isCommand ? "command" : "expectation"),
          ])
        }),
    ])
  }
}

func xmlEscape(_ s: String) -> String {
  s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
