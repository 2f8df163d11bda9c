import Foundation
import StoreSim
import StoreSimServer

/// `storesim run FILE...`.
struct RunCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "run", group: "Scripts and exploration",
    abstract: "Run scenario files, each in a fresh in-memory session",
    arguments: "<scenario.storesim>...",
    discussion: """
      One command per line, as on the command line without 'storesim'; '#' starts a comment;
      paths are relative to the scenario file. Expectations: see 'storesim help expect' (result,
      entitled, not-entitled, state, pending, transactions, latest, renewal, notification, error,
      now, receipt, retention, delivery); 'echo TEXT' prints a line; 'respond BODY' starts a
      developer server for Retention Messaging realtime requests, or with --notifications a
      notification receiver (see 'storesim help respond').
      Every line of every file is checked before anything runs, with the code that runs it:
      commands, options, values, products, expectation forms and field names. Each error is
      reported as file:line: error: ...; a file with errors does not run and is a failing test
      case (JUnit <error>), and the other files still run. A command followed by 'expect error'
      or 'expect result failed' is checked for its form only: what it refuses is what the
      expectation checks. An init without --start runs on today's date (a note says so). A
      failed expectation prints file:line: expected ..., got ...; the run goes on. A command
      that fails without a following 'expect error' or 'expect result' fails the scenario.
      Without --verbose, run prints the 'echo' lines and one PASS, FAIL or ERROR line per file.
      Exit code: 65 when any file had errors, else 1 when any failed, else 0.
      """,
    example: "storesim run Scripts/tour.storesim")

  @Option("<file>", help: "write a JUnit XML report (one test case per file)")
  var junit: String?
  @Flag(help: "print every line in order, each with its outcome under it")
  var verbose: Bool
  @Option("<env>", help: "make every init use this environment")
  var environment: String?
  @Option("<dir>", help: "write each scenario's transactions, renewal infos and notifications (JSON and JWS) there")
  var artifacts: String?
  @Option("<file>", help: "write the scenario's session as a self-contained HTML page (one scenario file)")
  var report: String?
  @Option("<file>", help: "write the scenario's subscription timeline as an SVG drawing (one scenario file)")
  var timeline: String?
  @Arguments(1...Int.max, "scenario file")
  var arguments: [String]

  func validate() throws {
    if report != nil || timeline != nil, arguments.count > 1 {
      throw CLIError.usage("--report and --timeline take one scenario file, not \(arguments.count)", command: "run")
    }
  }

  func run(_ inv: Invocation) throws -> ExitCode {
    try ScenarioRun(inv, self).run()
  }
}

/// `storesim run`, step by step: read and check every file, run those without errors, report.
struct ScenarioRun {
  var inv: Invocation
  var options: RunCommand

  init(_ inv: Invocation, _ options: RunCommand) {
    self.inv = inv
    self.options = options
  }

  func run() throws -> ExitCode {
    let files = options.arguments
    // Under --json stdout holds the report only: what the scenarios print goes to stderr.
    var scenarioEnvironment = inv.environment
    scenarioEnvironment.writeJSON = nil  // the steps print text; the run's summary is the JSON
    if inv.json { scenarioEnvironment.writeOut = inv.environment.writeErr }
    let runner = ScenarioRunner(environment: scenarioEnvironment, verbose: options.verbose)
    let forced = try forcedEnvironment()
    // The files the run writes are found (and refused) before anything is read or run.
    let junit = try options.junit.map { try inv.environment.resolve($0) }
    let reportPath = try options.report.map { try inv.environment.resolve($0) }
    let timelinePath = try options.timeline.map { try inv.environment.resolve($0) }
    let artifactsPath = try options.artifacts.map { try inv.environment.resolve($0) }
    // Every file is read and checked before anything runs; a file with errors is reported with
    // all of them and does not run, and the other files still do.
    let checked = try files.map(check)
    let artifactsFolder = try createArtifactsFolder(artifactsPath)
    var results: [ScenarioResult] = []
    var last: Store?
    for var r in checked {
      if r.errors.isEmpty { last = run(&r, runner: runner, environment: forced, artifacts: artifactsFolder) }
      results.append(r)
      if inv.printsText { inv.out(r.summary) }
    }
    try writePictures(of: last, scenario: files[0], report: reportPath, timeline: timelinePath)
    report(results)
    if let junit, let shown = options.junit {
      do {
        try Self.junit(results).write(toFile: junit, atomically: true, encoding: .utf8)
      } catch {
        throw CLIError(code: .cannotCreate, message: "cannot write JUnit report to \(shown)")
      }
    }
    if results.contains(where: { !$0.errors.isEmpty }) { return .dataError }
    return results.allSatisfy(\.passed) ? .success : .failure
  }

