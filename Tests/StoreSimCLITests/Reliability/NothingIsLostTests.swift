import Foundation
import StoreSimSignals
import Testing

@testable import StoreSim
@testable import StoreSimCLI
@testable import StoreSimSession
@testable import StoreSimTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The session file keeps its identity and nothing but a session file is ever moved.
@Suite struct SessionFileIdentityTests {
  func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  @Test func aSymlinkedSessionUpdatesItsTargetAndKeepsTheLink() throws {
    let cli = try CLIHarness()
    try FileManager.default.createDirectory(atPath: cli.folder + "/real", withIntermediateDirectories: true)
    #expect(cli.run("init AppleSample.storekit --session real/s.json").code == 0)
    try FileManager.default.createSymbolicLink(atPath: cli.folder + "/link.json", withDestinationPath: "real/s.json")
    #expect(cli.run("buy nonconsumable.car --session link.json").code == 0)
    let destination = try FileManager.default.destinationOfSymbolicLink(atPath: cli.folder + "/link.json")
    #expect(destination == "real/s.json")
    #expect(cli.run("transactions --session real/s.json").stdout.contains("nonconsumable.car"))
    #expect(FileManager.default.fileExists(atPath: cli.folder + "/real/s.json.lock"))
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/link.json.lock"))
  }

  @Test func aSavedSessionKeepsTheModeItHad() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --session s.json").code == 0)
    chmod(cli.folder + "/s.json", 0o600)
    #expect(cli.run("buy nonconsumable.car --session s.json").code == 0)
    var info = stat()
    stat(cli.folder + "/s.json", &info)
    #expect(info.st_mode & 0o777 == 0o600)
  }

  @Test func aReadOnlySessionIsRefusedForChangesAndLeftAsItWas() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --session s.json").code == 0)
    chmod(cli.folder + "/s.json", 0o444)
    let before = bytes(cli.folder + "/s.json")
    let r = cli.run("buy nonconsumable.car --session s.json")
    #expect(r.code == 77)
    #expect(r.stderr.contains("read-only"), "\(r.stderr)")
    #expect(bytes(cli.folder + "/s.json") == before)
    // Reading still works.
    #expect(cli.run("entitlements --session s.json").code == 0)
  }

  @Test func anEmptyOrFolderSessionPathIsAUsageErrorThatTouchesNothing() throws {
    let cli = try CLIHarness()
    try FileManager.default.createDirectory(atPath: cli.folder + "/proj", withIntermediateDirectories: true)
    for line in [
      "init AppleSample.storekit --force --session", "init AppleSample.storekit --force --session proj",
      "now --session proj/",
    ] {
      var argv = line.split(separator: " ").map(String.init)
      if argv.last == "--session" { argv.append("") }
      let r = cli.run(argv)
      #expect(r.code == 64, "\(line): \(r.stderr)")
    }
    var isDirectory: ObjCBool = false
    #expect(
      FileManager.default.fileExists(atPath: cli.folder + "/proj", isDirectory: &isDirectory) && isDirectory.boolValue)
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/proj.damaged"))
  }

  @Test func initForceKeepsEveryDamagedCopyNumberedNeverOverwritten() throws {
    let cli = try CLIHarness()
    let path = cli.folder + "/s.json"
    for (i, text) in ["first damage", "second damage", "third damage"].enumerated() {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      let r = cli.run("init AppleSample.storekit --force --session s.json")
      #expect(r.code == 0)
      let kept = path + (i == 0 ? ".damaged" : ".damaged.\(i)")
      #expect(String(data: bytes(kept) ?? Data(), encoding: .utf8) == text)
    }
  }

  @Test func aDamagedSessionThatIsAFolderIsNeverMoved() throws {
    let cli = try CLIHarness()
    try FileManager.default.createDirectory(atPath: cli.folder + "/tree/sub", withIntermediateDirectories: true)
    let r = cli.run("init AppleSample.storekit --force --session tree")
    #expect(r.code == 64)
    #expect(FileManager.default.fileExists(atPath: cli.folder + "/tree/sub"))
  }

  @Test func staleTemporaryFilesOfDeadProcessesAreRemovedOnSave() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit --session s.json").code == 0)
    // No process has pid 2^22+1 on a default kernel (pid_max is at most 4194304).
    let stale = cli.folder + "/s.json.tmp-4194305"
    try "partial".write(toFile: stale, atomically: false, encoding: .utf8)
    #expect(cli.run("buy nonconsumable.car --session s.json").code == 0)
    #expect(!FileManager.default.fileExists(atPath: stale))
  }

  /// SIGTERM's handler at a moment no save is under way in this process (other tests save in
  /// parallel), read by swapping it out and back under the saves' lock.
  func handlerBetweenSaves() -> Int? {
    for _ in 0..<5000 {
      let handler: Int? = ProcessSignals.registry.withLock { n in
        guard n.users == 0 else { return nil }
        let handler = signal(SIGTERM, SIG_IGN)
        signal(SIGTERM, handler)
        return handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
      }
      if let handler { return handler }
      usleep(1000)
    }
    return nil
  }

  @Test func savesOnManyThreadsAtOnceNestTheirSignalHandlersAndRestoreTheOriginal() throws {
    let folder = NSTemporaryDirectory() + "storesim-threads-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let original = try #require(handlerBetweenSaves())
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      let location = SessionLocation(resolvedFile: folder + "/s\(worker).json")
      for round in 0..<100 {
        try? AtomicFile.write(Data("round \(round)".utf8), to: location)
      }
    }
    #expect(handlerBetweenSaves() == original)
    for worker in 0..<8 {
      #expect(bytes(folder + "/s\(worker).json") == Data("round 99".utf8))
    }
  }

  @Test func systemErrorsNameTheirCauseAndFollowSysexits() {
    #expect(SystemError.exitCode(EACCES) == .permissionDenied)
    #expect(SystemError.exitCode(ENOSPC) == .ioError)
    #expect(SystemError.exitCode(EROFS) == .cannotCreate)
    #expect(
      SystemError.error("cannot save the session to s.json", errno: ENOSPC).message.hasSuffix(
        ": No space left on device"))
    #expect(
      ExitCode.cannotCreate.rawValue == 73 && ExitCode.ioError.rawValue == 74
        && ExitCode.permissionDenied.rawValue == 77)
  }
}

