import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 36: `timeline --svg`, `report --html` and `run --report/--timeline`.
@Suite struct PictureTests {
  /// A life with every kind of period: a trial, paid renewals, billing retry and grace, a
  /// recovery, a plan change, a refund and an expiry; a customer whose grace period runs out
  /// into billing retry; and a customer whose name needs escaping.
  static let life = [
    "init Premium.storekit --start 2026-01-31T12:00:00Z --environment Sandbox",
    "buy com.example.premium.monthly",
    "buy com.example.premium.monthly --customer late",
    "advance 1w",
    "settings billing-retry on",
    "settings grace-period on",
    "advance 1mo",
    "advance 3d",
    "settings billing-retry off",
    "resolve com.example.premium.monthly",
    "buy com.example.premium.yearly",
    "advance 1mo",
    "buy com.example.premium.monthly --customer <b>&amp;\"co\"",
    "refund --product com.example.premium.monthly --customer <b>&amp;\"co\"",
    "cancel com.example.premium.yearly",
    "advance 1y",
  ]

  func lived() throws -> CLIHarness {
    let cli = try CLIHarness()
    for line in Self.life {
      let r = cli.run(line)
      #expect(r.code == 0, "\(line): \(r.stderr)")
    }
    return cli
  }

  @Test func theTimelineDrawingMatchesTheGoldenAndIsTheSameBytesEveryTime() throws {
    let cli = try lived()
    let svg = cli.run("timeline --svg")
    #expect(svg.code == 0)
    assertGolden(svg.stdout, "timeline.svg")
    #expect(cli.run("timeline --svg").stdout == svg.stdout)
    let other = try lived()
    #expect(other.run("timeline --svg").stdout == svg.stdout, "another session with the same life")
  }

  @Test func theDrawingIsSelfContainedReadableInDarkAndEscapesEveryName() throws {
    let svg = try lived().run("timeline --svg").stdout
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(svg.contains("@media (prefers-color-scheme: dark)"))
    #expect(!svg.contains("href"), "nothing outside the file is referred to")
    #expect(svg.contains("&lt;b&gt;&amp;amp;&quot;co&quot;"))
    #expect(!svg.contains("<b>"))
    for label in [
      "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY", "REFUND", "EXPIRED",
      "GRACE_PERIOD_EXPIRED",
    ] {
      #expect(svg.contains(label), "\(label) is drawn")
    }
    for kind in ["tl-trial", "tl-paid", "tl-grace", "tl-billingRetry", "tl-refunded", "tl-change"] {
      #expect(svg.contains("class=\"\(kind)\""), "\(kind) is drawn")
    }
  }

  @Test func timelineSVGRefusesJSONAndWidthAndAnUnknownGroup() throws {
    let cli = try lived()
    #expect(cli.run("timeline --svg --json").code == 64)
    #expect(cli.run("timeline --svg --width 80").code == 64)
    let unknown = cli.run("timeline Nope --svg")
    #expect(unknown.code == 64)
    #expect(unknown.stdout.isEmpty)
  }

  @Test func theHTMLReportMatchesTheGoldenAndFetchesNothing() throws {
    let cli = try lived()
    let r = cli.run("report --html nofolder/report.html")
    #expect(r.code == 73, "a folder that does not exist cannot hold the report")
    #expect(cli.run("report --html report.html").stdout == "wrote report.html\n")
    let page = try String(contentsOfFile: cli.folder + "/report.html", encoding: .utf8)
    assertGolden(page.replacingOccurrences(of: cli.folder, with: "FOLDER"), "report.html")
    #expect(!page.contains("<script"))
    #expect(!page.contains("http://") || !page.contains("src="), "no fetch")
    #expect(page.contains("&lt;b&gt;&amp;amp;&quot;co&quot;"))
    #expect(page.contains("<svg xmlns="))
    #expect(cli.run("report").code == 64)
  }

  @Test func runWritesTheReportAndTheDrawingOfItsScenario() throws {
    let cli = try CLIHarness()
    try (Self.life.joined(separator: "\n") + "\n").replacingOccurrences(of: "&amp;\"co\"", with: "co")
      .write(toFile: cli.folder + "/life.storesim", atomically: true, encoding: .utf8)
    let r = cli.run("run life.storesim --report life.html --timeline life.svg")
    #expect(r.code == 0, "\(r.stderr)")
    let svg = try String(contentsOfFile: cli.folder + "/life.svg", encoding: .utf8)
    #expect(svg.contains("DID_FAIL_TO_RENEW/GRACE_PERIOD"))
    let page = try String(contentsOfFile: cli.folder + "/life.html", encoding: .utf8)
    #expect(page.contains("storesim report: life.storesim"))
    #expect(cli.run("run life.storesim life.storesim --report two.html").code == 64)
    #expect(!FileManager.default.fileExists(atPath: cli.folder + "/two.html"))
  }

  @Test func theREADMEPictureIsWhatTheTourDrawsToday() throws {
    let cli = try CLIHarness()
    let tour = CLIHarness.projectRoot.appendingPathComponent("Scripts/tour.storesim").path
    #expect(cli.run(["run", tour, "--timeline", "tour.svg"]).code == 0)
    let drawn = try String(contentsOfFile: cli.folder + "/tour.svg", encoding: .utf8)
    let committed = try String(
      contentsOf: CLIHarness.projectRoot.appendingPathComponent("docs/images/timeline.svg"), encoding: .utf8)
    #expect(
      drawn == committed,
      "docs/images/timeline.svg is stale: storesim run Scripts/tour.storesim --timeline docs/images/timeline.svg")
  }
}
