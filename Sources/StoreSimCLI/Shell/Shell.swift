import Foundation
import StoreSim
import StoreSimSession
import StoreSimSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `storesim shell`.
struct ShellCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "shell", group: "Scripts and exploration",
    abstract: "An interactive prompt taking the same commands as scenarios",
    discussion: """
      Reads commands line by line (typed or piped), with the scenario grammar: every command,
      'expect ...', 'echo', plus 'help [command]', 'history' and 'exit'. The prompt shows the
      virtual date. On a terminal, Tab completes command names, options and product ids, and the
      up and down arrows walk the history. With a session file, every line loads it under its
      lock and saves its change under the same lock, so the shell and other storesim processes
      see and keep each other's changes; without one, start with 'init CONFIG' (in memory).
      Ctrl-C clears the line at the prompt and abandons a running command (the state before it
      is kept); Ctrl-D or 'exit' leaves. Piped input prints what 'storesim run --verbose'
      prints for the same lines, with <stdin> as the file name and without run's PASS/FAIL and
      summary lines.
      """,
    example: "echo 'init Premium.storekit --start 2026-01-01' | storesim shell")

  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    var shell = try Shell(inv)
    return try shell.run()
  }
}

/// The interactive shell: a scenario runner fed line by line, over the session file when there
/// is one.
struct Shell {
  let inv: Invocation
  let memory = MemorySession()
  /// The session file, when the shell started on one.
  var file: KeptSession?

  init(_ inv: Invocation) throws {
    self.inv = inv
    memory.isInteractive = true
    let location = try SessionLocation(shown: SessionContext.path(inv), environment: inv.environment)
    if FileManager.default.fileExists(atPath: location.file) {
      var client = KeptSession(location: location)
      memory.store = try client.perform(inv, mutating: false) { $0 }
      file = client
    }
  }

  /// Reads and runs lines until the end of input or `exit`; Ctrl-C interrupts the running
  /// command (the other stopping signals restore the terminal and end the shell).
  mutating func run() throws -> ExitCode {
    try ProcessSignals.catchingInterrupts(restoring: { LineEditor.restoreTerminal() }) { try readAndRun() }
  }

  private mutating func readAndRun() throws -> ExitCode {
    let interactive = inv.environment.isTerminal
    if interactive {
      inv.out(
        "storesim \(storesimVersion) shell — 'help' lists commands, 'exit' leaves"
          + (file.map { "; session \($0.location.shown)" } ?? ""))
    }
    let runner = ScenarioRunner(environment: inv.environment, verbose: true)
    var history: [String] = []
    var number = 0
    var failed = false
    let editor = interactive && LineEditor.isAvailable ? lineEditor() : nil
    while let raw = nextLine(editor, interactive: interactive) {
      number += 1
      let words: [String]
      do {
        words = try ScriptLineSplitter.split(raw)
      } catch {
        inv.err("<stdin>:\(number): syntax error: unterminated quote")
        continue
      }
      guard let first = words.first else { continue }
      history.append(raw)
      switch first {
      case "exit", "quit": return failed ? .failure : .success
      case "history":
        inv.out(history.enumerated().map { "\($0.offset + 1)  \($0.element)" }.joined(separator: "\n"))
        continue
      case "help" where interactive:
        _ = CLI.run(words, environment: inv.environment, memory: memory)
        continue
      default: break
      }
      if try !runTyped(raw, number: number, runner: runner) { failed = true }
    }
    if interactive { inv.environment.writeOut("\n") }
    return failed ? .failure : .success
  }

  /// The terminal line editor, completing commands, options and the session's product ids.
  private func lineEditor() -> LineEditor {
    let memory = self.memory
    let table = inv.table
    return LineEditor { text in
      shellCompletions(text, table: table, productIDs: memory.store?.configuration.products.map(\.id) ?? [])
    }
  }

  /// The next line typed or piped after the prompt; nil at the end of input or when output fails.
  private func nextLine(_ editor: LineEditor?, interactive: Bool) -> String? {
    inv.environment.flushOut()
    if StandardStream.output.failure != nil { return nil }
    let prompt = "storesim \(memory.store.map { ISO8601.string($0.now) } ?? "no session")> "
    if let editor { return editor.readLine(prompt: prompt) }
    if interactive { inv.environment.writeOut(prompt); inv.environment.flushOut() }
    return inv.environment.readLine()
  }

  /// Parses and runs line `number`; false when it failed (a line that does not parse is
  /// reported and does not count as failed).
  private mutating func runTyped(_ raw: String, number: Int, runner: ScenarioRunner) throws -> Bool {
    let lines: [ScenarioLine]
    do {
      lines = try ScenarioRunner.parse(raw, file: "<stdin>", table: inv.table).map {
        var line = $0
        line.number = number
        return line
      }
    } catch let error as CLIError {
      inv.err(error.message.replacingOccurrences(of: "<stdin>:1:", with: "<stdin>:\(number):"))
      return true
    }
    do {
      return try runLine(lines, runner: runner)
    } catch {
      inv.err("error: \(CLIError(reporting: error).message)")
      return false
    }
  }

  /// Runs one line: under the session file's lock when there is one (loading what other
  /// processes saved, saving what the line changed). Ctrl-C abandons the line. Returns false
  /// when an expectation or command failed.
  mutating func runLine(_ lines: [ScenarioLine], runner: ScenarioRunner) throws -> Bool {
    let memory = self.memory
    let inv = self.inv
    func attempt() -> Bool {
      let before = memory.store
      Interrupt.clear()
      let (failures, _) = runner.runLines(
        lines, file: "<stdin>", folder: inv.environment.currentDirectory, memory: memory)
      if Interrupt.requested {
        memory.store = before
        memory.lastError = nil
        memory.unexpectedError = nil
        inv.environment.discardOut()
        inv.err("interrupted: the command was abandoned; nothing changed")
        Interrupt.clear()
        return true
      }
      return failures.isEmpty
    }
    guard var client = file else { return attempt() }
    defer { file = client }
    var ok = true
    _ = try client.perform(inv, mutating: true) { store in
      memory.store = store
      ok = attempt()
      return memory.store ?? store
    }
    return ok
  }
}