/// Work is bounded, and absurd work is refused before anything is saved.
@Suite struct BoundedWorkTests {
  @Test func advancingPastTheYear9999IsRefusedAndSavesNothing() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy com.example.premium.monthly").code == 0)
    let before = FileManager.default.contents(atPath: cli.folder + "/.storesim/session.json")
    for line in ["advance 99999y", "advance 1000000y", "advance P8000Y"] {
      let r = cli.run(line)
      #expect(r.code == 64, "\(line): \(r.stderr)")
      #expect(r.stderr.contains("9999"))
      #expect(FileManager.default.contents(atPath: cli.folder + "/.storesim/session.json") == before)
    }
    // The last second of 9999 itself is allowed.
    #expect(cli.run("init Premium.storekit --force --start 9999-12-31T00:00:00Z").code == 0)
    #expect(cli.run("advance --to 9999-12-31T23:59:59Z").code == 0)
  }

  @Test func moreThanTheDeadlineLimitInOneCommandIsRefusedUpFront() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("settings time-rate oneRenewalEveryTwoSeconds").code == 0)
    #expect(cli.run("buy com.example.premium.monthly").code == 0)
    let before = FileManager.default.contents(atPath: cli.folder + "/.storesim/session.json")
    let r = cli.run("advance 50y")
    #expect(r.code == 64)
    #expect(r.stderr.contains("1,000,000") && r.stderr.contains("smaller steps"), "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(FileManager.default.contents(atPath: cli.folder + "/.storesim/session.json") == before)
  }

  @Test func theDeadlineEstimateIsAnUpperBoundOfTheWorkDone() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("monthly")
    try store.addCustomer("b")
    _ = try store.buyProduct("weekly", customer: "b")
    let target = store.now.addingTimeInterval(Fixtures.days(400))
    let estimate = store.dueEstimate(through: target, limit: 1_000_000)
    let events = try store.advance(to: target).events
    let renewals = events.filter { if case .subscriptionRenewed = $0.kind { return true } else { return false } }.count
    #expect(renewals > 50)
    #expect(estimate >= renewals)
    #expect(estimate <= renewals * 2 + 10)
  }

  @Test func streamingAnAdvanceGivesTheSameEventsAndStateAsCollectingThem() throws {
    var a = Fixtures.store { $0.shouldEnterBillingRetryOnRenewal = false }
    _ = try a.buyProduct("monthly")
    try a.addCustomer("b")
    _ = try a.buyProduct("weekly", customer: "b")
    var b = a
    let target = a.now.addingTimeInterval(Fixtures.days(200))
    let collected = try a.advance(to: target).events
    var streamed: [StoreEvent] = []
    let finished = try b.advance(to: target) { events in
      streamed += events
      events.removeAll()
      return true
    }
    #expect(finished)
    #expect(streamed == collected)
    #expect(a.state == b.state)
  }

  @Test func aStreamedAdvanceStopsWhenAskedWithEverythingBeforeItDone() throws {
    var store = Fixtures.store()
    _ = try store.buyProduct("weekly")
    let start = store.now
    var batches = 0
    let finished = try store.advance(to: start.addingTimeInterval(Fixtures.days(3650))) { events in
      batches += 1
      events.removeAll()
      return batches < 2
    }
    #expect(!finished)
    #expect(store.now > start)
    #expect(store.now < start.addingTimeInterval(Fixtures.days(3650)))
  }

  @Test func durationsThatOverflowOrHaveFractionalMonthsAreRefusedNeverTruncated() throws {
    for text in [
      "P99999999999999999999Y", "P9999999999999999Y", "PT99999999999999999999999999999999999999S", "P1.5Y", "P0.5M",
      "1.5mo", "2000000d", "1mo1mo", "1d1d",
    ] {
      #expect(throws: CLIError.self, "\(text)") { try ValueParsing.duration(text) }
    }
    #expect(try ValueParsing.duration("PT1.5S") == TypedDuration(seconds: 1.5))
    #expect(try ValueParsing.duration("1.5d") == TypedDuration(seconds: 129_600))
    #expect(try ValueParsing.duration("P1DT0,5H") == TypedDuration(seconds: 88_200))
    #expect(try ValueParsing.duration("1y2mo") == TypedDuration(months: 14))
  }

  @Test func didYouMeanAgreesWithTheEditDistanceAndIsBounded() {
    func levenshtein(_ a: [Character], _ b: [Character]) -> Int {
      var row = Array(0...b.count)
      for i in 1...max(a.count, 1) where !a.isEmpty {
        var next = [i] + [Int](repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
          next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        row = next
      }
      return a.isEmpty ? b.count : row[b.count]
    }
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("abc.")
    for _ in 0..<2000 {
      let a = (0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
      let b = (0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
      let limit = Int.random(in: 0...5, using: &generator)
      let exact = levenshtein(a, b)
      #expect(
        Suggestion.distance(a, b, atMost: limit) == (exact <= limit ? exact : nil), "\(String(a)) \(String(b)) \(limit)"
      )
    }
    let names = (0..<5000).map { "com.example.product\($0)" }
    #expect(Suggestion.closest(to: String(repeating: "x", count: 20_000), in: names) == nil)
    #expect(Suggestion.closest(to: "com.example.prodct42", in: names) == "com.example.product42")
  }

  @Test func aLongScenarioRunsEveryLine() throws {
    let cli = try CLIHarness()
    let lines =
      ["init AppleSample.storekit"] + Array(repeating: "buy consumable.fuel.octane87", count: 3000) + [
        "expect transactions 3000"
      ]
    try lines.joined(separator: "\n").write(toFile: cli.folder + "/long.storesim", atomically: true, encoding: .utf8)
    let r = cli.run("run long.storesim")
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
  }
}

/// Output is held until the command is over, safe for a terminal, and spills to disk when long.
@Suite struct OutputSafetyTests {
  @Test func heldOutputSpillsToDiskAndComesOutWhole() {
    let collected = Collected()
    let spool = OutputSpool { collected.append($0) }
    let line = String(repeating: "x", count: 999) + "\n"
    for _ in 0..<(OutputSpool.memoryLimit / 1000 * 2) { spool.append(line) }
    #expect(collected.text.isEmpty)
    spool.flush()
    #expect(collected.text.utf8.count == OutputSpool.memoryLimit / 1000 * 2 * 1000)
    #expect(collected.text.split(separator: "\n").allSatisfy { $0.count == 999 })
  }

  @Test func controlCharactersFromIdsAreShownEscaped() throws {
    #expect(TerminalText.field("a\u{1B}]0;title\u{07}\nb") == "a\\e]0;title\\u{7}\\nb")
    #expect(TerminalText.block("line\n\u{9B}2J") == "line\n\\u{9B}2J")
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit").code == 0)
    let r = cli.run(["buy", "x\u{1B}[2J\nforged"])
    #expect(!r.stderr.contains("\u{1B}"))
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
  }

  @Test func aCommandsOutputComesAfterItsSave() throws {
    // The first output reaches the sink only when CLI.run returns, after the save: the sink
    // sees the session file already holding the purchase.
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit").code == 0)
    let folder = cli.folder
    let seen = Collected()
    let env = CLIEnvironment(
      writeOut: { text in
        let saved = (try? String(contentsOfFile: folder + "/.storesim/session.json", encoding: .utf8)) ?? ""
        seen.append(saved.contains("nonconsumable.car") ? "saved;" : "not saved;")
      }, writeErr: { _ in }, currentDirectory: folder)
    #expect(CLI.run(["buy", "nonconsumable.car"], environment: env) == 0)
    #expect(seen.text == "saved;")
  }
}

/// The shell is just another client of the session file.
@Suite struct ShellSessionTests {
  @Test func theShellAndAnotherProcessKeepEachOthersChanges() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init AppleSample.storekit").code == 0)
    let lines = Lines(["buy nonconsumable.car", "OTHER", "buy nonconsumable.utilityvehicle", "exit"])
    let folder = cli.folder
    let env = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, currentDirectory: folder,
      readLine: {
        let line = lines.next()
        if line == "OTHER" {
          // Another process buys while the shell is open.
          _ = cli.run("buy consumable.fuel.octane87")
          return ""
        }
        return line
      })
    #expect(CLI.run(["shell"], environment: env) == 0)
    let all = cli.run("transactions").stdout
    for product in ["nonconsumable.car", "consumable.fuel.octane87", "nonconsumable.utilityvehicle"] {
      #expect(all.contains(product), "\(product) missing:\n\(all)")
    }
  }
}

final class Collected: @unchecked Sendable {
  private let lock = NSLock()
  private var storage = ""
  var text: String { lock.withLock { storage } }
  func append(_ s: String) { lock.withLock { storage += s } }
}

final class Lines: @unchecked Sendable {
  private let lock = NSLock()
  private var items: [String]
  init(_ items: [String]) { self.items = items }
  func next() -> String? { lock.withLock { items.isEmpty ? nil : items.removeFirst() } }
}
