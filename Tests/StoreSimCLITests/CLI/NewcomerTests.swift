import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 44, item 7, "A newcomer's first hour": prices in milliunits said before a run, and one
/// convention for the pictures' files (`timeline --svg FILE`, `report --html FILE`, `-` for
/// standard output).
@Suite struct NewcomerTests {
  func write(_ text: String, in cli: CLIHarness) throws -> String { try ScenarioLanguageTests().write(text, in: cli) }

  @Test func aPriceInMilliunitsPassesAndHelpSaysSoUpFront() throws {
    let cli = try CLIHarness()
    let file = try write(
      """
      init Premium.storekit --start 2026-01-01T00:00:00Z
      buy com.example.premium.monthly
      advance 1w
      expect latest com.example.premium.monthly price 9990
      expect renewal com.example.premium.monthly renewalPrice 9990
      """, in: cli)
    let r = cli.run("run \(file)")
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
    let help = cli.run("help expect").stdout
    let overview = help.components(separatedBy: "FORMS:")[0].split(whereSeparator: \.isWhitespace).joined(
      separator: " ")
    #expect(overview.contains("Prices are milliunits"), "\(overview)")
  }

  @Test func timelineSvgTakesAFileAsReportHtmlDoesAndDashOrNothingPrints() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init Premium.storekit --start 2026-01-01T00:00:00Z").code == 0)
    #expect(cli.run("buy com.example.premium.monthly").code == 0)
    let printed = cli.run("timeline --svg")
    #expect(printed.code == 0 && printed.stdout.hasPrefix("<svg xmlns="))
    #expect(cli.run("timeline --svg -").stdout == printed.stdout)
    #expect(cli.run("timeline Premium --svg").stdout.hasPrefix("<svg xmlns="))
    let wrote = cli.run("timeline --svg t.svg")
    #expect(wrote.code == 0, "\(wrote.stderr)")
    #expect(wrote.stdout == "wrote t.svg\n")
    #expect(try String(contentsOfFile: cli.folder + "/t.svg", encoding: .utf8) == printed.stdout)
    #expect(cli.run("timeline Premium --svg=g.svg").code == 0)
    #expect(FileManager.default.fileExists(atPath: cli.folder + "/g.svg"))
    // The old `timeline --svg GROUP` is not taken as a file named GROUP.
    let group = cli.run("timeline --svg Premium")
    #expect(group.code == 64 && group.stderr.contains("timeline Premium --svg"), "\(group.stderr)")
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/Premium"))

    let report = cli.run("report --html r.html")
    #expect(report.code == 0 && report.stdout == "wrote r.html\n")
    let page = try String(contentsOfFile: cli.folder + "/r.html", encoding: .utf8)
    #expect(cli.run("report --html -").stdout == page)
    #expect(cli.run("report --html").stdout == page)
    #expect(cli.run("report --html - --json").code == 64)
  }
}

/// docs/scenarios.md lists the scenarios CI runs: exactly the files of Scripts/.
@Suite struct ScenarioListTests {
  @Test func theScenarioPageListsEveryScriptAndNoOther() throws {
    let root = CLIHarness.projectRoot
    let scripts = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Scripts").path)
      .filter { $0.hasSuffix(".storesim") }.sorted()
    let page = try String(contentsOf: root.appendingPathComponent("docs/scenarios.md"), encoding: .utf8)
    let listed = page.split(separator: "\n").filter { $0.hasPrefix("| `") && $0.contains(".storesim`") }
      .map { String($0.dropFirst(3).prefix { $0 != "`" }) }
    #expect(listed == scripts, "docs/scenarios.md lists \(listed)")
  }
}

/// `Scripts/install.sh` builds for minutes: it says so and lets swift build's progress through.
@Suite struct InstallProgressTests {
  @Test func installShowsTheBuildsProgressAndSaysWhenItFails() throws {
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let cli = try CLIHarness()
    let tools = cli.folder + "/tools"
    let built = cli.folder + "/built"
    try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: built, withIntermediateDirectories: true)
    // A stand-in for swift: prints build progress (or fails) and where the binary is.
    let swift = """
      #!/bin/bash
      case " $* " in *" --show-bin-path "*) echo "\(built)"; exit 0;; esac
      echo "[1/2] Compiling StoreSim Store.swift"
      echo "[2/2] Linking storesim"
      [ -z "$FAIL_BUILD" ] || { echo "error: it broke" >&2; exit 1; }
      """
    let storesim = "#!/bin/bash\nif [ \"$1\" = --version ]; then echo 'storesim 0.1.0'; else echo \"# $2\"; fi\n"
    for (path, text) in [(tools + "/swift", swift), (built + "/storesim", storesim)] {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
    func install(_ extra: [String: String]) throws -> (code: Int32, out: String) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      process.arguments = [CLIHarness.projectRoot.path + "/Scripts/install.sh", "--prefix", cli.folder + "/prefix"]
      process.environment = ["PATH": tools + ":/usr/bin:/bin", "HOME": cli.folder].merging(extra) { $1 }
      let pipe = Pipe()
      process.standardOutput = pipe
      process.standardError = pipe
      try process.run()
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
    let ok = try install([:])
    #expect(ok.code == 0, "\(ok.out)")
    #expect(ok.out.contains("building storesim (release)") && ok.out.contains("minutes on a 2-core machine"))
    #expect(ok.out.contains("  [1/2] Compiling StoreSim Store.swift\n  [2/2] Linking storesim\n"), "\(ok.out)")
    #expect(ok.out.contains("built in ") && ok.out.contains("installed storesim 0.1.0"))
    let failed = try install(["FAIL_BUILD": "1"])
    #expect(failed.code == 1)
    #expect(failed.out.contains("error: it broke") && failed.out.contains("install.sh: the build failed"))
    #expect(!failed.out.contains("installed storesim"))
  }
}

/// `Scripts/readme_examples.py` runs every page of docs/, and a block marked `not-run: REASON`
/// is listed with its reason instead of run.
@Suite struct DocsExamplesTests {
  @Test func everyDocsPageRunsAndANotRunBlockIsListedWithItsReason() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
    let script = CLIHarness.projectRoot.path + "/Scripts/readme_examples.py"
    let program = """
      import importlib.util, os, sys, tempfile
      spec = importlib.util.spec_from_file_location("examples", sys.argv[1])
      m = importlib.util.module_from_spec(spec)
      spec.loader.exec_module(m)
      pages = sorted(n for n in os.listdir(os.path.join(m.ROOT, "docs")) if n.endswith(".md"))
      print("all pages" if m.DOC_PAGES == pages else f"pages {m.DOC_PAGES}")
      text = "```sh not-run: needs a network\\nexit 3\\n```\\n\\n```sh\\ntrue\\n```\\n\\n```sh not-run\\ntrue\\n```\\n"
      failures, not_run = [], []
      ran = m.run_page("x.md", text, tempfile.mkdtemp(), "/bin/false", dict(os.environ), failures, {}, False, not_run)
      print(ran, failures, not_run)
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", program, script]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    #expect(lines.first == "all pages", "\(lines)")
    // The marked block is listed, not run; a mark without a reason fails.
    #expect(lines.last == "1 ['x.md:9'] [('x.md:1', 'needs a network')]", "\(lines)")
  }
}
