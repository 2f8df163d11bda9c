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
}

/// Runs `.storesim` scenario files (README.md, "Scenarios").
struct ScenarioRunner {
  var environment: CLIEnvironment
  var verbose: Bool

  static let expectForms = ["result", "entitled", "not-entitled", "state", "pending", "transactions", "latest", "renewal", "notification", "error", "now", "receipt"]

  /// Parses a whole file and checks every line's syntax before anything runs.
  static func parse(_ text: String, file: String, table: CommandTable) throws -> [ScenarioLine] {
    var lines: [ScenarioLine] = []
    for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = i + 1
      let words: [String]
      do {
        words = try ScriptLineSplitter.split(String(raw))
      } catch {
        throw CLIError.data("\(file):\(number): syntax error: \((error as? ScriptLineSplitter.SyntaxError)?.message ?? "bad line")")
      }
      guard let first = words.first else { continue }
      if first == "storesim" {
        throw CLIError.data("\(file):\(number): syntax error: write commands without 'storesim'")
      }
      if first == "expect" {
        guard words.count >= 2, expectForms.contains(words[1]) else {
          throw CLIError.data("\(file):\(number): syntax error: unknown expectation '\(words.dropFirst().first ?? "")'; use one of \(expectForms.joined(separator: ", "))")
        }
        let need: [String: ClosedRange<Int>] = [
          "result": 1...1, "entitled": 1...1, "not-entitled": 1...1, "state": 2...2, "pending": 1...1,
          "transactions": 1...3, "latest": 3...3, "renewal": 3...3, "notification": 1...1, "error": 1...Int.max, "now": 1...1,
          "receipt": 1...2,
        ]
        let args = words.count - 2
        if !(need[words[1]]!.contains(args)) {
          throw CLIError.data("\(file):\(number): syntax error: 'expect \(words[1])' takes \(need[words[1]]!.lowerBound == need[words[1]]!.upperBound ? "\(need[words[1]]!.lowerBound)" : "\(need[words[1]]!.lowerBound) or more") argument(s)")
        }
        if words[1] == "result", !["purchased", "pending", "userCancelled", "failed"].contains(words[2]) {
          throw CLIError.data("\(file):\(number): syntax error: expect result takes purchased, pending, userCancelled or failed")
        }
        if words[1] == "state", RenewalState(rawValue: words[3]) == nil {
          throw CLIError.data("\(file):\(number): syntax error: unknown state '\(words[3])'; use \(RenewalState.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if ["pending"].contains(words[1]), Int(words[2]) == nil {
          throw CLIError.data("\(file):\(number): syntax error: expect \(words[1]) takes a number")
        }
        if words[1] == "transactions", Int(words[2]) == nil || (args > 1 && (args != 3 || words[3] != "--product")) {
          throw CLIError.data("\(file):\(number): syntax error: use 'expect transactions N [--product ID]'")
        }
        if words[1] == "now" { _ = try? ValueParsing.date(words[2]) }
      } else if first == "echo" {
        // free text
      } else if first == "run" || first == "shell" {
        throw CLIError.data("\(file):\(number): syntax error: '\(first)' cannot be used inside a scenario")
      } else {
        do {
          let parsed = try ArgumentScanner.scan(words, commands: table)
          if let name = parsed.command, table.spec(named: name) == nil, name != "help" {
            throw CLI.unknownCommand(name, table: table)
          }
        } catch let error as CLIError {
          throw CLIError.data("\(file):\(number): syntax error: \(error.message)")
        }
      }
      lines.append(ScenarioLine(number: number, words: words, text: String(raw)))
    }
    return lines
  }

