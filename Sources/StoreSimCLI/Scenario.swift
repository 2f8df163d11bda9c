import Foundation
import StoreSim

/// Splits a scenario or shell line into words: whitespace separates, single and double quotes
/// group, `#` at the start of a word begins a comment.
enum ScriptLineSplitter {
  struct SyntaxError: Error { var message: String }

  static func split(_ line: String) throws -> [String] {
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

  static var expectForms: [String] { ExpectForm.all.map(\.name) }

  /// The problem with one line that needs no session to see (the words of a command line, an
  /// expectation's form and values), or nil. `store` checks product and group names.
  static func lineProblem(_ words: [String], table: CommandTable, store: Store?) -> String? {
    switch words[0] {
    case "storesim": return "write commands without 'storesim'"
    case "expect": return ExpectForm.problem(words, store: store)
    case "echo": return nil
    case "run", "shell": return "'\(words[0])' cannot be used inside a scenario"
    default:
      do {
        let parsed = try ArgumentScanner.scan(words, commands: table)
        if let name = parsed.command, table.spec(named: name) == nil, name != "help" {
          throw CLI.unknownCommand(name, table: table)
        }
      } catch let error as CLIError {
        return error.message
      } catch {
        return String(describing: error)
      }
      return nil
    }
  }

  /// Parses a file line by line, without running anything; the first problem is thrown as
  /// `file:line: error: ...` (the shell checks a line at a time; `run` uses `ScenarioCheck`).
  static func parse(_ text: String, file: String, table: CommandTable) throws -> [ScenarioLine] {
    var lines: [ScenarioLine] = []
    for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = i + 1
      let words: [String]
      do {
        words = try ScriptLineSplitter.split(String(raw))
      } catch {
        throw CLIError.data(
          "\(file):\(number): error: \((error as? ScriptLineSplitter.SyntaxError)?.message ?? "bad line")")
      }
      guard !words.isEmpty else { continue }
      if let problem = lineProblem(words, table: table, store: nil) {
        throw CLIError.data("\(file):\(number): error: \(problem)")
      }
      lines.append(ScenarioLine(number: number, words: words, text: String(raw)))
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
        guard next.words[0] == "expect" else { return false }
        if next.words.count > 1, next.words[1] == "error" || next.words[1] == "result" { return true }
      }
      return memory.isInteractive
    }
    for (index, line) in lines.enumerated() {
      let words = line.words
      if words[0] == "expect" {
        expectations += 1
        if let message = check(words, memory: memory, lastError: memory.lastError) { fail(line.number, message) }
        if words[1] == "error" || words[1] == "result" { memory.unexpectedError = nil }
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

  /// nil when the expectation holds, else "expected ..., got ...".
  func check(_ words: [String], memory: MemorySession, lastError: (line: Int, message: String)?) -> String? {
    let form = words[1]
    if form == "error" {
      let text = words.dropFirst(2).joined(separator: " ")
      guard let lastError else { return "expected an error containing '\(text)', got success" }
      return lastError.message.contains(text)
        ? nil : "expected an error containing '\(text)', got '\(lastError.message)'"
    }
    guard let store = memory.store else { return "expected \(form), got no session (start with init)" }
    let customer = CustomerID.default
    func group(_ text: String) -> SubscriptionGroupID? {
      store.configuration.group(named: text)?.id ?? store.configuration.product(text)?.subscription?.groupID
    }
    func field(_ json: JSONOutput?, _ name: String) -> String {
      switch json?[name] {
      case nil: return "absent"
      case .string(let s)?: return s
      case .int(let i)?: return String(i)
      case .number(let n)?: return n
      case .bool(let b)?: return b ? "true" : "false"
      case .null?: return "null"
      case .array(let items)?:
        return items.map { item -> String in
          if case .string(let t) = item { return t }; return item.rendered(pretty: false)
        }.joined(separator: ",")
      default: return json![name]!.rendered(pretty: false)
      }
    }
    func same(_ expected: String, _ actual: String) -> Bool {
      if expected == actual { return true }
      if let e = try? ValueParsing.date(expected), let a = Int64(actual) {
        return e.epochMilliseconds == a
      }
      return false
    }
    /// The actual value in the form the expectation used: a date written as ISO 8601 is
    /// answered in ISO 8601 (as a day when the expectation gave a day and it is midnight).
    func shown(_ expected: String, _ actual: String) -> String {
      guard Int64(expected) == nil, (try? ValueParsing.date(expected)) != nil, let ms = Int64(actual) else {
        return actual
      }
      let text = ISO8601.string(Date(epochMilliseconds: ms))
      if !expected.contains("T") && !expected.contains(" "), text.hasSuffix("T00:00:00Z") {
        return String(text.prefix(10))
      }
      return text
    }
    switch form {
    case "result":
      let got = memory.lastPurchaseResult ?? "no purchase yet"
      return got == words[2] ? nil : "expected result \(words[2]), got \(got)"
    case "entitled", "not-entitled":
      let entitled = store.currentEntitlements(customer: customer).contains { $0.productID == words[2] }
      if store.configuration.product(words[2]) == nil {
        return "expected \(form) \(words[2]), got unknown product '\(words[2])'"
      }
      if form == "entitled" { return entitled ? nil : "expected \(words[2]) to be entitled, got not entitled" }
      return entitled ? "expected \(words[2]) not to be entitled, got entitled" : nil
    case "state":
      guard let g = group(words[2]) else {
        return "expected \(words[2]) to be \(words[3]), got no such group or subscription"
      }
      let statuses = store.statuses(forGroup: g, customer: customer)
      let got = (statuses.first { !$0.isFamilyShared } ?? statuses.first)?.state.rawValue ?? "never subscribed"
      return got == words[3] ? nil : "expected \(words[2]) to be \(words[3]), got \(got)"
    case "pending":
      let got = store.pendingRequests(customer: customer).count + store.refundRequests(customer: customer).count
      return got == Int(words[2]) ? nil : "expected \(words[2]) pending, got \(got)"
    case "transactions":
      var list = store.allTransactions(customer: customer)
      if words.count == 5 { list = list.filter { $0.productID == words[4] } }
      let of = words.count == 5 ? " of \(words[4])" : ""
      return list.count == Int(words[2]) ? nil : "expected \(words[2]) transactions\(of), got \(list.count)"
    case "latest":
      guard let t = store.latestTransaction(for: words[2], customer: customer) else {
        return "expected latest \(words[2]) \(words[3]) \(words[4]), got no transaction"
      }
      let got = field(store.payload(t, customer: customer), words[3])
      return same(words[4], got)
        ? nil : "expected latest \(words[2]) \(words[3]) \(words[4]), got \(shown(words[4], got))"
    case "renewal":
      guard let g = group(words[2]), let s = store.statuses(forGroup: g, customer: customer).first else {
        return "expected renewal \(words[2]) \(words[3]) \(words[4]), got no subscription"
      }
      let got = field(store.payload(s.renewalInfo, customer: customer), words[3])
      return same(words[4], got)
        ? nil : "expected renewal \(words[2]) \(words[3]) \(words[4]), got \(shown(words[4], got))"
    case "notification":
      guard let n = store.notifications.last else { return "expected notification \(words[2]), got none" }
      let got = n.name
      return got == words[2] ? nil : "expected notification \(words[2]), got \(got)"
    case "receipt":
      let endpoint = words.count > 3 ? StoreEnvironment(userInput: words[3]) : nil
      guard case .int(let status)? = store.receipt(customer: customer, askedAs: endpoint)["status"] else {
        return "expected receipt status \(words[2]), got none"
      }
      return String(status) == words[2] ? nil : "expected receipt status \(words[2]), got \(status)"
    case "now":
      guard let date = try? ValueParsing.date(words[2]) else {
        return "expected now \(words[2]), got an unreadable date"
      }
      return date == store.now ? nil : "expected now \(words[2]), got \(ISO8601.string(store.now))"
    default:
      return "unknown expectation \(form)"
    }
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