  /// `--environment`: the environment every `init` uses.
  func forcedEnvironment() throws -> StoreEnvironment? {
    guard let text = options.environment else { return nil }
    guard let e = StoreEnvironment(userInput: text) else {
      throw CLIError.usage(
        Suggest.orValues("unknown environment '\(text)'", for: text, in: StoreEnvironment.allCases.map(\.rawValue)),
        command: "run")
    }
    return e
  }

  /// Reads and checks one file, printing its errors.
  func check(_ file: String) throws -> ScenarioResult {
    let path = try inv.environment.resolve(file)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
      throw CLIError.noInput("no such scenario file: \(file)")
    }
    let folder = (path as NSString).deletingLastPathComponent
    var result = ScenarioResult(file: file, folder: folder)
    var notes: [ScenarioFailure] = []
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
      let checked = ScenarioCheck.check(
        text, file: file, folder: folder, table: inv.table, environment: inv.environment)
      (result.lines, result.errors) = (checked.lines, checked.errors)
      notes = checked.notes
    } else {
      result.errors = [ScenarioFailure(line: 0, message: "not a UTF-8 text file")]
    }
    for e in result.errors {
      inv.err(e.line > 0 ? "\(file):\(e.line): error: \(e.message)" : "\(file): error: \(e.message)")
    }
    for n in notes { inv.err("\(file):\(n.line): note: \(n.message)") }
    return result
  }

  /// `--artifacts`: the folder, created.
  func createArtifactsFolder(_ folder: String?) throws -> String? {
    guard let folder else { return nil }
    do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
      throw CLIError(code: .cannotCreate, message: "cannot create the artifacts folder \(folder)")
    }
    return folder
  }

  /// `--report` and `--timeline`: the page and the drawing of the scenario's session (nothing
  /// when it did not run or made no session).
  func writePictures(of store: Store?, scenario: String, report: String?, timeline: String?) throws {
    if let path = report, let file = options.report, let store {
      try ReportPage.write(ReportPage.html(store: store, title: scenario), to: path, shown: file)
    }
    if let path = timeline, let file = options.timeline, let store {
      try ReportPage.write(
        TimelinePicture.svg(store: store, groups: store.configuration.subscriptionGroups), to: path, shown: file)
    }
  }

  /// Runs a checked file, writing its artifacts when asked; returns the session it left.
  @discardableResult
  func run(
    _ r: inout ScenarioResult, runner: ScenarioRunner, environment: StoreEnvironment?, artifacts: String?
  ) -> Store? {
    let started = Date()
    let (failures, count, memory) = runner.run(r.lines, file: r.file, folder: r.folder, environment: environment)
    if let out = artifacts, let store = memory.store {
      let name = ((r.file as NSString).lastPathComponent as NSString).deletingPathExtension + ".json"
      try? ScenarioRunner.artifacts(store).rendered(pretty: false).write(
        toFile: (out as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    r.failures = failures
    r.expectations = count
    r.elapsed = Date().timeIntervalSince(started)
    return memory.store
  }

  /// The last line (`N passed, M failed`) or the JSON report.
  func report(_ results: [ScenarioResult]) {
    let erroneous = results.filter { !$0.errors.isEmpty }.count
    let failed = results.filter { !$0.passed }.count
    inv.emit(
      json: .object([
        "scenarios": .array(results.map(\.json)),
        "passed": .int(Int64(results.count - failed)), "failed": .int(Int64(failed)),
      ]),
      line: "\(results.count - failed) passed, \(failed) failed"
        + (erroneous > 0 ? " (\(erroneous) with errors, not run)" : ""))
  }

  /// A JUnit XML report: one test case per file.
  static func junit(_ results: [ScenarioResult]) -> String {
    let erroneous = results.filter { !$0.errors.isEmpty }.count
    let failed = results.filter { !$0.passed }.count
    var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    xml +=
      #"<testsuite name="storesim" tests="\#(results.count)" failures="\#(failed - erroneous)" errors="\#(erroneous)">"#
      + "\n"
    for r in results {
      xml +=
        #"  <testcase classname="storesim.scenario" name="\#(XMLText.escaped(r.file))" time="\#(String(format: "%.3f", r.elapsed))">"#
      if !r.errors.isEmpty {
        let body = r.errors.map { "\(r.file):\($0.line): error: \($0.message)" }.joined(separator: "\n")
        xml +=
          "\n"
          + #"    <error type="scenario error" message="\#(r.errors.count) error\#(r.errors.count == 1 ? "" : "s"); not run">\#(XMLText.escaped(body))</error>"#
          + "\n  "
      } else if !r.failures.isEmpty {
        let body = r.failures.map { "\(r.file):\($0.line): \($0.message)" }.joined(separator: "\n")
        xml +=
          "\n"
          + #"    <failure message="\#(XMLText.escaped(r.failures[0].message))">\#(XMLText.escaped(body))</failure>"#
          + "\n  "
      }
      xml += "</testcase>\n"
    }
    xml += "</testsuite>\n"
    return xml
  }
}

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
