import Foundation
import StoreSim

/// Checking a scenario before it runs: every command line goes through the command's own
/// argument parsing on a session that stops at the point the command would touch the store.
enum ScenarioCheck {
  /// Thrown by `SessionContext.with` in a checking run: the command got as far as the session.
  struct Reached: Error {}
  /// Thrown by `SessionContext.with` in a checking run before any `init`.
  struct NoSession: Error {}

  /// Called by `SessionContext.with` for a checking run: checks the names the command line gives
  /// against the scenario's configuration, then stops the command.
  static func reached(_ inv: Invocation, _ memory: MemorySession) throws -> Never {
    guard let store = memory.store else { throw NoSession() }
    for reference in inv.references {
      switch reference {
      case .product(let p):
        _ = try store.checkedProduct(p)
      case .quantity(let quantity, of: let p):
        if quantity != 1 { try checkQuantity(quantity, of: p, in: store, command: nil) }
      case .groupOrProduct(let name):
        do { _ = try ConfigurationNames(store: store).groupOrProduct(name) } catch {
          throw CLIError.refusedArgument(error.message)
        }
      }
    }
    throw Reached()
  }

  /// What checking a scenario file found: its lines to run, every error with its line, and
  /// notes (a session on the wall clock).
  struct Result {
    var lines: [ScenarioLine] = []
    var errors: [ScenarioFailure] = []
    var notes: [ScenarioFailure] = []
  }

  /// The note for a scenario whose `init` has no `--start`.
  static let wallClockNote =
    "init has no --start: this scenario runs on today's date, so its dates change from day to day; add --start DATE"

  /// The numbers of the command lines whose refusal is expected: those followed (after other
  /// expectations only) by `expect error ...` or `expect result failed`. They are checked for
  /// their form only (the words, the command's name); what they refuse is checked when they run.
  static func linesExpectingRefusal(_ text: String) -> Set<Int> {
    var expecting: Set<Int> = []
    var lastCommand: Int?
    for (number, raw) in ScenarioRunner.numberedLines(text) {
      guard let words = try? ScriptLineSplitter.split(String(raw)), let first = words.first else { continue }
      guard first == "expect" else {
        lastCommand = first == "echo" || first == "respond" ? nil : number
        continue
      }
      let form = words.dropFirst().first
      if let command = lastCommand, form == "error" || (form == "result" && words.dropFirst(2).first == "failed") {
        expecting.insert(command)
      }
    }
    return expecting
  }

  /// The words a scenario line may begin with besides a command's name (`storesim` is refused
  /// with its own message).
  static let lineWords: Set<String> = ["expect", "echo", "respond", "help", "storesim"]

  /// Whether `text` is no scenario at all: its first line with words (after blank lines and
  /// comments) does not begin with a command, `expect`, `echo` or `respond` (a typo there is
  /// answered so too: a near miss may be the start of a secret). Such a file (a key, a `.env`, any file named by mistake or by an agent) is
  /// refused whole, before any line of it is read further, and its error shows no word of it.
  static func notAScenario(_ text: String, table: CommandTable) -> ScenarioFailure? {
    for (number, raw) in ScenarioRunner.numberedLines(text) {
      let refusal = ScenarioFailure(
        line: number,
        message:
          "line \(number) is not a scenario command (a command, expect, echo or respond), so this is not a scenario file; none of its lines is shown"
      )
      guard let words = try? ScriptLineSplitter.split(String(raw)) else { return refusal }
      guard let first = words.first else { continue }
      return table.spec(named: first) != nil || lineWords.contains(first) ? nil : refusal
    }
    return nil
  }

  /// Every error of a scenario file, each with its line, and its lines to run.
  static func check(
    _ text: String, file: String, folder: String, table: CommandTable, environment: CLIEnvironment
  ) -> Result {
    var result = Result()
    if let refusal = notAScenario(text, table: table) {
      result.errors = [refusal]
      return result
    }
    let expectingRefusal = linesExpectingRefusal(text)
    let memory = MemorySession()
    memory.checking = true
    var initFailed = false
    let quiet = environment.quiet(in: folder)
    for (number, raw) in ScenarioRunner.numberedLines(text) {
      let line: ScenarioLine
      do {
        guard let read = try ScenarioRunner.read(raw, number: number, table: table, store: memory.store) else {
          continue
        }
        line = read
      } catch {
        result.errors.append(ScenarioFailure(line: number, message: error.message))
        continue
      }
      result.lines.append(line)
      let words = line.words
      if words[0] == "expect" || words[0] == "echo" || words[0] == "respond" || expectingRefusal.contains(number) {
        continue
      }
      do {
        let parsed = try ArgumentScanner.scan(words, commands: table)
        _ = try CLI.dispatch(parsed, environment: quiet, table: table, memory: memory)
      } catch is Reached {
      } catch is NoSession {
        if !initFailed {
          result.errors.append(
            ScenarioFailure(line: number, message: "no session yet; start the scenario with 'init CONFIG.storekit'"))
          initFailed = true
        }
      } catch {
        if words[0] == "init" { initFailed = true }
        result.errors.append(ScenarioFailure(line: number, message: CLIError(reporting: error).message))
      }
      if memory.startedOnWallClock {
        if result.notes.isEmpty { result.notes.append(ScenarioFailure(line: number, message: wallClockNote)) }
        memory.startedOnWallClock = false
      }
    }
    return result
  }
}