  /// Runs parsed lines in a fresh in-memory session; returns the failures and the session.
  func run(_ lines: [ScenarioLine], file: String, folder: String, environment forced: StoreEnvironment? = nil) -> (failures: [ScenarioFailure], expectations: Int, memory: MemorySession) {
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
        items.append(.object(["kind": .string("transaction"), "json": store.payload(t, customer: name), "signed": .string(store.signed(t, customer: name))]))
      }
      for g in store.configuration.subscriptionGroups {
        for s in store.statuses(forGroup: g.id, customer: name) {
          items.append(.object(["kind": .string("renewalInfo"), "json": store.payload(s.renewalInfo, customer: name), "signed": .string(store.signed(s.renewalInfo, customer: name))]))
        }
      }
    }
    for n in store.notifications {
      items.append(.object(["kind": .string("notification"), "json": store.payload(n), "signed": store.signedBody(n)["signedPayload"]!]))
    }
    return .object(["bundleId": .string(store.state.bundleID), "environment": .string(store.state.environment.rawValue), "artifacts": .array(items)])
  }

  /// Runs parsed lines against a session (the shell keeps one across calls).
  func runLines(_ lines: [ScenarioLine], file: String, folder: String, memory: MemorySession) -> (failures: [ScenarioFailure], expectations: Int) {
    var failures: [ScenarioFailure] = []
    var expectations = 0
    func fail(_ line: Int, _ message: String) {
      failures.append(ScenarioFailure(line: line, message: message))
      environment.writeErr(TerminalText.field("\(file):\(line): \(message)") + "\n")
    }
    for line in lines {
      let words = line.words
      if words[0] == "expect" {
        expectations += 1
        if let message = check(words, memory: memory, lastError: memory.lastError) { fail(line.number, message) }
        if words[1] == "error" || words[1] == "result" { memory.unexpectedError = nil }
        continue
      }
      if let p = memory.unexpectedError {
        fail(p.line, "command failed: \(p.message)")
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
        let message = box.err.split(separator: "\n").first { $0.hasPrefix("error: ") }.map { String($0.dropFirst(7)) } ?? "exit \(code)"
        memory.lastError = (line.number, message)
        memory.unexpectedError = memory.lastError
      } else {
        memory.lastError = nil
      }
    }
    if let p = memory.unexpectedError, !memory.isInteractive {
      fail(p.line, "command failed: \(p.message)")
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
      return lastError.message.contains(text) ? nil : "expected an error containing '\(text)', got '\(lastError.message)'"
    }
    guard let store = memory.store else { return "expected \(form), got no session (start with init)" }
    let customer = Store.defaultCustomer
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
      case .array(let items)?: return items.map { item -> String in if case .string(let t) = item { return t }; return item.rendered(pretty: false) }.joined(separator: ",")
      default: return json![name]!.rendered(pretty: false)
      }
    }
    func same(_ expected: String, _ actual: String) -> Bool {
      if expected == actual { return true }
      if let e = try? ValueParsing.date(expected), let a = Int64(actual) {
        return Int64((e.timeIntervalSince1970 * 1000).rounded()) == a
      }
      return false
    }
    switch form {
    case "result":
      let got = memory.lastPurchaseResult ?? "no purchase yet"
      return got == words[2] ? nil : "expected result \(words[2]), got \(got)"
    case "entitled", "not-entitled":
      let entitled = store.currentEntitlements(customer: customer).contains { $0.productID == words[2] }
      if store.configuration.product(words[2]) == nil { return "expected \(form) \(words[2]), got unknown product '\(words[2])'" }
      if form == "entitled" { return entitled ? nil : "expected \(words[2]) to be entitled, got not entitled" }
      return entitled ? "expected \(words[2]) not to be entitled, got entitled" : nil
    case "state":
      guard let g = group(words[2]) else { return "expected state of \(words[2]), got no such group or subscription" }
      let statuses = store.statuses(forGroup: g, customer: customer)
      let got = (statuses.first { !$0.isFamilyShared } ?? statuses.first)?.state.rawValue ?? "never subscribed"
      return got == words[3] ? nil : "expected state \(words[3]), got \(got)"
    case "pending":
      let got = store.pendingRequests(customer: customer).count + store.refundRequests(customer: customer).count
      return got == Int(words[2]) ? nil : "expected \(words[2]) pending, got \(got)"
    case "transactions":
      var list = store.allTransactions(customer: customer)
      if words.count == 5 { list = list.filter { $0.productID == words[4] } }
      return list.count == Int(words[2]) ? nil : "expected \(words[2]) transactions, got \(list.count)"
    case "latest":
      guard let t = store.latestTransaction(for: words[2], customer: customer) else { return "expected latest \(words[2]) \(words[3]) \(words[4]), got no transaction" }
      let got = field(store.payload(t, customer: customer), words[3])
      return same(words[4], got) ? nil : "expected latest \(words[2]) \(words[3]) \(words[4]), got \(got)"
    case "renewal":
      guard let g = group(words[2]), let s = store.statuses(forGroup: g, customer: customer).first else {
        return "expected renewal \(words[2]) \(words[3]) \(words[4]), got no subscription"
      }
      let got = field(store.payload(s.renewalInfo, customer: customer), words[3])
      return same(words[4], got) ? nil : "expected renewal \(words[2]) \(words[3]) \(words[4]), got \(got)"
    case "notification":
      guard let n = store.notifications.last else { return "expected notification \(words[2]), got none" }
      let got = n.notificationType + (n.subtype.map { "/\($0)" } ?? "")
      return got == words[2] ? nil : "expected notification \(words[2]), got \(got)"
    case "receipt":
      let endpoint = words.count > 3 ? StoreEnvironment(userInput: words[3]) : nil
      guard case .int(let status)? = store.receipt(customer: customer, askedAs: endpoint)["status"] else { return "expected receipt status \(words[2]), got none" }
      return String(status) == words[2] ? nil : "expected receipt status \(words[2]), got \(status)"
    case "now":
      guard let date = try? ValueParsing.date(words[2]) else { return "expected now \(words[2]), got an unreadable date" }
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
    OptionSpec(name: "artifacts", value: "<dir>", help: "write each scenario's transactions, renewal infos and notifications (JSON and JWS) there"),
  ],
  discussion: """
    One command per line, as on the command line without 'storesim'; '#' starts a comment;
    paths are relative to the scenario file. Expectations: expect result|entitled|not-entitled|
    state|pending|transactions|latest|renewal|notification|error|now. A failed expectation prints
    file:line: expected ..., got ...; the run goes on; the exit code is 1. A command that fails
    without a following 'expect error' or 'expect result' counts as a failure. Syntax errors are
    reported with their line before anything runs (exit 65).
    """,
  example: "storesim run Scripts/tour.storesim",
  run: { inv in
    let files = try inv.positionals(1...Int.max, "scenario file")
    var parsed: [(String, [ScenarioLine], String)] = []
    for file in files {
      let path = inv.environment.resolve(file)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
        throw CLIError.noInput("no such scenario file: \(file)")
      }
      var info = stat()
      if stat(path, &info) == 0 && Int(info.st_size) > WorkLimits.maximumScenarioSize {
        throw CLIError.data("\(file): a scenario file of at most \(WorkLimits.maximumScenarioSize / 1024 / 1024) MiB is read; this one is \(Int(info.st_size) / 1024 / 1024) MiB")
      }
      guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        throw CLIError.data("\(file): not a UTF-8 text file")
      }
      let lines = try ScenarioRunner.parse(text, file: file, table: inv.table)
      parsed.append((file, lines, (path as NSString).deletingLastPathComponent))
    }
    let runner = ScenarioRunner(environment: inv.environment, verbose: inv.arguments.has("verbose"))
    var forced: StoreEnvironment?
    if let text = inv.arguments.value("environment") {
      guard let e = StoreEnvironment(userInput: text) else { throw CLIError.usage("unknown environment '\(text)'; use Xcode, LocalTesting, Sandbox or Production", command: "run") }
      forced = e
    }
    let artifactsFolder = inv.arguments.value("artifacts").map { inv.environment.resolve($0) }
    if let folder = artifactsFolder {
      do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
        throw CLIError.noInput("cannot create the artifacts folder \(folder)")
      }
    }
    var results: [(String, [ScenarioFailure], Int, TimeInterval)] = []
    var failedFiles = 0
    for (file, lines, folder) in parsed {
      let started = Date()
      let (failures, count, memory) = runner.run(lines, file: file, folder: folder, environment: forced)
      if let out = artifactsFolder, let store = memory.store {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension + ".json"
        try? ScenarioRunner.artifacts(store).rendered(pretty: false).write(toFile: (out as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
      }
      let elapsed = Date().timeIntervalSince(started)
      results.append((file, failures, count, elapsed))
      if !failures.isEmpty { failedFiles += 1 }
      if !inv.json {
        inv.out(failures.isEmpty ? "PASS  \(file)  (\(count) expectations)" : "FAIL  \(file)  (\(failures.count) of \(count) expectations or commands failed)")
      }
    }
    if inv.json {
      inv.printJSON(.object(["scenarios": .array(results.map { r in
        .object(["file": .string(r.0), "passed": .bool(r.1.isEmpty), "expectations": .int(Int64(r.2)),
                 "failures": .array(r.1.map { .object(["line": .int(Int64($0.line)), "message": .string($0.message)]) })])
      })]))
    } else {
      inv.out("\(results.count - failedFiles) passed, \(failedFiles) failed")
    }
    if let junit = inv.arguments.value("junit") {
      var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
      xml += #"<testsuite name="storesim" tests="\#(results.count)" failures="\#(failedFiles)">"# + "\n"
      for r in results {
        xml += #"  <testcase classname="storesim.scenario" name="\#(xmlEscape(r.0))" time="\#(String(format: "%.3f", r.3))">"#
        if !r.1.isEmpty {
          let body = r.1.map { "\(r.0):\($0.line): \($0.message)" }.joined(separator: "\n")
          xml += "\n" + #"    <failure message="\#(xmlEscape(r.1[0].message))">\#(xmlEscape(body))</failure>"# + "\n  "
        }
        xml += "</testcase>\n"
      }
      xml += "</testsuite>\n"
      do {
        try xml.write(toFile: inv.environment.resolve(junit), atomically: true, encoding: .utf8)
      } catch {
        throw CLIError.noInput("cannot write JUnit report to \(junit)")
      }
    }
    return failedFiles == 0 ? .success : .failure
  })

func xmlEscape(_ s: String) -> String {
  s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
