import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 25, item 7: each error says what is wrong, at which word, and one fix: a message that
/// names its fix gets no "(see 'storesim help ...')" besides, and a misspelt value gets a
/// "did you mean" rather than a list.
@Suite struct OneFixTests {
  static func session() throws -> CLIHarness {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy nonconsumable.car")
    return cli
  }

  /// The hints an error line gives.
  static func hints(_ line: String) -> Int {
    [
      "did you mean", "; use ", ": write ", "(write ", "(use ", "; give ", "(see 'storesim help",
      "(see 'storesim --help", " takes ", " must be ",
    ]
    .filter { line.contains($0) }.count
  }

  @Test func aMisspeltRefundReasonGetsADidYouMean() throws {
    let cli = try Self.session()
    let r = cli.run("refund 2000000000000001 --reason develper-issue")
    #expect(r.code == 64)
    #expect(r.stderr == "error: unknown refund reason 'develper-issue'; did you mean 'developer-issue'?\n")
    #expect(
      cli.run("refund 2000000000000001 --reason zzz").stderr
        == "error: unknown refund reason 'zzz'; use developer-issue or other\n")
    #expect(
      cli.run("refund request nonconsumable.car --reason legl").stderr
        == "error: unknown refund request reason 'legl'; did you mean 'legal'?\n")
  }

  @Test func aMessageThatNamesItsFixHasNoHelpPointer() throws {
    let cli = try Self.session()
    #expect(
      cli.run("advance 1m").stderr
        == "error: duration '1m' is ambiguous: write '1min' for minutes or '1mo' for months\n")
    #expect(cli.run("advance 3x").stderr == "error: unknown duration unit 'x' in '3x'; use s, min, h, d, w, mo or y\n")
    #expect(
      cli.run("refund abc").stderr == "error: invalid transaction id 'abc'; use a number like 2000000000000001\n")
    #expect(
      cli.run("init AppleSample.storekit --environment Sandbx --force").stderr
        == "error: unknown environment 'Sandbx'; did you mean 'Sandbox'?\n")
  }

  @Test func aMessageWithoutAFixPointsToHelp() throws {
    let cli = try Self.session()
    #expect(
      cli.run("advance -1d").stderr
        == "error: duration '-1d' is negative; the clock only moves forward (see 'storesim help advance')\n")
    #expect(cli.run("buy").stderr == "error: missing product id (see 'storesim help buy')\n")
  }

  @Test func everyBadInputGivesOneHint() throws {
    let cli = try Self.session()
    let lines = [
      "biy nonconsumable.car", "buy nonconsumable.car --quantty 2", "buy nonconsumable.car --quantity",
      "buy consumable.fuel.octane87 --quantity lots", "buy subscription.pro --offer bogus", "refund abc",
      "settings ask-to-buy maybe", "settings time-rate fastest", "settings time-rate oneHourIsOneDya",
      "advance 1m", "advance 5", "advance 2026-13-01", "advance --to 2026-02-30", "advance -1d", "advance P1.5Y",
      "serve --port 70000", "api FETCH /inApps/v1/transactions/1", "api GET inApps/v1/transactions/1",
      "extend 2000000000000001 --days 91", "settings deliver-url ftp://example.com/",
      "settings error purchas networkError", "settings error zzzzzzz networkError",
      "init AppleSample.storekit --environment qq --force", "refund 2000000000000001 --reason develper-issue",
      "refund request nonconsumable.car --reason zzz", "completions fsh", "products --sort cost",
      "notifications FOO", "expect pending 0",
    ]
    for line in lines {
      let r = cli.run(line)
      #expect(r.code == 64, "\(line): \(r.stderr)")
      #expect(Self.hints(r.stderr) == 1, "storesim \(line) gives \(Self.hints(r.stderr)) hints: \(r.stderr)")
    }
  }

  @Test func anUnknownNotificationTypeListsTheTypes() throws {
    let cli = try CLIHarness()
    let path = cli.folder + "/types.storesim"
    try "init AppleSample.storekit --start 2026-01-01\nexpect notification FOO\nexpect notification DID_RENW\n"
      .write(toFile: path, atomically: true, encoding: .utf8)
    let r = cli.run(["run", path])
    #expect(r.code == 65)
    let types = WireFields.notificationTypes
    #expect(
      r.stderr.contains(
        "types.storesim:2: error: unknown notification type 'FOO'; use "
          + types.dropLast().joined(separator: ", ") + " or " + types[types.count - 1] + "\n"), "\(r.stderr)")
    #expect(
      r.stderr.contains("types.storesim:3: error: unknown notification type 'DID_RENW'; did you mean 'DID_RENEW'?\n"))
  }

  @Test func theFixPhrasesAreRecognised() {
    #expect(ErrorHint.namesAFix("invalid offer 'x'; use intro"))
    #expect(ErrorHint.namesAFix("unknown option '--quantty'; did you mean '--quantity'?"))
    #expect(ErrorHint.namesAFix("setting 'ask-to-buy' takes on or off, not 'maybe'"))
    #expect(!ErrorHint.namesAFix("duration '-1d' is negative; the clock only moves forward"))
    #expect(!ErrorHint.namesAFix("unknown option '--because'"))
    #expect(ErrorHint.namesAFix("'expect' works in scenarios and the shell (see 'storesim help expect')"))
    #expect(ErrorHint.list(["a", "b", "c"]) == "a, b or c")
  }
}
